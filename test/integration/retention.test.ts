import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payloadKey, putPayload } from '../../lambdas/adapters/payloads';
import { uuidv7 } from '../../lambdas/domain/ids';
import { handler as sweeper } from '../../lambdas/handlers/sweeper';
import { dedupeKeyOf } from '../../lambdas/domain/dedupe';
import { claimExternalId } from '../../lambdas/events/dedupe';
import { insertAttempt, insertEvent } from '../../lambdas/events/record';
import type { EventBodyRecord, EventRecord } from '../../lambdas/events/record';
import { createLocalClients, type LocalClients } from '../../local/aws-clients';
import { startGateway, type Gateway } from '../../local/gateway';
import { CHILD_START_TIMEOUT_MS, startChildGateway } from '../fixtures/child-gateway';
import { createAccount, httpClient, type Call } from '../fixtures/http-client';
import { eventRecord } from '../fixtures/records';
import { eventually } from '../fixtures/sink';
import type { EventStatus } from '../../lambdas/domain/vocabulary';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** The injected clock of this file: every "age" below is relative to it. */
const NOW = Date.now();

let gateway: Gateway;
let dataDir: string;
let call: Call;
let clients: LocalClients;
let table: DynamoDBDocumentClient;
let child: Awaited<ReturnType<typeof startChildGateway>> | undefined;

beforeAll(async () => {
  // Our own boot rather than bootGateway(): the last test restarts on the same data dir, so it must outlive the gateway.
  dataDir = await mkdtemp(join(tmpdir(), 'hookgate-retention-'));
  gateway = await startGateway({
    port: 0,
    dataDir,
    // Only the start-up runs of the schedules happen during this file; the tests invoke the sweeper themselves.
    env: { HOOKGATE_LOG_LEVEL: 'warn', SCHEDULER_RETENTION_INTERVAL: '3600' },
    log: () => undefined,
  });
  // The start-up reconcile resends unsettled events it finds: it must be over before old ones are written.
  await gateway.startupRuns;
  call = httpClient(gateway.url);
  clients = createLocalClients(gateway.endpoints);
  table = DynamoDBDocumentClient.from(clients.dynamodb);
});

