/**
 * Meters the load each DynamoDB partition takes from the local functions: the read and write units
 * (./ddb-units.ts) every request a function sends through its table client charges to each partition
 * key it touches, per second, so the benchmark (bench/hot-keys.ts) can tell which key would pass
 * DynamoDB's per-partition limits first (about 1,000 write and 3,000 read units a second, in the table
 * and in each global secondary index alike). Off unless HOOKGATE_LOCAL_PARTITION_LOAD=1: without it
 * nothing is added to any client.
 *
 * Units are charged where DynamoDB charges them: a read to the partition of the items it evaluated (a
 * query to the key of its key condition, on the table or the index it names), a write to the item's
 * partition and, for each index whose entry it puts, changes or deletes, to that index entry's
 * partition (the old one and the new one when its index key moves). A write is priced on the item as
 * it was before (read first, consistently, through a client of the meter's own) and after it (a put's
 * item, an update's new image); a write whose condition failed costs the item's units all the same.
 * A read that projected or filtered is priced on whole items (read again whole): DynamoDB charges for
 * what it evaluated, not for what it returned. A write racing another on the same item may be priced
 * on an image a moment old.
 *
 * Only calls made by a function (local/sdk-hooks.ts says which is running) are metered: the
 * runtime's and an operator's own (a benchmark writing its fixtures through the store) are not load the
 * functions put on the table. Totals are kept per key and per second for as long as the thread runs;
 * any thread reads every thread's with `readPartitionLoad`, over a BroadcastChannel as
 * ./call-counts.ts does, and adds them up before it takes a key's peak second.
 */
import { BroadcastChannel } from 'node:worker_threads';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE } from '../lambdas/shared/resource-definitions';
import { documentClient } from '../lambdas/store/client';
import { skipSigning } from './aws-clients';
import { indexWrites, itemSize, keyOf, readUnits, writeUnits } from './ddb-units';
import { asRuntime, runningFunction } from './sdk-hooks';
import { readThreads } from './thread-readings';

export const PARTITION_LOAD_ENV = 'HOOKGATE_LOCAL_PARTITION_LOAD';
const CHANNEL = 'hookgate-local-partition-load';

type Item = Record<string, unknown>;

/** A partition of the table (no `index`) or of one of its global secondary indexes, by its partition key value. */
interface Partition {
  index?: string;
  pk: string;
}

export interface Charge extends Partition {
  rcu: number;
  wcu: number;
}

/** One request, as the function sent it and DynamoDB answered it. */
export interface MeteredCall {
  op: string;
  input: Item;
  /** Undefined when the request failed on its condition (a write). */
  output?: Item;
  conditionFailed?: boolean;
}

/** The items a request's price depends on that it does not carry itself, read by the meter around it. */
export interface Images {
  /** Every item a write touches as it was before (by `keyOf`); a key missing here held no item. */
  before?: ReadonlyMap<string, Item>;
  /** An update's item after it. */
  after?: Item;
  /** The whole items a read that projected or filtered evaluated. */
  evaluated?: Item[];
}

const tableKey = (item: Item): Item => ({ [TABLE.partitionKey]: item[TABLE.partitionKey], [TABLE.sortKey]: item[TABLE.sortKey] });
const pkOf = (item: Item): string => String(item[TABLE.partitionKey]);

type BatchWriteRequest = { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } };
type BatchGetRequest = { Keys?: Item[]; ConsistentRead?: boolean; ProjectionExpression?: string };

/** The one table's entry of a batch request or answer (the store sends batches to its own table only). */
const onlyTable = <T>(map: unknown): T | undefined => Object.values((map ?? {}) as Record<string, T>)[0];

/** The keys of a batch's writes that DynamoDB processed (what it hands back unprocessed costs nothing yet). */
function processedWrites(call: MeteredCall): BatchWriteRequest[] {
  const unprocessed = new Set((onlyTable<BatchWriteRequest[]>(call.output?.UnprocessedItems) ?? []).map((r) => keyOf(r.PutRequest?.Item ?? r.DeleteRequest?.Key ?? {})));
  return (onlyTable<BatchWriteRequest[]>(call.input.RequestItems) ?? []).filter((r) => !unprocessed.has(keyOf(r.PutRequest?.Item ?? r.DeleteRequest?.Key ?? {})));
}

function processedReads(call: MeteredCall): Item[] {
  const unprocessed = new Set((onlyTable<BatchGetRequest>(call.output?.UnprocessedKeys)?.Keys ?? []).map(keyOf));
  return (onlyTable<BatchGetRequest>(call.input.RequestItems)?.Keys ?? []).filter((key) => !unprocessed.has(keyOf(key)));
}

