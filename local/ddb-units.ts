/**
 * DynamoDB request units computed from the items themselves, by DynamoDB's documented rules, because
 * dynalite's ReturnConsumedCapacity leaves global secondary indexes out of write costs (it reports the
 * table's units only; the benchmark's cost meter uses it as a cross-check of the table part) and says
 * nothing of which partition took them. The local runtime's partition-load meter (./partition-load.ts)
 * and the benchmark's cost meter (bench/lib/meter.ts) both charge by these rules.
 *
 * Item size = sum over attributes of (UTF-8 length of the name + size of the value): strings their
 * UTF-8 bytes, numbers 1 byte per two significant digits + 1, binary their bytes, booleans and null 1,
 * lists and maps 3 + their elements + 1 per element, sets the sum of their elements.
 * Writes: ceil(size / 1 KB) per item, on the larger of the old and new item; a delete (or a failed
 * condition) on the existing item, at least 1. Reads: ceil(size / 4 KB) per item (GetItem, BatchGetItem),
 * or per request over the summed sizes (Query, Scan), at least 1; half for eventually consistent reads.
 * Index writes: for each GSI the item projects into (it has that index's key attributes), a put of the
 * projected item (table keys + index keys + projected attributes) when it enters, a delete when it
 * leaves, a delete and a put when its index key changes, one write when a projected attribute changes,
 * nothing when no projected attribute changes.
 */
import { TABLE } from '../lambdas/shared/resource-definitions';
import { ACCOUNT_SK, routingPrefix } from '../lambdas/store/keys';

type Item = Record<string, unknown>;

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

