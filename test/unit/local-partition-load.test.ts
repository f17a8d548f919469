import { describe, expect, it } from 'vitest';
import { itemCategory, partitionCategory } from '../../local/ddb-units';
import { addUp, chargesOf, hottest, readPartitionLoad, type Charge, type Images, type MeteredCall } from '../../local/partition-load';

type Item = Record<string, unknown>;

const EVENT_PK = 'ACCT#a#EVT#e1';
const LIST_SHARD = 'ACCT#a#EVENTS#inbound#1';
/** An event's status item: in the list index (gsi1), which projects its ids but not its status. */
const status = (extra: Item = {}): Item => ({ pk: EVENT_PK, sk: 'EVENT', entity: 'event', id: 'e1', gsi1pk: LIST_SHARD, gsi1sk: 'e1', status: 'queued', ...extra });
/** An export job, in the work index (gsi2, keys only) under the partition of its state. */
const job = (state: string): Item => ({ pk: 'ACCT#a', sk: 'EXPORT#x1', entity: 'export', gsi2pk: `EXPORTS#${state}`, gsi2sk: '2026-01-01#x1' });
const pad = (bytes: number) => 'x'.repeat(bytes);
const key = (item: Item) => ({ pk: item.pk, sk: item.sk });
const stored = (...items: Item[]): Images['before'] => new Map(items.map((item) => [`${String(item.pk)}\u0000${String(item.sk)}`, item]));

/** Units by partition (`table <pk>` or `<index> <pk>`), as [read, write]. */
function byPartition(charges: Charge[]): Record<string, [number, number]> {
  const sums: Record<string, [number, number]> = {};
  for (const charge of charges) {
    const id = `${charge.index ?? 'table'} ${charge.pk}`;
    const [rcu, wcu] = sums[id] ?? [0, 0];
    sums[id] = [rcu + charge.rcu, wcu + charge.wcu];
  }
  return sums;
}

