import { randomBytes } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { CopyObjectCommand, DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { uuidv7 } from '../../lambdas/domain/ids';
import { sweepClock } from '../../lambdas/handlers/sweeper';
import { cutoffBound, DAY_MS, isSweepable, KEEP_AHEAD_DAYS, KEEP_FOR_DAYS, keptExpiresAt, keptPayloadClass, liveItemExpiresAt, PAYLOAD_EXPIRY_RULES, retimedExpiresAt, sideItemExpiresAt } from '../../lambdas/domain/retention';
import { sweepRetention } from '../../lambdas/pipeline/retention';
import { resetConfigForTests } from '../../lambdas/shared/config';
import { listShard } from '../../lambdas/events/record';
import { SWEEPER_CHECKPOINT_KEY } from '../../lambdas/store/retention';
import { batchDelete } from '../../lambdas/store/table';
import { UNIT_ENV } from '../fixtures/apigw';
import { EVENT_STATUSES } from '../../lambdas/domain/vocabulary';
import { deliveryState, eventRecord } from '../fixtures/records';

const ddb = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);
const sqs = mockClient(SQSClient);
const TABLE = UNIT_ENV.TABLE_NAME;
const NOW = new Date('2026-03-10T12:00:00.000Z');
const oldId = (daysAgo: number) => uuidv7(NOW.getTime() - daysAgo * DAY_MS, randomBytes(10));

beforeAll(() => {
  Object.assign(process.env, UNIT_ENV, { HOOKGATE_LOG_LEVEL: 'error' });
  resetConfigForTests();
});
beforeEach(() => {
  ddb.reset();
  s3.reset();
  sqs.reset();
});
afterEach(() => vi.restoreAllMocks());