function numberSize(value: number | bigint | string): number {
  const mantissa = String(value).toLowerCase().split('e')[0] ?? '';
  const digits = mantissa.replace('-', '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

function valueSize(value: unknown): number {
  if (value === null) return 1;
  switch (typeof value) {
    case 'string':
      return utf8(value);
    case 'number':
    case 'bigint':
      return numberSize(value);
    case 'boolean':
      return 1;
    case 'undefined':
      return 0;
    default:
      break;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof ArrayBuffer) return value.byteLength;
  if (value instanceof Set) {
    let sum = 0;
    for (const element of value) sum += valueSize(element);
    return sum;
  }
  if (Array.isArray(value)) {
    let sum = 3;
    for (const element of value) if (element !== undefined) sum += 1 + valueSize(element);
    return sum;
  }
  if (typeof value === 'object') {
    const asNumber = value as { value?: unknown; constructor?: { name?: string } };
    if (asNumber.constructor?.name === 'NumberValue' && typeof asNumber.value === 'string') return numberSize(asNumber.value);
    let sum = 3;
    for (const [name, element] of Object.entries(value as Item)) {
      if (element === undefined) continue;
      sum += 1 + utf8(name) + valueSize(element);
    }
    return sum;
  }
  return 0;
}

/** The size DynamoDB bills for an item (attribute names included). */
export function itemSize(item: Item | undefined): number {
  if (!item) return 0;
  let sum = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    sum += utf8(name) + valueSize(value);
  }
  return sum;
}

export const writeUnits = (size: number) => Math.max(1, Math.ceil(size / 1024));
export const readUnits = (size: number, consistent: boolean) => Math.max(1, Math.ceil(size / 4096)) * (consistent ? 1 : 0.5);

interface IndexDefinition {
  indexName: string;
  partitionKey: string;
  sortKey: string;
  projection: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
  nonKeyAttributes: readonly string[];
}

const TABLE_KEYS = [TABLE.partitionKey, TABLE.sortKey] as const;
const INDEXES: readonly IndexDefinition[] = TABLE.globalIndexes;

/** The item as the index stores it, or undefined when it does not project into the index. */
function projectInto(index: IndexDefinition, item: Item | undefined): Item | undefined {
  if (!item) return undefined;
  if (item[index.partitionKey] === undefined || item[index.sortKey] === undefined) return undefined;
  if (index.projection === 'ALL') return item;
  const names = new Set<string>([...TABLE_KEYS, index.partitionKey, index.sortKey]);
  if (index.projection === 'INCLUDE') for (const name of index.nonKeyAttributes) names.add(name);
  const projected: Item = {};
  for (const name of names) if (item[name] !== undefined) projected[name] = item[name];
  return projected;
}

/** The item as each GSI it projects into stores it, for what the indexes hold (storage, not units). */
export function indexItems(item: Item | undefined): Array<{ index: string; item: Item }> {
  return INDEXES.flatMap((index) => {
    const projected = projectInto(index, item);
    return projected ? [{ index: index.indexName, item: projected }] : [];
  });
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.from(a).equals(Buffer.from(b));
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (a instanceof Set || b instanceof Set) {
    if (!(a instanceof Set && b instanceof Set) || a.size !== b.size) return false;
    return [...a].every((x) => b.has(x));
  }
  const ka = Object.keys(a as Item).filter((k) => (a as Item)[k] !== undefined);
  const kb = Object.keys(b as Item).filter((k) => (b as Item)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameValue((a as Item)[k], (b as Item)[k]));
}

export interface IndexWrite {
  index: string;
  /** The index's partition key value the write lands on: each index partition has its own limits. */
  partitionKey: string;
  units: number;
}

/**
 * The writes one item change causes in each GSI: a put when the item enters the index, a delete when
 * it leaves, both (on the old and the new partition) when its index key changes, one update when only
 * a projected attribute does.
 */
export function indexWrites(oldItem: Item | undefined, newItem: Item | undefined): IndexWrite[] {
  const writes: IndexWrite[] = [];
  for (const index of INDEXES) {
    const before = projectInto(index, oldItem);
    const after = projectInto(index, newItem);
    const write = (item: Item, units: number) => writes.push({ index: index.indexName, partitionKey: String(item[index.partitionKey]), units });
    const sameKey =
      before && after && sameValue(before[index.partitionKey], after[index.partitionKey]) && sameValue(before[index.sortKey], after[index.sortKey]);
    if (sameKey) {
      if (!sameValue(before, after)) write(after, writeUnits(Math.max(itemSize(before), itemSize(after))));
      continue;
    }
    if (before) write(before, writeUnits(itemSize(before)));
    if (after) write(after, writeUnits(itemSize(after)));
  }
  return writes;
}

/** What kind of item a key is, for the cost breakdown. */
export function itemCategory(key: { pk?: unknown; sk?: unknown }): string {
  const pk = String(key.pk ?? '');
  const sk = String(key.sk ?? '');
  if (pk.startsWith('SOURCETOKEN#')) return 'source lookup';
  if (pk.startsWith('APIKEYHASH#')) return 'api key lookup';
  if (pk.includes('#DEDUP#')) return 'dedupe claim';
  if (pk.includes('#EVT#')) {
    if (sk === 'EVENT') return 'event status';
    if (sk === 'BODY') return 'event body';
    if (sk.startsWith('ATT#')) return 'attempt';
    return 'event partition';
  }
  if (pk.startsWith('ACCT#')) {
    if (sk === ACCOUNT_SK || sk.startsWith(routingPrefix.destinations) || sk.startsWith(routingPrefix.routes)) return 'routing (account/dest/route)';
    if (sk.startsWith(routingPrefix.breakers)) return 'breaker';
    if (sk.startsWith('APIKEY#')) return 'api key';
    if (sk.startsWith('EXPORT#')) return 'export job';
    return 'account partition';
  }
  if (pk === 'SWEEPER') return 'sweeper checkpoint';
  return pk.split('#')[0] || 'other';
}

/** What the partitions of each kind under an account (`ACCT#<id>#<KIND>#…`) hold; lambdas/store/ and the feature records name them. */
const ACCOUNT_SUBPARTITIONS: Readonly<Record<string, string>> = {
  EVT: 'event partition',
  LEASES: 'lease map of a destination (its cap)',
  SHARE: "lease map of an account's share",
  RATE: 'rate limit of a destination',
  DEDUP: 'dedupe claim',
  LISTEN: 'listen sessions of a destination',
  CUST: "customer's event log",
  LINE: 'ordering line of a destination and key',
};

/**
 * What a partition holds, by its partition key value in the table or in an index: partitions of one
 * kind share a design, so a hot one names the design to change.
 */
export function partitionCategory(index: string | undefined, pk: string): string {
  if (index === 'gsi1') return 'list index shard (gsi1)';
  if (index === 'gsi2') return `work index: ${(pk.split('#')[0] ?? pk).toLowerCase()} (gsi2)`;
  if (index) return `${index} partition`;
  const [head = '', account, kind, , shard] = pk.split('#');
  if (head === 'ACCT' && account !== undefined) {
    if (kind === undefined) return 'account partition (routing)';
    // lambdas/store/held-deliveries.ts: the held items in shards (`…#HELD#<destination>#<shard>`), and the chain mark 0.4 kept beside them.
    if (kind === 'HELD') return shard === undefined ? 'held chain mark of a destination' : 'held deliveries of a destination (a shard)';
    return ACCOUNT_SUBPARTITIONS[kind] ?? `account ${kind} partition`;
  }
  if (head === 'SOURCETOKEN') return 'source lookup';
  if (head === 'APIKEYHASH') return 'api key lookup';
  if (head === 'SWEEPER') return 'sweeper checkpoint';
  if (head === 'BORROWED') return "lease map of the tries borrowed past accounts' shares";
  return head || 'other';
}

export const keyOf = (item: Item): string => `${String(item[TABLE.partitionKey])}\u0000${String(item[TABLE.sortKey])}`;
