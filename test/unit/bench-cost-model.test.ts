import { describe, expect, it } from 'vitest';
import { costReport, type MeterSnapshot } from '../../bench/lib/cost-model';
import { batchGetUnits, storedBytes, type AwsCall } from '../../bench/lib/meter';
import { itemSize } from '../../local/ddb-units';

type Item = Record<string, unknown>;

const TABLE = 'hookgate';
const LIST_SHARD = 'ACCT#a#EVENTS#inbound#1';
/** An event's status item: in the list index (gsi1), which projects its ids but not its status. */
const status = (id: string, extra: Item = {}): Item => ({ pk: `ACCT#a#EVT#${id}`, sk: 'EVENT', entity: 'event', id, gsi1pk: LIST_SHARD, gsi1sk: id, status: 'queued', ...extra });
const key = (item: Item) => ({ pk: item.pk, sk: item.sk });
const batchGet = (keys: Item[], consistent: boolean) => ({ RequestItems: { [TABLE]: { Keys: keys, ConsistentRead: consistent } } });

describe('the read units of a BatchGetItem', () => {
  it.each<[string, Item, Item, Record<string, { rru: number; wru: number }>]>([
    [
      'a consistent read: each item found, and each key that found none at 1 RRU',
      batchGet([key(status('e1')), key(status('e2')), key(status('e3'))], true),
      { Responses: { [TABLE]: [status('e1')] } },
      { 'event status': { rru: 1, wru: 0 }, 'event status (not found)': { rru: 2, wru: 0 } },
    ],
    [
      'an eventually consistent read: half of that',
      batchGet([key(status('e1')), key(status('e2'))], false),
      { Responses: { [TABLE]: [status('e1')] } },
      { 'event status': { rru: 0.5, wru: 0 }, 'event status (not found)': { rru: 0.5, wru: 0 } },
    ],
    [
      'an item over 4 KB found: by its size; a key left unprocessed: nothing yet',
      batchGet([key(status('e1')), key(status('e2'))], true),
      { Responses: { [TABLE]: [status('e1', { note: 'x'.repeat(5000) })] }, UnprocessedKeys: { [TABLE]: { Keys: [key(status('e2'))] } } },
      { 'event status': { rru: 2, wru: 0 } },
    ],
    ['nothing found at all', batchGet([key(status('e1'))], true), { Responses: { [TABLE]: [] } }, { 'event status (not found)': { rru: 1, wru: 0 } }],
  ])('%s', (_name, input, output, expected) => {
    expect(batchGetUnits(input, output)).toEqual(expected);
  });
});

describe('the bytes an item keeps stored', () => {
  it('counts the item and each index entry it projects, each with 100 bytes of overhead', () => {
    const item = status('e1', { body: 'x'.repeat(2000) });
    const listEntry = { pk: item.pk, sk: item.sk, gsi1pk: LIST_SHARD, gsi1sk: 'e1', entity: 'event', id: 'e1' };

    expect(storedBytes(item)).toEqual({ table: itemSize(item) + 100, indexes: itemSize(listEntry) + 100 });
  });

  it('keeps nothing in an index for an item without its keys, and nothing for no item', () => {
    const body: Item = { pk: 'ACCT#a#EVT#e1', sk: 'BODY', body: 'x'.repeat(2000) };

    expect(storedBytes(body)).toEqual({ table: itemSize(body) + 100, indexes: 0 });
    expect(storedBytes(undefined)).toEqual({ table: 0, indexes: 0 });
  });
});

describe('the cost report', () => {
  const webhooks = 1000;
  /** One write unit per webhook, and 2 KB in the table and 1 KB in the indexes left by each. */
  const snapshot: MeterSnapshot = {
    invocations: [],
    calls: [
      {
        fn: 'deliver',
        service: 'dynamodb',
        op: 'PutItem',
        rru: 0,
        wru: webhooks,
        byCategory: { 'event status': { rru: 0, wru: webhooks } },
        sqsRequests: 0,
        s3Put: 0,
        s3Get: 0,
        dynaliteUnits: webhooks,
        failed: false,
      } satisfies AwsCall,
    ],
    logs: new Map(),
    stored: { table: webhooks * 2048, indexes: webhooks * 1024 },
  };
  const report = costReport(snapshot, webhooks, {});
  const usd = (item: string) => report.lines.find((l) => l.item === item)?.usd_per_million;

  it('bills 30 days of storage for the table and its indexes, and of continuous backups for the table', () => {
    // Per million webhooks: 2 KB and 1 KB each, kept a month, at $0.25 per GB-month; PITR $0.20 on the table's.
    expect(usd('storage, table (30 days)')).toBeCloseTo(0.4768, 4);
    expect(usd('storage, indexes (30 days)')).toBeCloseTo(0.2384, 4);
    expect(usd('point-in-time recovery (30 days)')).toBeCloseTo(0.3815, 4);
    expect(report.stored_bytes_per_webhook).toEqual({ table: 2048, indexes: 1024 });
    expect(report.lines.find((l) => l.item === 'storage, table (30 days)')?.quantity).toBe(2048);
    expect(report.by_service.DynamoDB).toBeCloseTo(0.625 + 0.4768 + 0.2384 + 0.3815, 3);
  });

  it('prices the write units on provisioned capacity at 70% and at 40% utilisation, the storage as on-demand', () => {
    // A million writes: $0.625 on-demand; $0.00065 a WCU-hour for one second each is $0.1806, over the utilisation.
    expect(report.per_million_usd - report.per_million_provisioned_usd).toBeCloseTo(0.625 - 0.1806 / 0.7, 3);
    expect(report.per_million_usd - report.per_million_provisioned_swinging_usd).toBeCloseTo(0.625 - 0.1806 / 0.4, 3);
  });

  it('charges no storage when the snapshot carries none', () => {
    const { stored: _, ...withoutStorage } = snapshot;

    expect(costReport(withoutStorage, webhooks, {}).by_service.DynamoDB).toBeCloseTo(0.625, 4);
  });
});