describe('retention rules', () => {
  it('the cutoff bound splits ids exactly at the cutoff millisecond', () => {
    const bound = cutoffBound(NOW, 1);
    const cutoff = NOW.getTime() - DAY_MS;
    expect(bound).toBe(uuidv7(cutoff, new Uint8Array(10)));
    expect(bound).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7000-8000-000000000000$/);
    // One millisecond older, whatever its random bits: below. The cutoff millisecond itself: not below.
    expect(uuidv7(cutoff - 1, new Uint8Array(10).fill(0xff)) < bound).toBe(true);
    expect(uuidv7(cutoff - 5 * DAY_MS, randomBytes(10)) < bound).toBe(true);
    expect(uuidv7(cutoff, new Uint8Array(10)) < bound).toBe(false);
    expect(uuidv7(cutoff, randomBytes(10)) < bound).toBe(false);
    expect(uuidv7(cutoff + 1, new Uint8Array(10)) < bound).toBe(false);
    // A longer window moves the bound back in time.
    expect(cutoffBound(NOW, 30) < bound).toBe(true);
  });

  it('sweeps settled statuses only', () => {
    const swept = EVENT_STATUSES.filter(isSweepable);
    expect(swept.sort()).toEqual(['accepted', 'dead_letter', 'delivered', 'replayed']);
    for (const status of ['received', 'queued', 'delivering', 'retry_scheduled'] as const) expect(isSweepable(status)).toBe(false);
  });

  const nowS = NOW.getTime() / 1000;
  const dayS = 86_400;
  it.each<[string, number | undefined, number | undefined]>([
    ['no TTL (a held item): never expires, nothing to keep', undefined, undefined],
    ['due well after the keep horizon: no write', nowS + 5 * dayS, undefined],
    ['due exactly at the horizon: no write yet', nowS + KEEP_AHEAD_DAYS * dayS, undefined],
    ['due just inside the horizon: pushed out from the sweep', nowS + KEEP_AHEAD_DAYS * dayS - 1, nowS + KEEP_FOR_DAYS * dayS],
    ['already due (TTL may not have taken it yet): pushed out', nowS - dayS, nowS + KEEP_FOR_DAYS * dayS],
  ])('a waiting event’s item: %s', (_, expiresAt, kept) => {
    expect(keptExpiresAt(expiresAt, NOW)).toBe(kept);
  });

  it('a kept item is next due only after another sweep has had days to keep it again', () => {
    const kept = keptExpiresAt(nowS, NOW) as number;
    expect(keptExpiresAt(kept, NOW)).toBeUndefined();
    const nextKeep = new Date((kept - KEEP_AHEAD_DAYS * dayS + 1) * 1000);
    expect(nextKeep.getTime() - NOW.getTime()).toBeGreaterThanOrEqual(3 * DAY_MS);
    expect(keptExpiresAt(kept, nextKeep)).toBeGreaterThan(kept);
  });

  it.each<[string, string, number]>([
    ['a young event: its receipt’s TTL, as ever', new Date(NOW.getTime() - 60_000).toISOString(), sideItemExpiresAt(new Date(NOW.getTime() - 60_000).toISOString(), 1)],
    ['an event past its window and margin: never a TTL already due', new Date(NOW.getTime() - 30 * DAY_MS).toISOString(), nowS + KEEP_FOR_DAYS * dayS],
  ])('a rewritten delivery item or tally: %s', (_, receivedAt, expected) => {
    expect(liveItemExpiresAt(receivedAt, 1, NOW)).toBe(Math.max(expected, nowS + KEEP_FOR_DAYS * dayS));
    expect(liveItemExpiresAt(receivedAt, 1, NOW)).toBeGreaterThanOrEqual(nowS + KEEP_FOR_DAYS * dayS);
  });

  it.each<[string, Parameters<typeof keptPayloadClass>[0], number]>([
    ['a free account’s object (r1) moves to r7', 1, 7],
    ['one in r7 already moves to r30 (a copy needs another key)', 7, 30],
    ['and back from r30 to r7', 30, 7],
    ['a long window’s class to r7', 365, 7],
    ['a key of the older layout (no class) to r7', undefined, 7],
  ])('a kept body’s object: %s, and outlives the kept TTL', (_, current, next) => {
    expect(keptPayloadClass(current)).toBe(next);
    const rule = PAYLOAD_EXPIRY_RULES.find((r) => r.prefix === `payloads/r${next}/`);
    expect(rule!.expirationDays).toBeGreaterThan(KEEP_FOR_DAYS);
  });

  it.each<[string, number, boolean, number]>([
    ['a settled event takes the new window’s TTL, even one due', nowS - dayS, false, nowS - dayS],
    ['a waiting event never gets one due before its next keep', nowS - dayS, true, nowS + KEEP_FOR_DAYS * dayS],
    ['a waiting event takes a later one as it is', nowS + 20 * dayS, true, nowS + 20 * dayS],
  ])('a window that changed: %s', (_, target, waiting, expected) => {
    expect(retimedExpiresAt(target, waiting, NOW)).toBe(expected);
  });

  it('takes "now" from the scheduled event, else the wall clock', () => {
    expect(sweepClock({ time: '2026-01-02T03:04:05Z' }).toISOString()).toBe('2026-01-02T03:04:05.000Z');
    const fallback = new Date('2030-01-01T00:00:00Z');
    expect(sweepClock({ time: 'not a time' }, () => fallback)).toBe(fallback);
    expect(sweepClock({}, () => fallback)).toBe(fallback);
    expect(sweepClock(undefined, () => fallback)).toBe(fallback);
  });
});

