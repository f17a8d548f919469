import {
  DeleteItemCommand,
  PutItemCommand,
  ScanCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { TABLE } from '../lambdas/shared/resource-definitions';

type Item = Record<string, AttributeValue>;
type IndexDefinition = (typeof TABLE.globalIndexes)[number];

async function scanAll(client: DynamoDBClient, TableName: string, IndexName?: string): Promise<Item[]> {
  const items: Item[] = [];
  let ExclusiveStartKey: Item | undefined;
  do {
    const out = await client.send(new ScanCommand({ TableName, IndexName, ExclusiveStartKey }));
    items.push(...(out.Items ?? []));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/** A stable text form of an attribute map (map keys sorted, bytes as base64), to compare two of them. */
function canonical(value: unknown): string {
  if (value instanceof Uint8Array) return JSON.stringify({ $bytes: Buffer.from(value).toString('base64') });
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const tableKeyOf = (item: Item): Item => ({
  [TABLE.partitionKey]: item[TABLE.partitionKey] as AttributeValue,
  [TABLE.sortKey]: item[TABLE.sortKey] as AttributeValue,
});

const entryId = (item: Item, index: IndexDefinition) =>
  canonical([item[TABLE.partitionKey], item[TABLE.sortKey], item[index.partitionKey], item[index.sortKey]]);

/** What the index holds for `item`, or undefined when the item lacks the index's keys. */
function projection(item: Item, index: IndexDefinition): Item | undefined {
  if (!item[index.partitionKey] || !item[index.sortKey]) return undefined;
  const names = [TABLE.partitionKey, TABLE.sortKey, index.partitionKey, index.sortKey, ...index.nonKeyAttributes];
  const out: Item = {};
  for (const name of names) if (item[name] !== undefined) out[name] = item[name];
  return out;
}

/**
 * dynalite writes an item and each of its index entries as separate LevelDB writes (index entries
 * first). A gateway killed in between (SIGKILL, OOM, power loss) leaves an index that disagrees with
 * its table: an entry missing (an event drops out of its account's list), out of date, or left behind for an item that no longer has those keys.
 * DynamoDB itself never does this. Run after an unclean stop, before anything else uses the table:
 * every index is made to match the table again through ordinary writes. Returns how many index
 * entries were repaired.
 */
export async function repairIndexes(client: DynamoDBClient, tableName: string): Promise<number> {
  const items = await scanAll(client, tableName);
  const byTableKey = new Map(items.map((item) => [canonical(tableKeyOf(item)), item]));
  const reput = new Map<string, Item>();
  const leftovers: Array<{ entry: Item; index: IndexDefinition }> = [];

  for (const index of TABLE.globalIndexes) {
    const actual = new Map((await scanAll(client, tableName, index.indexName)).map((entry) => [entryId(entry, index), entry]));
    for (const item of items) {
      const expected = projection(item, index);
      if (!expected) continue;
      const found = actual.get(entryId(item, index));
      if (!found || canonical(found) !== canonical(expected)) reput.set(canonical(tableKeyOf(item)), item);
    }
    for (const [id, entry] of actual) {
      const owner = byTableKey.get(canonical(tableKeyOf(entry)));
      if (!owner || !projection(owner, index) || entryId(owner, index) !== id) leftovers.push({ entry, index });
    }
  }

  // An entry without its item: write an item that owns exactly that entry, then remove it again
  // (dynalite deletes the index entries of the item it deletes); a live item is put back afterwards.
  for (const { entry, index } of leftovers) {
    const owner = byTableKey.get(canonical(tableKeyOf(entry)));
    if (owner) {
      await client.send(
        new PutItemCommand({
          TableName: tableName,
          Item: { ...owner, [index.partitionKey]: entry[index.partitionKey] as AttributeValue, [index.sortKey]: entry[index.sortKey] as AttributeValue },
        }),
      );
      reput.set(canonical(tableKeyOf(owner)), owner);
    } else {
      await client.send(new PutItemCommand({ TableName: tableName, Item: entry }));
      await client.send(new DeleteItemCommand({ TableName: tableName, Key: tableKeyOf(entry) }));
    }
  }
  // Writing an item again writes its index entries again.
  for (const item of reput.values()) await client.send(new PutItemCommand({ TableName: tableName, Item: item }));
  return leftovers.length + reput.size;
}