/** The items a write request touches, by key, which the meter reads before it goes. */
function writtenKeys(op: string, input: Item): Item[] {
  switch (op) {
    case 'PutItem':
      return [tableKey(input.Item as Item)];
    case 'UpdateItem':
    case 'DeleteItem':
      return [tableKey(input.Key as Item)];
    case 'BatchWriteItem':
      return (onlyTable<BatchWriteRequest[]>(input.RequestItems) ?? []).map((r) => tableKey(r.PutRequest?.Item ?? r.DeleteRequest?.Key ?? {}));
    default:
      return [];
  }
}

/** A read DynamoDB prices on more than it returns: on whole items, and on what a filter then dropped. */
const readsLessThanItEvaluates = (op: string, input: Item): boolean =>
  ['GetItem', 'BatchGetItem', 'Query'].includes(op) &&
  (input.ProjectionExpression !== undefined || input.FilterExpression !== undefined || onlyTable<BatchGetRequest>(input.RequestItems)?.ProjectionExpression !== undefined);

/** The partition a query reads: the value its key condition gives the partition key of the table or of its index. */
function queryPartition(input: Item): Partition {
  const index = TABLE.globalIndexes.find((candidate) => candidate.indexName === input.IndexName);
  const attribute = index?.partitionKey ?? TABLE.partitionKey;
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as Item;
  for (const [, name = '', placeholder = ''] of String(input.KeyConditionExpression ?? '').matchAll(/(#?\w+)\s*=\s*(:\w+)/g)) {
    if ((names[name] ?? name) === attribute) return { ...(index && { index: index.indexName }), pk: String(values[placeholder]) };
  }
  throw new Error(`no ${attribute} in the key condition ${String(input.KeyConditionExpression)}`);
}

/** One item written: its own partition's units on the larger of its two images, and each index entry it moves. */
function itemWrite(before: Item | undefined, after: Item | undefined, key: Item): Charge[] {
  const charges: Charge[] = [{ pk: pkOf(key), rcu: 0, wcu: writeUnits(Math.max(itemSize(before), itemSize(after))) }];
  for (const write of indexWrites(before, after)) charges.push({ index: write.index, pk: write.partitionKey, rcu: 0, wcu: write.units });
  return charges;
}

/** The units one request charges to each partition it touches. */
export function chargesOf(call: MeteredCall, images: Images = {}): Charge[] {
  const { op, input, output } = call;
  const before = (key: Item) => images.before?.get(keyOf(key));
  if (call.conditionFailed) {
    // Nothing is written, no index entry either, yet the item's units (at least one) are spent.
    return writtenKeys(op, input).map((key) => ({ pk: pkOf(key), rcu: 0, wcu: writeUnits(itemSize(before(key))) }));
  }
  switch (op) {
    case 'GetItem': {
      const item = images.evaluated ? images.evaluated[0] : (output?.Item as Item | undefined);
      return [{ pk: pkOf(input.Key as Item), rcu: readUnits(itemSize(item), input.ConsistentRead === true), wcu: 0 }];
    }
    case 'BatchGetItem': {
      const consistent = onlyTable<BatchGetRequest>(input.RequestItems)?.ConsistentRead === true;
      const found = new Map((images.evaluated ?? onlyTable<Item[]>(output?.Responses) ?? []).map((item) => [keyOf(item), item]));
      // Each key is read as a GetItem of its own, a missing item for the least a read costs.
      return processedReads(call).map((key) => ({ pk: pkOf(key), rcu: readUnits(itemSize(found.get(keyOf(key))), consistent), wcu: 0 }));
    }
    case 'Query': {
      const items = images.evaluated ?? ((output?.Items ?? []) as Item[]);
      const bytes = items.reduce((sum, item) => sum + itemSize(item), 0);
      return [{ ...queryPartition(input), rcu: readUnits(bytes, input.ConsistentRead === true), wcu: 0 }];
    }
    case 'PutItem': {
      const item = input.Item as Item;
      return itemWrite(before(item), item, item);
    }
    case 'UpdateItem': {
      const key = input.Key as Item;
      return itemWrite(before(key), images.after, key);
    }
    case 'DeleteItem': {
      const key = input.Key as Item;
      return itemWrite(before(key), undefined, key);
    }
    case 'BatchWriteItem':
      return processedWrites(call).flatMap((request) => {
        const item = request.PutRequest?.Item;
        const key = item ?? (request.DeleteRequest?.Key as Item);
        return itemWrite(before(key), item, key);
      });
    default:
      return [];
  }
}

/** Only the names and values the remaining expressions still use: DynamoDB refuses unused ones. */
function usedPlaceholders(input: Item, expressions: unknown[]): Item {
  const text = expressions.filter((e) => typeof e === 'string').join(' ');
  const pick = (map: unknown) => {
    const used = Object.entries((map ?? {}) as Item).filter(([token]) => new RegExp(`${token}(?!\\w)`).test(text));
    return used.length > 0 ? Object.fromEntries(used) : undefined;
  };
  return { ExpressionAttributeNames: pick(input.ExpressionAttributeNames), ExpressionAttributeValues: pick(input.ExpressionAttributeValues) };
}

/** Reads the items a request's price depends on, through the meter's own client, outside any function. */
class ImageReader {
  constructor(private readonly raw: DynamoDBDocumentClient) {}

  async before(op: string, input: Item): Promise<Map<string, Item>> {
    const keys = writtenKeys(op, input);
    if (keys.length === 0) return new Map();
    const table = this.table(op, input);
    const items = keys.length === 1 ? [await this.get(table, keys[0] as Item)] : await this.batchGet(table, keys);
    return new Map(items.filter((item): item is Item => item !== undefined).map((item) => [keyOf(item), item]));
  }

  async after(call: MeteredCall): Promise<Images> {
    const { op, input, output } = call;
    const table = this.table(op, input);
    if (op === 'UpdateItem') return { after: input.ReturnValues === 'ALL_NEW' ? (output?.Attributes as Item) : await this.get(table, input.Key as Item) };
    if (!readsLessThanItEvaluates(op, input)) return {};
    if (op === 'GetItem') return { evaluated: [await this.get(table, input.Key as Item)].filter((item): item is Item => item !== undefined) };
    if (op === 'BatchGetItem') return { evaluated: await this.batchGet(table, processedReads(call)) };
    const { ProjectionExpression: _p, FilterExpression: _f, ExpressionAttributeNames: _n, ExpressionAttributeValues: _v, ...query } = input;
    const whole = { ...query, ...usedPlaceholders(input, [input.KeyConditionExpression]) };
    return { evaluated: ((await this.raw.send(new QueryCommand(whole as ConstructorParameters<typeof QueryCommand>[0]))).Items ?? []) as Item[] };
  }

  private table(op: string, input: Item): string {
    return String(op.startsWith('Batch') ? Object.keys(input.RequestItems as Item)[0] : input.TableName);
  }

  private async get(table: string, key: Item): Promise<Item | undefined> {
    return (await this.raw.send(new GetCommand({ TableName: table, Key: tableKey(key), ConsistentRead: true }))).Item;
  }

  private async batchGet(table: string, keys: Item[]): Promise<Item[]> {
    const found: Item[] = [];
    let pending = keys.map(tableKey);
    while (pending.length > 0) {
      const out = await this.raw.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }));
      found.push(...((out.Responses?.[table] ?? []) as Item[]));
      pending = (out.UnprocessedKeys?.[table]?.Keys ?? []) as Item[];
    }
    return found;
  }
}