/** Answers the sweeper's reads from plain data: accounts, the checkpoint, list pages, event partitions. */
function fakeTable(data: {
  accounts: string[];
  checkpoint?: Record<string, unknown>;
  lists?: Record<string, Array<{ id: string }>>;
  partitions?: Record<string, Array<Record<string, unknown>>>;
  onQuery?: (input: Record<string, unknown>) => void;
  /** The accounts' window now and the one their TTLs were written for; 1 and 1 unless given. */
  retention?: { retention_days: number; ttl_retention_days: number };
}) {
  ddb.on(GetCommand).callsFake((input: { Key: { pk: string; sk: string } }) => {
    if (input.Key.pk === 'SWEEPER') return { Item: data.checkpoint };
    // The account items only: no destination, breaker or other item of an account is stored here.
    if (input.Key.sk !== 'ACCOUNT') return {};
    const id = input.Key.pk.replace(/^ACCT#/, '');
    return data.accounts.includes(id) ? { Item: { id, ...(data.retention ?? { retention_days: 1, ttl_retention_days: 1 }) } } : {};
  });
  ddb.on(QueryCommand).callsFake((input: Record<string, unknown> & { ExpressionAttributeValues: Record<string, string> }) => {
    data.onQuery?.(input);
    const values = input.ExpressionAttributeValues;
    if (input.IndexName === 'gsi2') {
      const after = values[':after'];
      return { Items: data.accounts.filter((id) => after === undefined || id > after).map((id) => ({ gsi2pk: 'ACCOUNTS', gsi2sk: id })) };
    }
    if (input.IndexName === 'gsi1') {
      // The list index as DynamoDB answers it: one shard (`<list>#<shard>`), ids between the bounds.
      const [, list, shard] = /^(.*)#(\d+)$/.exec(values[':pk'] ?? '') ?? [];
      const start = (input.ExclusiveStartKey as { gsi1sk?: string } | undefined)?.gsi1sk;
      const limit = input.Limit as number;
      const all = (data.lists?.[list ?? ''] ?? [])
        .filter((e) => listShard(e.id) === Number(shard) && e.id >= (values[':low'] ?? '') && e.id <= (values[':high'] ?? ''))
        .filter((e) => start === undefined || e.id > start);
      const page = all.slice(0, limit);
      const more = all.length > limit;
      return { Items: page, LastEvaluatedKey: more ? { gsi1pk: values[':pk'], gsi1sk: page.at(-1)?.id } : undefined };
    }
    return { Items: data.partitions?.[values[':pk'] ?? ''] ?? [] };
  });
  ddb.on(BatchWriteCommand).resolves({});
  ddb.on(DeleteCommand).resolves({ Attributes: { pk: 'x' } });
  ddb.on(PutCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
}

const checkpointPuts = () =>
  ddb
    .commandCalls(PutCommand)
    .map((call) => call.args[0].input.Item as Record<string, unknown>)
    .filter((item) => item.pk === SWEEPER_CHECKPOINT_KEY.pk);
const checkpointDeletes = () =>
  ddb.commandCalls(DeleteCommand).filter((call) => (call.args[0].input.Key as { pk: string }).pk === SWEEPER_CHECKPOINT_KEY.pk);

describe('bounded runs and resumption', () => {
  it('a run out of time stops between accounts and writes a checkpoint; the next run resumes after it', async () => {
    let wallClock = 0;
    fakeTable({
      accounts: ['acct-a', 'acct-b', 'acct-c'],
      // Account a's last query takes the run past its deadline.
      onQuery: (input) => {
        if ((input.ExpressionAttributeValues as Record<string, string>)[':pk']?.startsWith('ACCT#acct-a#EVENTS#outbound')) wallClock = 1000;
      },
    });
    const first = await sweepRetention({ now: NOW, deadline: 500, clock: () => wallClock, ttlLagSeconds: 0 });
    expect(first).toMatchObject({ accounts: 1, complete: false });
    expect(checkpointPuts()).toEqual([
      expect.objectContaining({ pk: 'SWEEPER', sk: 'CHECKPOINT', last_account_id: 'acct-a', cursor: null, updated_at: expect.any(String) }),
    ]);
    expect(checkpointDeletes()).toHaveLength(0);

    const saved = checkpointPuts()[0];
    ddb.reset();
    fakeTable({ accounts: ['acct-a', 'acct-b', 'acct-c'], checkpoint: saved });
    const second = await sweepRetention({ now: NOW, deadline: Number.POSITIVE_INFINITY, ttlLagSeconds: 0 });
    expect(second).toMatchObject({ accounts: 2, complete: true });
    const accountQuery = ddb.commandCalls(QueryCommand).find((call) => call.args[0].input.IndexName === 'gsi2');
    expect(accountQuery?.args[0].input.KeyConditionExpression).toBe('gsi2pk = :pk AND gsi2sk > :after');
    expect(accountQuery?.args[0].input.ExpressionAttributeValues).toEqual({ ':pk': 'ACCOUNTS', ':after': 'acct-a' });
    const accountsRead = ddb
      .commandCalls(GetCommand)
      .map((call) => (call.args[0].input.Key as { pk: string }).pk)
      .filter((pk) => pk.startsWith('ACCT#'));
    expect(accountsRead).toEqual(['ACCT#acct-b', 'ACCT#acct-c']);
    // A finished pass clears the checkpoint, so the next one starts at the first account.
    expect(checkpointDeletes()).toHaveLength(1);
    expect(checkpointPuts()).toHaveLength(0);
  });

  it('a run whose deadline has already passed does nothing but keep its place', async () => {
    fakeTable({ accounts: ['acct-a'], checkpoint: { last_account_id: null, cursor: null, updated_at: 'x' } });
    const report = await sweepRetention({ now: NOW, deadline: Date.now() - 1, ttlLagSeconds: 0 });
    expect(report).toMatchObject({ accounts: 0, deleted_events: 0, complete: false });
    expect(checkpointPuts()).toEqual([expect.objectContaining({ last_account_id: null, cursor: null })]);
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(0);
  });

  it('stopping inside an account records the event it reached; the next run continues after that event', async () => {
    const [e1, e2, e3] = [oldId(5), oldId(4), oldId(3)].sort() as [string, string, string];
    const list = { 'ACCT#acct-a#EVENTS#inbound': [e1, e2, e3].map((id) => ({ id })) };
    const partitions = Object.fromEntries(
      [e1, e2, e3].map((id) => [`ACCT#acct-a#EVT#${id}`, [{ pk: `ACCT#acct-a#EVT#${id}`, sk: 'EVENT', status: 'delivered' }, { pk: `ACCT#acct-a#EVT#${id}`, sk: 'BODY' }]]),
    );
    let wallClock = 0;
    fakeTable({ accounts: ['acct-a'], lists: list, partitions });
    // The first event's delete uses up the time.
    ddb.on(BatchWriteCommand).callsFake(() => {
      wallClock = 1000;
      return {};
    });
    const first = await sweepRetention({ now: NOW, deadline: 500, clock: () => wallClock, pageSize: 2, ttlLagSeconds: 0 });
    expect(first).toMatchObject({ accounts: 1, deleted_events: 1, complete: false });
    const [saved] = checkpointPuts();
    expect(saved).toMatchObject({
      last_account_id: null,
      cursor: { account_id: 'acct-a', phase: 'delete', direction: 'inbound', after: e1, retention_days: 1 },
    });

    ddb.reset();
    // The fake list still holds e1: only the cursor keeps the second run from visiting it again.
    fakeTable({ accounts: ['acct-a'], checkpoint: saved, lists: list, partitions });
    const second = await sweepRetention({ now: NOW, deadline: Number.POSITIVE_INFINITY, pageSize: 2, ttlLagSeconds: 0 });
    expect(second).toMatchObject({ accounts: 1, deleted_events: 2, complete: true });
    // Every shard is read from the cursor on, and only below the cutoff: old entries only.
    const listQueries = ddb.commandCalls(QueryCommand).filter((call) => call.args[0].input.IndexName === 'gsi1');
    expect(listQueries[0]?.args[0].input.KeyConditionExpression).toBe('gsi1pk = :pk AND gsi1sk BETWEEN :low AND :high');
    expect(listQueries[0]?.args[0].input.ExpressionAttributeValues).toMatchObject({ ':low': e1, ':high': cutoffBound(NOW, 1) });
    expect(listQueries[0]?.args[0].input.ScanIndexForward).toBe(true);
    const deletedStatus = ddb
      .commandCalls(DeleteCommand)
      .map((call) => (call.args[0].input.Key as { pk: string; sk: string }))
      .filter((key) => key.sk === 'EVENT')
      .map((key) => key.pk);
    expect(deletedStatus).toEqual([`ACCT#acct-a#EVT#${e2}`, `ACCT#acct-a#EVT#${e3}`]);
  });
});

describe('deleting one event', () => {
  it('removes the body item, then the payload object it points at, then de-duplication item and attempts, the status item last', async () => {
    const id = oldId(3);
    const pk = `ACCT#acct-a#EVT#${id}`;
    fakeTable({
      accounts: ['acct-a'],
      lists: { 'ACCT#acct-a#EVENTS#inbound': [{ id }] },
      partitions: {
        [pk]: [
          { pk, sk: 'ATT#1', attempted_at: 'x' },
          { pk, sk: 'ATT#2', attempted_at: 'x' },
          { pk, sk: 'BODY', body_ref: `payloads/r1/acct-a/${id}` },
          { pk, sk: 'EVENT', status: 'delivered', dedupe_key: 'abc' },
        ],
      },
    });
    const order: string[] = [];
    s3.on(DeleteObjectCommand).callsFake((input: { Key: string }) => {
      order.push(`s3:${input.Key}`);
      return {};
    });
    ddb.on(BatchWriteCommand).callsFake((input: { RequestItems: Record<string, Array<{ DeleteRequest: { Key: { sk: string } } }>> }) => {
      order.push(`batch:${(input.RequestItems[TABLE] ?? []).map((r) => r.DeleteRequest.Key.sk).join(',')}`);
      return {};
    });
    ddb.on(DeleteCommand).callsFake((input: { Key: { pk: string; sk: string }; ConditionExpression?: string }) => {
      order.push(`delete:${input.Key.sk}:${input.ConditionExpression ?? ''}`);
      return { Attributes: { pk: input.Key.pk } };
    });
    const report = await sweepRetention({ now: NOW, deadline: Number.POSITIVE_INFINITY, ttlLagSeconds: 0 });
    expect(report).toMatchObject({ deleted_events: 1, deleted_attempts: 2, deleted_payloads: 1, skipped_unsettled: 0, complete: true });
    // No reader is ever served a link to a deleted object: without its body item an event reads as gone.
    expect(order).toEqual([
      'batch:BODY',
      `s3:payloads/r1/acct-a/${id}`,
      'delete:DEDUP:event_id = :id',
      'batch:ATT#1,ATT#2',
      expect.stringMatching(/^delete:EVENT:attribute_not_exists\(pk\) OR #status IN \(/),
      'delete:CHECKPOINT:',
    ]);
  });

  it('keeps unsettled events past their window (rule 5): ends nothing, deletes nothing, pushes out only TTLs falling due', async () => {
    const [a, b, c] = [oldId(4), oldId(3), oldId(2)].sort() as [string, string, string];
    const pkOf = (id: string) => `ACCT#acct-a#EVT#${id}`;
    const nowS = NOW.getTime() / 1000;
    const stored = (id: string, deliveries: Record<string, ReturnType<typeof deliveryState>>) => ({
      ...eventRecord({ id, account_id: 'acct-a', status: 'queued', retention_days: 1, received_at: new Date(NOW.getTime() - 9 * DAY_MS).toISOString(), deliveries }),
      pk: pkOf(id),
      sk: 'EVENT',
    });
    fakeTable({
      accounts: ['acct-a'],
      lists: { 'ACCT#acct-a#EVENTS#outbound': [{ id: a }, { id: b }, { id: c }] },
      partitions: {
        // Its body and first attempt fall due within the keep horizon; its later attempt is far enough out.
        [pkOf(a)]: [
          stored(a, { 'dst-1': deliveryState({ status: 'retry_scheduled', attempts: 2, next_attempt_at: NOW.toISOString() }) }),
          { pk: pkOf(a), sk: 'BODY', expires_at: nowS - 60, body_ref: `payloads/r1/acct-a/${a}` },
          { pk: pkOf(a), sk: 'ATT#1', attempted_at: NOW.toISOString(), expires_at: nowS + 86_400 },
          { pk: pkOf(a), sk: 'ATT#2', attempted_at: NOW.toISOString(), expires_at: nowS + 30 * 86_400 },
        ],
        // Claimed a moment ago, its items far out: nothing to write.
        [pkOf(b)]: [stored(b, { 'dst-2': deliveryState({ status: 'delivering', attempts: 1, claimed_at: new Date().toISOString() }) }), { pk: pkOf(b), sk: 'BODY', expires_at: nowS + 6 * 86_400 }],
        // A status item that is no whole event: left alone.
        [pkOf(c)]: [{ pk: pkOf(c), sk: 'EVENT', status: 'queued' }],
      },
    });
    s3.on(CopyObjectCommand).resolves({});
    s3.on(DeleteObjectCommand).resolves({});
    const report = await sweepRetention({ now: NOW, deadline: Number.POSITIVE_INFINITY, ttlLagSeconds: 0 });
    expect(report).toMatchObject({ deleted_events: 0, kept_waiting: 2, ttl_kept: 2, skipped_unsettled: 1, failed_accounts: 0, complete: true });
    // Its body's object, written when it arrived and expiring by its class's rule from then, is written again (copied to r7, the old one deleted).
    expect(s3.commandCalls(CopyObjectCommand).map((call) => [call.args[0].input.CopySource, call.args[0].input.Key])).toEqual([
      [expect.stringContaining(`payloads/r1/acct-a/${a}`), `payloads/r7/acct-a/${a}`],
    ]);
    expect(s3.commandCalls(DeleteObjectCommand).map((call) => call.args[0].input.Key)).toEqual([`payloads/r1/acct-a/${a}`]);
    const retimed = ddb
      .commandCalls(UpdateCommand)
      .map((call) => call.args[0].input)
      .filter((input) => String(input.Key?.pk).includes('#EVT#'))
      .map((input) => [input.Key?.sk, Object.values(input.ExpressionAttributeValues ?? {})[0]])
      // The TTLs (the body's pointer to its object's new key is the other update of its item).
      .filter(([, value]) => typeof value === 'number');
    expect(retimed).toEqual([
      ['BODY', nowS + 8 * 86_400],
      ['ATT#1', nowS + 8 * 86_400],
    ]);
    expect(ddb.commandCalls(PutCommand).filter((call) => String(call.args[0].input.Item?.sk).startsWith('DLV#'))).toHaveLength(0);
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(0);
    expect(ddb.commandCalls(DeleteCommand).filter((call) => (call.args[0].input.Key as { sk: string }).sk === 'EVENT')).toHaveLength(0);
  });
});

describe('the delivery DLQ, read first', () => {
  it('a DLQ that cannot be read is tried again next run, and never holds up retention', async () => {
    const id = oldId(3);
    const pk = `ACCT#acct-a#EVT#${id}`;
    fakeTable({ accounts: ['acct-a'], lists: { 'ACCT#acct-a#EVENTS#inbound': [{ id }] }, partitions: { [pk]: [{ pk, sk: 'EVENT', status: 'delivered' }] } });
    sqs.on(ReceiveMessageCommand).rejects(new Error('SQS is having a bad minute'));
    const report = await sweepRetention({ now: NOW, deadline: Number.POSITIVE_INFINITY, ttlLagSeconds: 0, dlqUrl: 'https://sqs.local/dlq' });
    expect(sqs.commandCalls(ReceiveMessageCommand)).toHaveLength(1);
    expect(report).toMatchObject({ dlq_rearmed: 0, dlq_left: 0, deleted_events: 1, failed_accounts: 0, complete: true });
  });
});

describe('a payload object follows its account’s new window', () => {
  const id = oldId(0.1);
  const pk = `ACCT#acct-a#EVT#${id}`;
  const [from, to] = [`payloads/r1/acct-a/${id}`, `payloads/r30/acct-a/${id}`];
  const upgraded = () =>
    fakeTable({
      accounts: ['acct-a'],
      retention: { retention_days: 30, ttl_retention_days: 1 },
      lists: { 'ACCT#acct-a#EVENTS#inbound': [{ id }] },
      partitions: { [pk]: [{ pk, sk: 'BODY', body_ref: from }, { ...eventRecord({ id, account_id: 'acct-a', status: 'delivered', retention_days: 30 }), pk, sk: 'EVENT' }] },
    });
  const s3Calls = () =>
    s3.calls().map((call) => {
      const input = call.args[0].input as { Key: string; CopySource?: string };
      return input.CopySource ? `copy ${decodeURIComponent(input.CopySource)} -> ${input.Key}` : `delete ${input.Key}`;
    });
  const bodyRefUpdates = () =>
    ddb.commandCalls(UpdateCommand).filter((call) => (call.args[0].input.Key as { sk: string }).sk === 'BODY');

  it('is copied under the new class, the body item repointed while it still names the old key, then the old object deleted', async () => {
    upgraded();
    s3.on(CopyObjectCommand).resolves({});
    s3.on(DeleteObjectCommand).resolves({});
    const report = await sweepRetention({ now: NOW, deadline: Number.POSITIVE_INFINITY, ttlLagSeconds: 0 });
    expect(report).toMatchObject({ ttl_resynced: 1, failed_accounts: 0, complete: true });
    expect(s3Calls()).toEqual([`copy ${UNIT_ENV.PAYLOAD_BUCKET}/${from} -> ${to}`, `delete ${from}`]);
    const repoint = bodyRefUpdates().find((call) => JSON.stringify(call.args[0].input).includes(to))?.args[0].input;
    expect(repoint).toMatchObject({ ConditionExpression: '#body_ref = :from', ExpressionAttributeValues: expect.objectContaining({ ':from': from }) });
  });

  it('when the body item no longer names the old key (swept meanwhile), the copy is deleted and the old object left to whoever owns it', async () => {
    upgraded();
    s3.on(CopyObjectCommand).resolves({});
    s3.on(DeleteObjectCommand).resolves({});
    ddb.on(UpdateCommand).callsFake((input: { ConditionExpression?: string }) => {
      if (input.ConditionExpression === '#body_ref = :from') throw new ConditionalCheckFailedException({ message: 'gone', $metadata: {} });
      return {};
    });
    await sweepRetention({ now: NOW, deadline: Number.POSITIVE_INFINITY, ttlLagSeconds: 0 });
    expect(s3Calls()).toEqual([`copy ${UNIT_ENV.PAYLOAD_BUCKET}/${from} -> ${to}`, `delete ${to}`]);
  });
});

describe('batchDelete', () => {
  it('deletes in chunks of 25 and retries unprocessed items', async () => {
    const keys = Array.from({ length: 30 }, (_, i) => ({ pk: `p${i}`, sk: 'BODY' }));
    const unprocessed = [{ DeleteRequest: { Key: keys[3] } }, { DeleteRequest: { Key: keys[7] } }];
    ddb
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { [TABLE]: unprocessed } })
      .resolvesOnce({ UnprocessedItems: {} })
      .resolves({});
    await batchDelete(keys, { backoffMs: 1 });
    const calls = ddb.commandCalls(BatchWriteCommand).map((call) => call.args[0].input.RequestItems?.[TABLE] ?? []);
    expect(calls.map((requests) => requests.length)).toEqual([25, 2, 5]);
    expect(calls[1]).toEqual(unprocessed);
  });

  it('fails loudly rather than leaving items behind when DynamoDB keeps refusing', async () => {
    const keys = [{ pk: 'p', sk: 'BODY' }];
    ddb.on(BatchWriteCommand).resolves({ UnprocessedItems: { [TABLE]: [{ DeleteRequest: { Key: keys[0] } }] } });
    await expect(batchDelete(keys, { backoffMs: 0 })).rejects.toThrow(/unprocessed/);
  });
});