describe('the units a request charges to each partition', () => {
  it.each<[string, MeteredCall, Images, Record<string, [number, number]>]>([
    ['a put of a new item with index keys: its partition and its list index shard', { op: 'PutItem', input: { Item: status() }, output: {} }, {}, { [`table ${EVENT_PK}`]: [0, 1], [`gsi1 ${LIST_SHARD}`]: [0, 1] }],
    [
      'a put replacing a larger item: priced on the larger, the unchanged index entry not written',
      { op: 'PutItem', input: { Item: status() }, output: {} },
      { before: stored(status({ note: pad(1500) })) },
      { [`table ${EVENT_PK}`]: [0, 2] },
    ],
    [
      'an update of an attribute the index does not project: the table only',
      { op: 'UpdateItem', input: { Key: key(status()) }, output: {} },
      { before: stored(status()), after: status({ status: 'delivered' }) },
      { [`table ${EVENT_PK}`]: [0, 1] },
    ],
    [
      'an update that moves an index entry: a delete on the old index partition, a put on the new',
      { op: 'UpdateItem', input: { Key: key(job('queued')) }, output: {} },
      { before: stored(job('queued')), after: job('processing') },
      { 'table ACCT#a': [0, 1], 'gsi2 EXPORTS#queued': [0, 1], 'gsi2 EXPORTS#processing': [0, 1] },
    ],
    [
      'a delete: the item and its index entry, on the entry’s partition',
      { op: 'DeleteItem', input: { Key: key(status()) }, output: {} },
      { before: stored(status()) },
      { [`table ${EVENT_PK}`]: [0, 1], [`gsi1 ${LIST_SHARD}`]: [0, 1] },
    ],
    ['a delete of no item: one unit all the same', { op: 'DeleteItem', input: { Key: key(status()) }, output: {} }, {}, { [`table ${EVENT_PK}`]: [0, 1] }],
    [
      'a put whose condition failed: the existing item’s units, no index write',
      { op: 'PutItem', input: { Item: status() }, conditionFailed: true },
      { before: stored(status({ note: pad(2500) })) },
      { [`table ${EVENT_PK}`]: [0, 3] },
    ],
    ['an update whose condition failed on no item: one unit', { op: 'UpdateItem', input: { Key: { pk: 'ACCT#a#LEASES#d#0', sk: 'LEASES' } }, conditionFailed: true }, {}, { 'table ACCT#a#LEASES#d#0': [0, 1] }],
    ['a consistent read of no item: one unit', { op: 'GetItem', input: { Key: key(status()), ConsistentRead: true }, output: {} }, {}, { [`table ${EVENT_PK}`]: [1, 0] }],
    [
      'an eventually consistent read of a 6 KB item: half of two units',
      { op: 'GetItem', input: { Key: key(status()) }, output: { Item: status({ note: pad(6000) }) } },
      {},
      { [`table ${EVENT_PK}`]: [1, 0] },
    ],
    [
      'a projected read: priced on the whole item',
      { op: 'GetItem', input: { Key: key(status()), ProjectionExpression: 'id', ConsistentRead: true }, output: { Item: { id: 'e1' } } },
      { evaluated: [status({ note: pad(5000) })] },
      { [`table ${EVENT_PK}`]: [2, 0] },
    ],
    [
      'a query of the table: its key condition’s partition, over the items’ summed size',
      {
        op: 'Query',
        input: { KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to', ExpressionAttributeValues: { ':pk': 'ACCT#a', ':from': 'ACCOUNT', ':to': 'ACCOUNT#\uffff' }, ConsistentRead: true },
        output: { Items: [{ pk: 'ACCT#a', sk: 'ACCOUNT', note: pad(3000) }, { pk: 'ACCT#a', sk: 'ACCOUNT#DEST#d', note: pad(3000) }] },
      },
      {},
      { 'table ACCT#a': [2, 0] },
    ],
    [
      'a query of an index: the index’s partition, eventually consistent',
      { op: 'Query', input: { IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :low AND :high', ExpressionAttributeValues: { ':pk': LIST_SHARD, ':low': 'a', ':high': 'z' } }, output: { Items: [] } },
      {},
      { [`gsi1 ${LIST_SHARD}`]: [0.5, 0] },
    ],
    [
      'a query naming its key through a placeholder',
      { op: 'Query', input: { IndexName: 'gsi2', KeyConditionExpression: '#k = :v', ExpressionAttributeNames: { '#k': 'gsi2pk' }, ExpressionAttributeValues: { ':v': 'ACCOUNTS' } }, output: { Items: [] } },
      {},
      { 'gsi2 ACCOUNTS': [0.5, 0] },
    ],
    [
      'a filtered query: priced on what it evaluated, not on what the filter left',
      {
        op: 'Query',
        input: { KeyConditionExpression: 'pk = :pk AND begins_with(sk, :att)', FilterExpression: 'n = :n', ExpressionAttributeValues: { ':pk': EVENT_PK, ':att': 'ATT#', ':n': 2 }, ConsistentRead: true },
        output: { Items: [] },
      },
      { evaluated: [{ pk: EVENT_PK, sk: 'ATT#1', note: pad(3000) }, { pk: EVENT_PK, sk: 'ATT#2', note: pad(3000) }] },
      { [`table ${EVENT_PK}`]: [2, 0] },
    ],
    [
      'a batch get: each key as a read of its own, a missing one the least, an unprocessed one nothing yet',
      {
        op: 'BatchGetItem',
        input: { RequestItems: { t: { Keys: [{ pk: 'P1', sk: 'A' }, { pk: 'P1', sk: 'B' }, { pk: 'P2', sk: 'C' }, { pk: 'P3', sk: 'D' }] } } },
        output: { Responses: { t: [{ pk: 'P1', sk: 'A' }, { pk: 'P1', sk: 'B', note: pad(5000) }] }, UnprocessedKeys: { t: { Keys: [{ pk: 'P3', sk: 'D' }] } } },
      },
      {},
      { 'table P1': [1.5, 0], 'table P2': [0.5, 0] },
    ],
    [
      'a batch write: each processed put and delete on its own partition and index entries',
      {
        op: 'BatchWriteItem',
        input: { RequestItems: { t: [{ PutRequest: { Item: status() } }, { DeleteRequest: { Key: key(job('queued')) } }, { PutRequest: { Item: { pk: 'P9', sk: 'X' } } }] } },
        output: { UnprocessedItems: { t: [{ PutRequest: { Item: { pk: 'P9', sk: 'X' } } }] } },
      },
      { before: stored(job('queued')) },
      { [`table ${EVENT_PK}`]: [0, 1], [`gsi1 ${LIST_SHARD}`]: [0, 1], 'table ACCT#a': [0, 1], 'gsi2 EXPORTS#queued': [0, 1] },
    ],
  ])('%s', (_label, call, images, expected) => {
    expect(byPartition(chargesOf(call, images))).toEqual(expected);
  });

  it('refuses a query whose key condition names no partition key, rather than charge a wrong one', () => {
    expect(() => chargesOf({ op: 'Query', input: { KeyConditionExpression: 'sk = :sk', ExpressionAttributeValues: { ':sk': 'x' } }, output: {} })).toThrow(
      'no pk in the key condition sk = :sk',
    );
  });
});

describe('adding up the threads', () => {
  it('sums each second over threads before it takes the peak, and finds the hottest partition by its total', () => {
    const loads = addUp([
      [100, '\u0000ACCT#a', 3, 0],
      [100, '\u0000ACCT#a', 2, 0],
      [101, '\u0000ACCT#a', 4, 0],
      [100, 'gsi1\u0000ACCT#a#EVENTS#inbound#0', 0, 2],
      [101, '\u0000ACCT#a#HELD#d', 0.5, 6],
    ]);
    expect(loads).toEqual(
      expect.arrayContaining([
        { pk: 'ACCT#a', rcu: 9, wcu: 0, peakRcuPerSecond: 5, peakWcuPerSecond: 0 },
        { index: 'gsi1', pk: 'ACCT#a#EVENTS#inbound#0', rcu: 0, wcu: 2, peakRcuPerSecond: 0, peakWcuPerSecond: 2 },
      ]),
    );
    expect(hottest(loads, 'rcu')?.pk).toBe('ACCT#a');
    expect(hottest(loads, 'wcu')?.pk).toBe('ACCT#a#HELD#d');
    expect(hottest([], 'wcu')).toBeUndefined();
  });

  it('says which thread did not answer, and how metering is turned on', async () => {
    await expect(readPartitionLoad(['deliver'], {}, 50)).rejects.toThrow('no partition load from the deliver thread(s): is HOOKGATE_LOCAL_PARTITION_LOAD=1 set?');
  });
});

describe('what a partition is', () => {
  it.each<[string | undefined, string, string]>([
    [undefined, 'ACCT#a', 'account partition (routing)'],
    [undefined, 'ACCT#a#EVT#e1', 'event partition'],
    [undefined, 'ACCT#a#HELD#d#5', 'held deliveries of a destination (a shard)'],
    [undefined, 'ACCT#a#HELD#d', 'held chain mark of a destination'],
    [undefined, 'ACCT#a#LEASES#d#3', 'lease map of a destination (its cap)'],
    [undefined, 'ACCT#a#SHARE#0', "lease map of an account's share"],
    [undefined, 'ACCT#a#LINE#d#cus_42', 'ordering line of a destination and key'],
    [undefined, 'SOURCETOKEN#t', 'source lookup'],
    ['gsi1', 'ACCT#a#EVENTS#inbound#2', 'list index shard (gsi1)'],
    ['gsi2', 'ACCOUNTS', 'work index: accounts (gsi2)'],
    ['gsi2', 'EXPORTS#queued', 'work index: exports (gsi2)'],
  ])('%s %s: %s', (index, pk, category) => {
    expect(partitionCategory(index, pk)).toBe(category);
  });
});

describe('what an item is', () => {
  it.each<[string, string, string]>([
    ['ACCT#a', 'ACCOUNT', 'routing (account/dest/route)'],
    ['ACCT#a', 'ACCOUNT#DEST#d', 'routing (account/dest/route)'],
    ['ACCT#a', 'ACCOUNT#ROUTE#r', 'routing (account/dest/route)'],
    ['ACCT#a', 'ACCOUNT#HEALTH#d', 'breaker'],
    ['ACCT#a', 'APIKEY#k', 'api key'],
    ['ACCT#a#EVT#e1', 'EVENT', 'event status'],
  ])('%s %s: %s', (pk, sk, category) => {
    expect(itemCategory({ pk, sk })).toBe(category);
  });
});