/** Units by second and partition; `partitionId` keeps the index apart from a table key of the same value. */
type Buckets = Map<number, Map<string, { rcu: number; wcu: number }>>;
const partitionId = (partition: Partition) => `${partition.index ?? ''}\u0000${partition.pk}`;
const partitionOf = (id: string): Partition => {
  const [index = '', pk = ''] = id.split('\u0000');
  return index ? { index, pk } : { pk };
};

/** [epoch second, partition id, read units, write units] */
type Row = [number, string, number, number];
type Message =
  | { type: 'read'; id: string; since: number; until: number }
  | { type: 'load'; id: string; thread: string; rows: Row[]; unmetered: number };

type Next = (args: { input: unknown }) => Promise<{ output: unknown }>;
interface Stack {
  add(middleware: (next: Next, context: { commandName?: string }) => Next, options: { step: 'initialize'; name: string }): void;
}

const isConditionFailure = (error: unknown) => error instanceof Error && error.name === 'ConditionalCheckFailedException';

const metered = new WeakSet<object>();

/**
 * With HOOKGATE_LOCAL_PARTITION_LOAD=1, meters what this thread's functions send through their table
 * client from now on, and answers `readPartitionLoad` as `thread`. Once process.env is final (the
 * meter's own client finds the local table where the functions' does).
 */