afterAll(async () => {
  await child?.kill('SIGTERM');
  clients?.destroy();
  await gateway?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------
// Writing the past: events can only be made old by writing them with old ids and times.

interface OldEvent {
  status: EventStatus;
  ageMs: number;
  retentionDays: number;
  direction?: 'inbound' | 'outbound';
  attempts?: number;
  payload?: boolean;
  externalId?: string;
}

const DESTINATION_ID = uuidv7(NOW - 90 * DAY_MS, randomBytes(10));

function deliveriesFor(status: EventStatus, attempts: number, createdAt: string): EventRecord['deliveries'] {
  const done = (s: 'delivered' | 'dead_letter') => ({ status: s, attempts, next_attempt_at: null, claimed_at: null });
  switch (status) {
    case 'delivered':
    case 'replayed':
      return { [DESTINATION_ID]: done('delivered') };
    case 'dead_letter':
      return { [DESTINATION_ID]: done('dead_letter') };
    case 'accepted':
    case 'received':
      return {};
    case 'queued':
      return { [DESTINATION_ID]: { status: 'queued', attempts: 0, next_attempt_at: createdAt, claimed_at: null } };
    case 'delivering':
      return { [DESTINATION_ID]: { status: 'delivering', attempts, next_attempt_at: null, claimed_at: createdAt } };
    case 'retry_scheduled':
      // Due tomorrow (real time), so no reconciler or worker touches it while the tests look at it.
      return {
        [DESTINATION_ID]: { status: 'retry_scheduled', attempts, next_attempt_at: new Date(Date.now() + DAY_MS).toISOString(), claimed_at: null },
      };
  }
}

/** The de-duplication key of an inbound event written by `writeEvent` (no source). */
const inboundKey = (accountId: string, externalId: string) =>
  dedupeKeyOf({ account_id: accountId, direction: 'inbound', source_id: null, external_event_id: externalId, replay_of: null });

/** Writes an event (status, body, attempts; optionally an S3 payload and a de-duplication claim) created `ageMs` before NOW. */
async function writeEvent(accountId: string, spec: OldEvent): Promise<string> {
  const createdMs = NOW - spec.ageMs;
  const id = uuidv7(createdMs, randomBytes(10));
  const createdAt = new Date(createdMs).toISOString();
  const attempts = spec.attempts ?? 0;
  const direction = spec.direction ?? 'inbound';
  const dedupe = dedupeKeyOf({ account_id: accountId, direction, source_id: null, external_event_id: spec.externalId ?? null, replay_of: null });
  const event = eventRecord({
    id,
    account_id: accountId,
    direction,
    event_type: 'test.retention',
    external_event_id: spec.externalId ?? null,
    status: spec.status,
    attempts_count: attempts,
    created_by: 'test',
    received_at: createdAt,
    created_at: createdAt,
    deliveries: deliveriesFor(spec.status, attempts, createdAt),
    version: 0,
    retention_days: spec.retentionDays,
    replayed_by: spec.status === 'replayed' ? uuidv7(createdMs + 60_000, randomBytes(10)) : null,
    dedupe_key: dedupe,
  });
  const common = { body_size: 2, content_type: 'application/json', headers: {}, payload_hash: 'sha256:test' };
  let body: EventBodyRecord = { ...common, body: Buffer.from('{}') };
  if (spec.payload) {
    const key = payloadKey(accountId, id, spec.retentionDays);
    await putPayload(key, Buffer.from('{"big":true}'), 'application/json');
    body = { ...common, body_ref: key };
  }
  // Settled "at" creation plus a minute, as the pipeline would have written it.
  await insertEvent(event, body);
  for (let i = 0; i < attempts; i++) {
    const attemptedMs = createdMs + (i + 1) * 10_000;
    await insertAttempt(
      accountId,
      {
        id: uuidv7(attemptedMs, randomBytes(10)),
        event_id: id,
        destination_id: DESTINATION_ID,
        attempt_number: i + 1,
        outcome: spec.status === 'dead_letter' ? 'http_error' : 'success',
        response_status: spec.status === 'dead_letter' ? 500 : 200,
        response_body: '',
        error: null,
        attempted_at: new Date(attemptedMs).toISOString(),
        duration_ms: 5,
      },
      spec.retentionDays,
    );
  }
  if (dedupe) await claimExternalId(accountId, dedupe, id, Math.floor(createdMs / 1000) + (spec.retentionDays + 7) * 86_400, new Date(createdMs));
  return id;
}

const runSweeper = (nowMs: number) => sweeper({ time: new Date(nowMs).toISOString() });
const detailPath = (direction: 'inbound' | 'outbound', id: string) =>
  `${direction === 'inbound' ? '/v1/events' : '/v1/outbound-events'}/${id}`;
const statusOf = async (key: string, id: string, direction: 'inbound' | 'outbound' = 'inbound', client: Call = call) =>
  (await client('GET', detailPath(direction, id), { key })).status;

async function listedIds(key: string, direction: 'inbound' | 'outbound' = 'inbound'): Promise<string[]> {
  const res = await call('GET', `${direction === 'inbound' ? '/v1/events' : '/v1/outbound-events'}?limit=200`, { key });
  expect(res.status).toBe(200);
  return (res.json.data as Array<{ id: string }>).map((e) => e.id);
}

async function partition(accountId: string, eventId: string) {
  const out = await table.send(
    new QueryCommand({
      TableName: gateway.resources.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `ACCT#${accountId}#EVT#${eventId}` },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

async function rawItem(pk: string, sk: string) {
  const out = await table.send(new GetCommand({ TableName: gateway.resources.tableName, Key: { pk, sk }, ConsistentRead: true }));
  return out.Item;
}

async function payloadExists(key: string): Promise<boolean> {
  try {
    await clients.s3.send(new HeadObjectCommand({ Bucket: gateway.resources.payloadBucket, Key: key }));
    return true;
  } catch (error) {
    if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------------

describe('retention sweep (injected clock)', () => {
  const free = {} as { accountId: string; key: string; ids: Record<string, string> };
  const pro = {} as { accountId: string; key: string; ids: Record<string, string> };

  it('deletes old settled events with their attempts, body, payload and de-duplication item; keeps old unsettled ones whole (rule 5) and young ones', async () => {
    const account = await createAccount(call, { name: 'free plan' });
    expect(account.res.json.data.account).toMatchObject({ plan: 'free', retention_days: 1 });
    Object.assign(free, account);
    const old = { ageMs: 3 * DAY_MS, retentionDays: 1 };
    free.ids = {
      delivered: await writeEvent(free.accountId, { ...old, status: 'delivered', attempts: 2, payload: true, externalId: 'evt_1' }),
      deadLetter: await writeEvent(free.accountId, { ...old, status: 'dead_letter', attempts: 1 }),
      replayed: await writeEvent(free.accountId, { ...old, status: 'replayed', attempts: 1 }),
      accepted: await writeEvent(free.accountId, { ...old, status: 'accepted' }),
      retryScheduled: await writeEvent(free.accountId, { ...old, status: 'retry_scheduled', attempts: 1 }),
      queued: await writeEvent(free.accountId, { ...old, status: 'queued' }),
      delivering: await writeEvent(free.accountId, { ...old, status: 'delivering', attempts: 1 }),
      received: await writeEvent(free.accountId, { ...old, status: 'received' }),
      young: await writeEvent(free.accountId, { ageMs: 2 * HOUR_MS, retentionDays: 1, status: 'delivered', attempts: 1 }),
      outboundOld: await writeEvent(free.accountId, { ...old, direction: 'outbound', status: 'delivered', attempts: 1 }),
      outboundYoung: await writeEvent(free.accountId, { ageMs: 2 * HOUR_MS, retentionDays: 1, direction: 'outbound', status: 'delivered' }),
    };
    const { ids, key, accountId } = free;
    const payload = payloadKey(accountId, ids.delivered!, 1);
    const dedupeItemKey = { pk: `ACCT#${accountId}#DEDUP#${inboundKey(accountId, 'evt_1')}`, sk: 'DEDUP' };
    // Past its window a settled event is gone for every reader at once, though its items are still
    // stored until TTL (in AWS) or the sweeper (here, where nothing expires items) deletes them.
    expect(await statusOf(key, ids.delivered!)).toBe(404);
    expect(await partition(accountId, ids.delivered!)).toHaveLength(4);
    expect(await payloadExists(payload)).toBe(true);
    expect(await rawItem(dedupeItemKey.pk, dedupeItemKey.sk)).toMatchObject({ event_id: ids.delivered });
    expect((await listedIds(key)).sort()).toEqual([ids.retryScheduled, ids.queued, ids.delivering, ids.received, ids.young].sort());
    expect(await call('POST', `/v1/events/${ids.deadLetter}/replay`, { key })).toMatchObject({ status: 404 });

    const report = await runSweeper(NOW);
    expect(report).toEqual({
      accounts: 1,
      deleted_events: 5,
      deleted_attempts: 5,
      deleted_payloads: 1,
      // The old unsettled events are kept whole (rule 5); their TTLs, 5 days out, are not due for a keep yet.
      kept_waiting: 4,
      ttl_kept: 0,
      skipped_unsettled: 0,
      ttl_resynced: 0,
      // The delivery DLQ is empty: nothing taken back.
      dlq_rearmed: 0,
      dlq_ended: 0,
      dlq_dropped: 0,
      dlq_left: 0,
      failed_accounts: 0,
      complete: true,
    });

    for (const name of ['delivered', 'deadLetter', 'replayed', 'accepted']) {
      expect(await statusOf(key, ids[name]!), name).toBe(404);
      expect(await partition(accountId, ids[name]!), name).toEqual([]);
    }
    expect(await statusOf(key, ids.outboundOld!, 'outbound')).toBe(404);
    expect(await partition(accountId, ids.outboundOld!)).toEqual([]);
    expect(await payloadExists(payload)).toBe(false);
    expect(await rawItem(dedupeItemKey.pk, dedupeItemKey.sk)).toBeUndefined();

    expect(await statusOf(key, ids.young!)).toBe(200);
    expect(await statusOf(key, ids.outboundYoung!, 'outbound')).toBe(200);
    // The unsettled ones are still there for every reader, as they were, nothing ended.
    for (const name of ['retryScheduled', 'queued', 'delivering', 'received']) expect(await statusOf(key, ids[name]!), name).toBe(200);
    for (const name of ['retryScheduled', 'queued', 'delivering', 'received']) {
      const stored = await partition(accountId, ids[name]!);
      expect(stored.find((item) => item.sk === 'EVENT'), name).toMatchObject({ status: name === 'retryScheduled' ? 'retry_scheduled' : name });
      expect(stored.find((item) => item.sk === 'EVENT')?.expires_at, name).toBeUndefined();
    }
    expect((await partition(accountId, ids.retryScheduled!)).map((item) => String(item.sk).slice(0, 4)).sort()).toEqual(['ATT#', 'BODY', 'EVEN']);

    const listed = await listedIds(key);
    expect(listed.sort()).toEqual([ids.young, ids.retryScheduled, ids.queued, ids.delivering, ids.received].sort());
    expect(await listedIds(key, 'outbound')).toEqual([ids.outboundYoung]);
    // A finished pass leaves no checkpoint behind.
    expect(await rawItem('SWEEPER', 'CHECKPOINT')).toBeUndefined();

    // The next pass keeps them again, and deletes nothing of them.
    expect(await runSweeper(NOW)).toMatchObject({ deleted_events: 0, kept_waiting: 4, skipped_unsettled: 0, complete: true });
    for (const name of ['retryScheduled', 'queued', 'delivering', 'received']) expect(await statusOf(key, ids[name]!), name).toBe(200);
  });

  it('a pro account keeps 30 days: a two-day-old settled event survives, a 31-day-old one does not', async () => {
    const account = await createAccount(call, { name: 'pro plan', plan: 'pro' });
    expect(account.res.json.data.account).toMatchObject({ plan: 'pro', retention_days: 30 });
    Object.assign(pro, account);
    pro.ids = {
      twoDays: await writeEvent(pro.accountId, { ageMs: 2 * DAY_MS, retentionDays: 30, status: 'delivered', attempts: 1 }),
      monthOld: await writeEvent(pro.accountId, { ageMs: 31 * DAY_MS, retentionDays: 30, status: 'dead_letter', attempts: 1 }),
    };
    const report = await runSweeper(NOW);
    expect(report).toMatchObject({ deleted_events: 1, deleted_attempts: 1, complete: true });
    expect(await statusOf(pro.key, pro.ids.twoDays!)).toBe(200);
    expect(await statusOf(pro.key, pro.ids.monthOld!)).toBe(404);
    // Nothing more of the free account went: only its young events are left there.
    expect(await statusOf(free.key, free.ids.young!)).toBe(200);
  });

  it('a clock two days ahead sweeps the free account’s young events, still not the pro account’s', async () => {
    const report = await runSweeper(NOW + 2 * DAY_MS);
    expect(report).toMatchObject({ deleted_events: 2, failed_accounts: 0, complete: true });
    expect(await statusOf(free.key, free.ids.young!)).toBe(404);
    expect(await statusOf(free.key, free.ids.outboundYoung!, 'outbound')).toBe(404);
    expect(await statusOf(pro.key, pro.ids.twoDays!)).toBe(200);
  });
});

describe('payload objects of events published through the API', () => {
  it('a large body is stored under its window’s class, and is gone from the local S3 when the sweeper removes its event', async () => {
    const { accountId, key } = await createAccount(call, { name: 'large bodies' });
    // No route: the event settles at once as `accepted`.
    const published = await call('POST', '/v1/outbound-events', { key, body: { payload: { blob: 'x'.repeat(400 * 1024) } } });
    expect(published.status).toBe(201);
    const id = String(published.json.data.id);
    const bodyRef = String((await rawItem(`ACCT#${accountId}#EVT#${id}`, 'BODY'))?.body_ref);
    // The free plan's window of 1 day: class r1, which the bucket's lifecycle rule expires in AWS.
    expect(bodyRef).toBe(`payloads/r1/${accountId}/${id}`);
    expect(await payloadExists(bodyRef)).toBe(true);

    // Inside its window nothing is deleted; past it (here nothing expires items, so the sweeper does).
    expect(await runSweeper(Date.now())).toMatchObject({ deleted_payloads: 0, failed_accounts: 0 });
    expect(await payloadExists(bodyRef)).toBe(true);
    const report = await runSweeper(Date.now() + 2 * DAY_MS);
    expect(report).toMatchObject({ failed_accounts: 0, complete: true });
    expect(report.deleted_payloads).toBeGreaterThanOrEqual(1);
    expect(await statusOf(key, id, 'outbound')).toBe(404);
    expect(await partition(accountId, id)).toEqual([]);
    expect(await payloadExists(bodyRef)).toBe(false);
  });
});

describe('TTLs follow a retention change', () => {
  it('after free → pro the sweeper rewrites expires_at on status, body, attempts and claim for 30 days, once', async () => {
    const { accountId, key } = await createAccount(call, { name: 'upgrading' });
    expect(await rawItem(`ACCT#${accountId}`, 'ACCOUNT')).toMatchObject({ retention_days: 1, ttl_retention_days: 1 });
    const settledId = await writeEvent(accountId, { ageMs: 2 * HOUR_MS, retentionDays: 1, status: 'delivered', attempts: 2, externalId: 'evt_up', payload: true });
    const waitingId = await writeEvent(accountId, { ageMs: 2 * HOUR_MS, retentionDays: 1, status: 'retry_scheduled', attempts: 1 });
    const seconds = (ms: number) => Math.floor(ms / 1000);
    const createdMs = NOW - 2 * HOUR_MS;
    const before = await partition(accountId, settledId);
    // A settled event's window runs from its receipt.
    expect(before.find((i) => i.sk === 'EVENT')?.expires_at).toBe(seconds(createdMs) + 86_400);
    expect(before.find((i) => i.sk === 'BODY')?.expires_at).toBe(seconds(createdMs) + 8 * 86_400);

    const patched = await call('PATCH', '/v1/account', { key, body: { plan: 'pro' } });
    expect(patched.status).toBe(200);
    expect(patched.json.data).toMatchObject({ plan: 'pro', retention_days: 30 });
    // The account now knows its TTLs are behind its window.
    expect(await rawItem(`ACCT#${accountId}`, 'ACCOUNT')).toMatchObject({ retention_days: 30, ttl_retention_days: 1 });

    const report = await runSweeper(NOW);
    expect(report).toMatchObject({ ttl_resynced: 2, failed_accounts: 0, complete: true });
    const after = await partition(accountId, settledId);
    const status = after.find((i) => i.sk === 'EVENT');
    expect(status).toMatchObject({ retention_days: 30, status: 'delivered', expires_at: seconds(createdMs) + 30 * 86_400 });
    expect(after.find((i) => i.sk === 'BODY')?.expires_at).toBe(seconds(createdMs) + 37 * 86_400);
    const attempts = after.filter((i) => String(i.sk).startsWith('ATT#'));
    expect(attempts).toHaveLength(2);
    for (const attempt of attempts) expect(attempt.expires_at).toBe(seconds(Date.parse(String(attempt.attempted_at))) + 37 * 86_400);
    const claim = await rawItem(`ACCT#${accountId}#DEDUP#${inboundKey(accountId, 'evt_up')}`, 'DEDUP');
    expect(claim).toMatchObject({ event_id: settledId, expires_at: seconds(createdMs) + 37 * 86_400 });
    // An unsettled event gets no TTL yet, but carries the new window for when it settles.
    const waiting = (await partition(accountId, waitingId)).find((i) => i.sk === 'EVENT');
    expect(waiting).toMatchObject({ retention_days: 30, status: 'retry_scheduled' });
    expect(waiting?.expires_at).toBeUndefined();
    expect(await rawItem(`ACCT#${accountId}`, 'ACCOUNT')).toMatchObject({ retention_days: 30, ttl_retention_days: 30 });
    // Its payload object moved to the 30-day class, whose lifecycle rule keeps it as long as its event.
    const [oldRef, newRef] = [payloadKey(accountId, settledId, 1), payloadKey(accountId, settledId, 30)];
    expect(newRef).toBe(`payloads/r30/${accountId}/${settledId}`);
    expect(after.find((i) => i.sk === 'BODY')?.body_ref).toBe(newRef);
    expect(await payloadExists(newRef)).toBe(true);
    expect(await payloadExists(oldRef)).toBe(false);
    // The event is still served as before, its body from the moved object.
    const detail = await call('GET', detailPath('inbound', settledId), { key });
    expect(detail.status).toBe(200);
    expect(detail.json.data.event.body).toBe('{"big":true}');

    // Done once: the next run finds the account in sync.
    expect(await runSweeper(NOW)).toMatchObject({ ttl_resynced: 0, complete: true });
  });
});

describe('start-up', () => {
  it('a gateway started on existing data runs the clean-up once at start', async () => {
    const { accountId, key } = await createAccount(call, { name: 'restart' });
    const oldSettled = await writeEvent(accountId, { ageMs: 3 * DAY_MS, retentionDays: 1, status: 'delivered', attempts: 1, payload: true });
    const young = await writeEvent(accountId, { ageMs: HOUR_MS, retentionDays: 1, status: 'delivered', attempts: 1 });
    expect(await payloadExists(payloadKey(accountId, oldSettled, 1))).toBe(true);
    const payloadFile = async () => (await readdir(join(dataDir, 's3'), { recursive: true })).some((path) => path.includes(oldSettled));
    expect(await payloadFile()).toBe(true);
    await gateway.close();

    // A separate process on the same data, with an hourly schedule: only its start-up run can sweep.
    child = await startChildGateway({ HOOKGATE_DATA_DIR: dataDir, SCHEDULER_RETENTION_INTERVAL: '3600' });
    const childCall = httpClient(child.url);
    // Its payload object is deleted with it: only the sweeper does that.
    await eventually(payloadFile, (exists) => !exists, 20_000);
    expect(await statusOf(key, oldSettled, 'inbound', childCall)).toBe(404);
    expect(await statusOf(key, young, 'inbound', childCall)).toBe(200);
  }, CHILD_START_TIMEOUT_MS + 60_000);
});