export function meterPartitionLoadIfEnabled(thread: string): void {
  if (process.env[PARTITION_LOAD_ENV] !== '1') return;
  const stack = documentClient().middlewareStack as unknown as Stack;
  if (metered.has(stack)) return;
  metered.add(stack);
  const raw = DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } });
  skipSigning(raw);
  const images = new ImageReader(raw);
  const buckets: Buckets = new Map();
  // Requests the meter could not price (its own read failed): a reader must know its totals are short.
  let unmetered = 0;
  const charge = (call: MeteredCall, seen: Images) => {
    const second = Math.floor(Date.now() / 1000);
    const bucket = buckets.get(second) ?? new Map<string, { rcu: number; wcu: number }>();
    buckets.set(second, bucket);
    for (const { rcu, wcu, ...partition } of chargesOf(call, seen)) {
      const units = bucket.get(partitionId(partition)) ?? { rcu: 0, wcu: 0 };
      units.rcu += rcu;
      units.wcu += wcu;
      bucket.set(partitionId(partition), units);
    }
  };
  stack.add(
    (next, context) => async (args) => {
      if (runningFunction() === undefined) return next(args);
      const op = String(context.commandName ?? '').replace(/Command$/, '');
      const input = args.input as Item;
      let before: Map<string, Item> | undefined;
      try {
        before = await asRuntime(() => images.before(op, input));
      } catch {
        unmetered++;
        return next(args);
      }
      let result: { output: unknown };
      try {
        result = await next(args);
      } catch (error) {
        if (isConditionFailure(error)) charge({ op, input, conditionFailed: true }, { before });
        throw error;
      }
      const call = { op, input, output: result.output as Item };
      try {
        charge(call, { before, ...(await asRuntime(() => images.after(call))) });
      } catch {
        unmetered++;
      }
      return result;
    },
    { step: 'initialize', name: 'localPartitionLoad' },
  );
  const channel = new BroadcastChannel(CHANNEL);
  channel.unref();
  channel.onmessage = (event) => {
    const message = (event as { data: Message }).data;
    if (message.type !== 'read') return;
    const rows: Row[] = [];
    for (const [second, bucket] of buckets) {
      if ((second + 1) * 1000 <= message.since || second * 1000 >= message.until) continue;
      for (const [id, units] of bucket) rows.push([second, id, units.rcu, units.wcu]);
    }
    channel.postMessage({ type: 'load', id: message.id, thread, rows, unmetered } satisfies Message);
  };
}

/** A partition's load over the window read, every thread's together. */
export interface PartitionLoad extends Partition {
  rcu: number;
  wcu: number;
  /** The most units it took in any one second. */
  peakRcuPerSecond: number;
  peakWcuPerSecond: number;
}

export interface LoadReading {
  partitions: PartitionLoad[];
  /** Requests the meter could not price since its thread started: the totals miss their units. */
  unmetered: number;
}

/** Every thread's rows added up per partition: totals, and the peak of each second's sum. */
export function addUp(rows: readonly Row[]): PartitionLoad[] {
  const perSecond = new Map<string, Map<number, { rcu: number; wcu: number }>>();
  for (const [second, id, rcu, wcu] of rows) {
    const seconds = perSecond.get(id) ?? new Map<number, { rcu: number; wcu: number }>();
    perSecond.set(id, seconds);
    const units = seconds.get(second) ?? { rcu: 0, wcu: 0 };
    units.rcu += rcu;
    units.wcu += wcu;
    seconds.set(second, units);
  }
  return [...perSecond].map(([id, seconds]) => {
    const each = [...seconds.values()];
    return {
      ...partitionOf(id),
      rcu: each.reduce((sum, u) => sum + u.rcu, 0),
      wcu: each.reduce((sum, u) => sum + u.wcu, 0),
      peakRcuPerSecond: Math.max(...each.map((u) => u.rcu)),
      peakWcuPerSecond: Math.max(...each.map((u) => u.wcu)),
    };
  });
}

/** The partition that took the most units of the kind over the window (its peak second is on it). */
export function hottest(partitions: readonly PartitionLoad[], units: 'rcu' | 'wcu'): PartitionLoad | undefined {
  return partitions.reduce<PartitionLoad | undefined>((top, p) => (top === undefined || p[units] > top[units] ? p : top), undefined);
}

/**
 * The load every listed thread's functions put on each partition in the seconds from `since` to
 * `until` (epoch ms; every second the window overlaps counts whole). Rejects when a thread does not
 * answer (metering is off, or the thread is gone).
 */
export async function readPartitionLoad(threads: readonly string[], window: { since?: number; until?: number } = {}, timeoutMs = 5000): Promise<LoadReading> {
  const answers = await readThreads<{ rows: Row[]; unmetered: number }>(
    CHANNEL,
    threads,
    { type: 'read', since: window.since ?? 0, until: window.until ?? Infinity },
    (data, id) => {
      const message = data as Message;
      return message.type === 'load' && message.id === id ? { thread: message.thread, answer: message } : undefined;
    },
    (missing) => `no partition load from the ${missing} thread(s): is ${PARTITION_LOAD_ENV}=1 set?`,
    timeoutMs,
  );
  return { partitions: addUp(answers.flatMap((a) => a.rows)), unmetered: answers.reduce((sum, a) => sum + a.unmetered, 0) };
}
