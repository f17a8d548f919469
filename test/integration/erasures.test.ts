import { createHmac, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCounts, erasureCountsOf, NO_ERASURES } from '../../lambdas/domain/erasure';
import { insertErasureJob } from '../../lambdas/erasures/record';
import { runErasureWorker } from '../../lambdas/erasures/worker';
import { eraseEventParts, insertAttempt, planEventErasure } from '../../lambdas/events/record';
import { hashSubject } from '../../lambdas/events/subject-index';
import { deletePayload } from '../../lambdas/adapters/payloads';
import { handler as sweeper } from '../../lambdas/handlers/sweeper';
import { sideItemExpiresAt } from '../../lambdas/domain/retention';
import { newId } from '../../lambdas/shared/secrets';
import { createLocalClients } from '../../local/aws-clients';
import { bootGatewayWithSink } from '../fixtures/gateway';
import { createAccount, type Call } from '../fixtures/http-client';
import { openPortalSession } from '../fixtures/portal';
import { addDestination, addRoute } from '../fixtures/setup';
import { eventually, type Sink } from '../fixtures/sink';

/**
 * Erasure per data subject (issue 39, part 4) through real HTTP and the local emulators: after it,
 * no byte of the subject's payloads is readable through the API, the portal, an export, the table or
 * the payload bucket; other subjects, events without one, and another account's events with the same
 * subject string are untouched.
 */
let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let sink: Sink;

/** Every receiver echoes what it got: the attempts' stored response bodies then hold the payload too. */
const echo = (request: { body: Buffer }, res: ServerResponse) => res.writeHead(200).end(`got ${request.body.toString().slice(0, 200)}`);

beforeAll(async () => {
  env = await bootGatewayWithSink();
  ({ call, sink } = env);
  sink.respondWith(echo);
});
afterAll(() => env?.stop());

/** A marker unique to one payload: found anywhere, that payload's bytes are still there. */
const marker = (name: string) => `${name}-${randomBytes(8).toString('hex')}`;

type Detail = { event: Record<string, unknown>; attempts: Array<{ response_body: string }> };
const detail = async (key: string, id: string) => (await call('GET', `/v1/outbound-events/${id}`, { key })).json.data as Detail;

async function publish(key: string, body: Record<string, unknown>): Promise<string> {
  const res = await call('POST', '/v1/outbound-events', { key, body });
  expect(res.status).toBe(201);
  return String(res.json.data.id);
}

async function delivered(key: string, id: string): Promise<Detail> {
  return eventually(
    () => detail(key, id),
    (d) => d.event.status === 'delivered' && d.attempts.length > 0,
  );
}

async function erase(key: string, subject: string) {
  const started = await call('POST', '/v1/erasures', { key, body: { subject } });
  expect(started.status).toBe(202);
  expect(started.json.data).toMatchObject({ id: expect.any(String), status: 'running' });
  return eventually(
    async () => (await call('GET', `/v1/erasures/${started.json.data.id}`, { key })).json.data,
    (job) => job.status === 'done',
    30_000,
  );
}

async function tableItems(): Promise<Array<Record<string, unknown>>> {
  const table = DynamoDBDocumentClient.from(createLocalClients(env.gateway.endpoints).dynamodb);
  const items: Array<Record<string, unknown>> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.send(new ScanCommand({ TableName: env.gateway.resources.tableName, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Everything the emulators hold, as text: the table's items and the payload bucket's objects. */
async function everythingStored(): Promise<string> {
  const clients = createLocalClients(env.gateway.endpoints);
  const items = await tableItems();
  // Binary attributes (bodies) as their bytes' text, so a marker inside one is found.
  const text = [JSON.stringify(items, (_key, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : value))];
  const listed = await clients.s3.send(new ListObjectsV2Command({ Bucket: env.gateway.resources.payloadBucket }));
  for (const object of listed.Contents ?? []) {
    const got = await clients.s3.send(new GetObjectCommand({ Bucket: env.gateway.resources.payloadBucket, Key: object.Key }));
    text.push(await got.Body!.transformToString('latin1'));
  }
  return text.join('\n');
}

describe('POST /v1/erasures', () => {
  it.each([
    [{}, 'subject is required'],
    [{ subject: '' }, 'subject must be 1 to 256 characters'],
    [{ subject: 'x'.repeat(257) }, 'subject must be 1 to 256 characters'],
    [{ subject: 'u', email: 'a@b' }, 'unknown field: email'],
  ])('refuses %j: %s', async (body, message) => {
    const { key } = await createAccount(call);
    const res = await call('POST', '/v1/erasures', { key, body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(message);
  });

  it('a publish refuses a subject too long', async () => {
    const { key } = await createAccount(call);
    const res = await call('POST', '/v1/outbound-events', { key, body: { payload: '{}', subject: 'x'.repeat(257) } });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('subject must be 1 to 256 characters');
  });

  it('an erasure of another account is not found', async () => {
    const mine = await createAccount(call);
    const theirs = await createAccount(call);
    const started = await call('POST', '/v1/erasures', { key: mine.key, body: { subject: 'nobody' } });
    expect((await call('GET', `/v1/erasures/${started.json.data.id}`, { key: theirs.key })).status).toBe(404);
  });
});

describe('erasing one data subject', () => {
  const subject = 'user-8412';
  const secrets = { small: marker('small'), large: marker('large'), other: marker('other'), none: marker('none'), tenant: marker('tenant') };
  const ids = {} as Record<keyof typeof secrets, string>;
  let key: string;
  let otherKey: string;
  let endpointId: string;
  let exportBefore: string;
  let erasure: Record<string, unknown>;

  beforeAll(async () => {
    ({ key } = await createAccount(call));
    ({ key: otherKey } = await createAccount(call));
    for (const k of [key, otherKey]) {
      const destination = await addDestination(call, k, { url: `${sink.url}/in`, customer: 'cus_1' });
      await addRoute(call, k, { destination_id: destination.id });
      if (k === key) endpointId = destination.id;
    }
    ids.small = await publish(key, { payload: { email: secrets.small }, subject, customer: 'cus_1' });
    // Over 300 KB: kept as an object in the payload bucket.
    ids.large = await publish(key, { payload: { note: secrets.large, blob: 'x'.repeat(400 * 1024) }, subject, customer: 'cus_1' });
    ids.other = await publish(key, { payload: { email: secrets.other }, subject: 'user-1', customer: 'cus_1' });
    ids.none = await publish(key, { payload: { email: secrets.none }, customer: 'cus_1' });
    ids.tenant = await publish(otherKey, { payload: { email: secrets.tenant }, subject, customer: 'cus_1' });
    for (const [name, id] of Object.entries(ids)) await delivered(name === 'tenant' ? otherKey : key, id);

    const stored = await everythingStored();
    for (const secret of Object.values(secrets)) expect(stored).toContain(secret);

    const exported = await call('POST', '/v1/exports', { key, body: {} });
    exportBefore = String(exported.json.data.id);
    await eventually(async () => (await call('GET', `/v1/exports/${exportBefore}`, { key })).json.data, (job) => job.status === 'ready');

    erasure = await erase(key, subject);
  }, 90_000);

  it('counts what it erased and names the export written before it', () => {
    expect(erasure).toMatchObject({ status: 'done', events: 2, payload_objects: 1, request_bodies: 2, response_bodies: 2, exports_before: [exportBefore] });
    expect(Date.parse(String(erasure.finished_at))).toBeGreaterThanOrEqual(Date.parse(String(erasure.created_at)));
  });

  it('leaves tombstones: counted and listed, no body, no response bodies', async () => {
    for (const id of [ids.small, ids.large]) {
      const shown = await detail(key, id);
      expect(shown.event).toMatchObject({ id, status: 'delivered', payload_erased: true, body: null, body_url: null, body_size: 0, payload_hash: null, headers: {} });
      expect(shown.attempts.length).toBeGreaterThan(0);
      expect(shown.attempts.every((attempt) => attempt.response_body === '')).toBe(true);
    }
    const listed = await call('GET', '/v1/outbound-events?limit=50', { key });
    expect(listed.json.data.map((e: { id: string }) => e.id)).toEqual(expect.arrayContaining([ids.small, ids.large]));
  });

  it('refuses to replay or resend a tombstone with 409', async () => {
    const replay = await call('POST', `/v1/outbound-events/${ids.small}/replay`, { key, body: {} });
    expect(replay.status).toBe(409);
    expect(replay.json.error).toBe('payload erased');
    const { secret } = await openPortalSession(call, key, 'cus_1');
    const portal = { key: undefined, headers: { authorization: `Bearer ${secret}` } };
    const resend = await call('POST', `/v1/portal/events/${ids.large}/resend`, { ...portal, body: { endpoint_id: endpointId } });
    expect(resend.status).toBe(409);
    expect(resend.json.error).toBe('payload erased');
    const shown = await call('GET', `/v1/portal/events/${ids.small}`, portal);
    expect(shown.status).toBe(200);
    expect(shown.text).not.toContain(secrets.small);
    expect(shown.json.data.event).toMatchObject({ body: null, payload_erased: true });
  });

  it('leaves no byte of the payloads in any API answer, an export written after it, the table or the bucket', async () => {
    const { secret } = await openPortalSession(call, key, 'cus_1');
    const portal = { key: undefined, headers: { authorization: `Bearer ${secret}` } };
    const answers = [
      ...(await Promise.all([ids.small, ids.large].map(async (id) => (await call('GET', `/v1/outbound-events/${id}`, { key })).text))),
      (await call('GET', '/v1/outbound-events?limit=50', { key })).text,
      (await call('GET', '/v1/portal/events', portal)).text,
      ...(await Promise.all([ids.small, ids.large].map(async (id) => (await call('GET', `/v1/portal/events/${id}`, portal)).text))),
    ];
    const exported = await call('POST', '/v1/exports', { key, body: {} });
    await eventually(async () => (await call('GET', `/v1/exports/${exported.json.data.id}`, { key })).json.data, (job) => job.status === 'ready');
    const download = await call('GET', `/v1/exports/${exported.json.data.id}/download`, { key });
    answers.push(await (await fetch(download.headers.get('location') ?? '')).text());
    expect(answers.join('\n')).toContain(ids.small); // the tombstone is still there to be seen
    answers.push(await everythingStored());
    for (const text of answers) {
      expect(text).not.toContain(secrets.small);
      expect(text).not.toContain(secrets.large);
    }
  });

  it('leaves another subject’s event, an event without subject, and another account’s event of the same subject untouched', async () => {
    for (const [k, id, secret] of [
      [key, ids.other, secrets.other],
      [key, ids.none, secrets.none],
      [otherKey, ids.tenant, secrets.tenant],
    ] as const) {
      const shown = await detail(k, id);
      expect(shown.event.payload_erased).toBe(false);
      expect(String(shown.event.body)).toContain(secret);
      expect(shown.attempts.some((attempt) => attempt.response_body.includes(secret))).toBe(true);
    }
  });

  it('a second erasure of the same subject finds nothing left to erase', async () => {
    expect(await erase(key, subject)).toMatchObject({ status: 'done', events: 0, payload_objects: 0, request_bodies: 0, response_bodies: 0 });
  });
});

describe('a source’s subject_pointer', () => {
  it('finds an inbound event’s subject in its payload; the erasure takes that event and leaves one without it', async () => {
    const { key } = await createAccount(call);
    const created = await call('POST', '/v1/sources', { key, body: { name: 'shop', subject_pointer: '/customer/id' } });
    expect(created.status).toBe(201);
    expect(created.json.data.subject_pointer).toBe('/customer/id');
    const token = String(created.json.data.path_token);
    const secret = marker('inbound');
    const kept = marker('kept');
    const ingestOne = async (body: unknown) => {
      const res = await call('POST', `/ingest/${token}`, { rawBody: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(202);
      return String(res.json.data.id);
    };
    // A number there is the subject as its text.
    const theirs = await ingestOne({ customer: { id: 8412 }, email: secret });
    const elsewhere = await ingestOne({ customer: { name: 'no id' }, email: kept });

    expect(await erase(key, '8412')).toMatchObject({ status: 'done', events: 1, request_bodies: 1 });
    const erased = await call('GET', `/v1/events/${theirs}`, { key });
    expect(erased.json.data.event).toMatchObject({ payload_erased: true, body: null });
    expect(erased.text).not.toContain(secret);
    expect((await call('POST', `/v1/events/${theirs}/replay`, { key, body: {} })).status).toBe(409);
    const untouched = await call('GET', `/v1/events/${elsewhere}`, { key });
    expect(untouched.json.data.event.body).toContain(kept);
  });

  it('refuses a pointer that is not one', async () => {
    const { key } = await createAccount(call);
    const res = await call('POST', '/v1/sources', { key, body: { name: 's', subject_pointer: 'customer.id' } });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('subject_pointer must be a JSON pointer (RFC 6901), such as /customer/id');
  });
});

describe('an erasure whose worker died part-way', () => {
  it('is taken over at its page and erases and counts each event once', async () => {
    const { key, accountId } = await createAccount(call);
    const destination = await addDestination(call, key, { url: `${sink.url}/in` });
    await addRoute(call, key, { destination_id: destination.id });
    const secret = marker('crash');
    const eventIds: string[] = [];
    for (let i = 0; i < 3; i++) eventIds.push(await publish(key, { payload: { n: i, email: secret }, subject: 'crashy' }));
    for (const id of eventIds) await delivered(key, id);

    // What a worker leaves when it dies after saving its page and erasing the page's first event.
    let counts = NO_ERASURES;
    for (const id of eventIds) counts = addCounts(counts, erasureCountsOf(await planEventErasure(accountId, id)));
    expect(counts).toEqual({ events: 3, payload_objects: 0, request_bodies: 3, response_bodies: 3 });
    await eraseEventParts(accountId, eventIds[0]!, deletePayload);
    const createdAt = new Date(Date.now() - 60_000).toISOString();
    const job = {
      id: newId(),
      account_id: accountId,
      subject_hash: await hashSubject(accountId, 'crashy'),
      status: 'running' as const,
      phase: 'events' as const,
      counts: NO_ERASURES,
      pending: { event_ids: eventIds, counts },
      after: null,
      exports_before: [],
      created_at: createdAt,
      finished_at: null,
      lease_token: newId(),
      lease_until: createdAt,
    };
    await insertErasureJob(job);

    const run = await runErasureWorker({ now: () => new Date(), job: { accountId, jobId: job.id }, remainingMs: () => 900_000 });
    expect(run.processed).toEqual([{ id: job.id, result: 'finished' }]);
    const done = (await call('GET', `/v1/erasures/${job.id}`, { key })).json.data;
    expect(done).toMatchObject({ status: 'done', events: 3, payload_objects: 0, request_bodies: 3, response_bodies: 3 });
    for (const id of eventIds) {
      const shown = await call('GET', `/v1/outbound-events/${id}`, { key });
      expect(shown.json.data.event.payload_erased).toBe(true);
      expect(shown.text).not.toContain(secret);
    }
    expect(await everythingStored()).not.toContain(secret);
  });
});

describe('a delivery still waiting when its payload is erased', () => {
  it('ends `payload_erased` without a try: nothing reaches the endpoint afterwards', async () => {
    const { key } = await createAccount(call);
    const paused = await addDestination(call, key, { url: `${sink.url}/paused-erased`, active: false });
    await addRoute(call, key, { destination_id: paused.id });
    const secret = marker('waiting');
    const id = await publish(key, { payload: { email: secret }, subject: 'waiter' });
    await eventually(() => detail(key, id), (d) => (d.event.deliveries as Array<{ waiting: { reason: string } | null }>)[0]?.waiting?.reason === 'paused');

    expect(await erase(key, 'waiter')).toMatchObject({ status: 'done', events: 1 });
    expect((await call('PATCH', `/v1/destinations/${paused.id}`, { key, body: { active: true } })).status).toBe(200);
    const ended = await eventually(() => detail(key, id), (d) => d.event.status === 'dead_letter');
    expect(ended.event.deliveries).toEqual([expect.objectContaining({ destination_id: paused.id, status: 'dead_letter', end_reason: 'payload_erased', attempts: 0 })]);
    expect(sink.received.filter((request) => request.path === '/paused-erased')).toEqual([]);
  });
});

describe('a subject index entry when the account’s retention changes', () => {
  it('is re-timed with its event by the sweeper, so it never expires before the event it finds', async () => {
    const { key, accountId } = await createAccount(call);
    const id = await publish(key, { payload: { n: 1 }, subject: 'retimed' });
    const hash = await hashSubject(accountId, 'retimed');
    const table = DynamoDBDocumentClient.from(createLocalClients(env.gateway.endpoints).dynamodb);
    const entry = async () =>
      (await table.send(new GetCommand({ TableName: env.gateway.resources.tableName, Key: { pk: `ACCT#${accountId}#SUBJ#${hash}`, sk: id }, ConsistentRead: true }))).Item;
    const receivedAt = String((await detail(key, id)).event.received_at);
    expect((await entry())?.expires_at).toBe(sideItemExpiresAt(receivedAt, 1));
    expect((await call('PATCH', '/v1/account', { key, body: { plan: 'pro' } })).json.data).toMatchObject({ retention_days: 30 });
    await sweeper({ time: new Date().toISOString() });
    expect((await entry())?.expires_at).toBe(sideItemExpiresAt(receivedAt, 30));
  });
});

describe('a try on the wire when the erasure runs', () => {
  it.each([
    { how: 'claimed (its destination has not answered yet)', warm: false, fanout: 1, failFirst: false },
    { how: 'unclaimed, its outcome settling the event in one write (its destination answered before)', warm: true, fanout: 1, failFirst: false },
    { how: 'unclaimed, one of a fan-out (its outcome in its delivery’s first item)', warm: true, fanout: 2, failFirst: false },
    { how: 'a retry (an attempt item of its own)', warm: false, fanout: 1, failFirst: true },
  ])('$how: settles with no response body, and no byte of the payload is left', async ({ warm, fanout, failFirst }) => {
    const { key } = await createAccount(call);
    const path = `/on-the-wire-${randomBytes(4).toString('hex')}`;
    const destinations = [];
    for (let n = 0; n < fanout; n++) {
      const destination = await addDestination(call, key, { url: `${sink.url}${path}/${n}`, timeout_ms: 30_000, retry_schedule: [0, 1] });
      await addRoute(call, key, { destination_id: destination.id });
      destinations.push(destination);
    }
    if (warm) {
      await delivered(key, await publish(key, { payload: { warm: true } }));
      for (const destination of destinations) await eventually(() => call('GET', `/v1/destinations/${destination.id}`, { key }), (r) => r.json.data.health.last_success_at !== null);
    }
    const held: Array<() => void> = [];
    let failed = 0;
    sink.respondWith((request, res) => {
      if (!request.path.startsWith(path)) return echo(request, res);
      if (failFirst && failed++ === 0) return res.writeHead(503).end('not yet');
      held.push(() => echo(request, res));
    });
    try {
      const secret = marker('PAYLOAD-BYTES-123');
      const subject = marker('wire');
      const id = await publish(key, { payload: { email: secret }, subject });
      await eventually(async () => held.length, (n) => n === fanout);

      expect(await erase(key, subject)).toMatchObject({ status: 'done', events: 1, request_bodies: 1 });
      for (const answer of held) answer();
      const settled = await eventually(() => detail(key, id), (d) => d.event.status === 'delivered');
      expect(settled.event).toMatchObject({ payload_erased: true, body: null });
      expect(settled.attempts).toHaveLength(fanout + (failFirst ? 1 : 0));
      expect(settled.attempts.filter((attempt) => (attempt as { outcome?: string }).outcome === 'success')).toHaveLength(fanout);
      expect(settled.attempts.map((attempt) => attempt.response_body)).toEqual(settled.attempts.map(() => ''));
      expect(await everythingStored()).not.toContain(secret);
    } finally {
      sink.respondWith(echo);
    }
  });
});

describe('a second erasure of the same subject', () => {
  it('finds the tombstone again and removes what was stored after the first', async () => {
    const { key, accountId } = await createAccount(call);
    const destination = await addDestination(call, key, { url: `${sink.url}/in` });
    await addRoute(call, key, { destination_id: destination.id });
    const secret = marker('again');
    const id = await publish(key, { payload: { email: secret }, subject: 'twice' });
    await delivered(key, id);
    expect(await erase(key, 'twice')).toMatchObject({ status: 'done', events: 1, request_bodies: 1, response_bodies: 1 });

    // What a late write would leave behind the first erasure: a try's echo of the payload.
    const late = { id: newId(), event_id: id, destination_id: destination.id, attempt_number: 2, outcome: 'success' as const, response_status: 200, response_body: `got ${secret}`, error: null, attempted_at: new Date().toISOString(), duration_ms: 5 };
    await insertAttempt(accountId, late, 1);
    expect(await everythingStored()).toContain(secret);

    expect(await erase(key, 'twice')).toMatchObject({ status: 'done', events: 0, request_bodies: 0, response_bodies: 1 });
    expect(await everythingStored()).not.toContain(secret);
    const after = await detail(key, id);
    expect(after.event.payload_erased).toBe(true);
    expect(after.attempts.every((attempt) => attempt.response_body === '')).toBe(true);
  });
});

describe('an account’s subject key', () => {
  const table = () => DynamoDBDocumentClient.from(createLocalClients(env.gateway.endpoints).dynamodb);
  const keyItem = async (accountId: string) =>
    (await table().send(new GetCommand({ TableName: env.gateway.resources.tableName, Key: { pk: `ACCT#${accountId}`, sk: 'SUBJECTKEY' }, ConsistentRead: true }))).Item;
  const hmac = (key: string, subject: string) => createHmac('sha256', Buffer.from(key, 'base64')).update(subject, 'utf8').digest('hex');
  /** Whether a subject's index partition of the account holds an entry. */
  const indexedUnder = async (accountId: string, hash: string) => (await tableItems()).some((item) => item.pk === `ACCT#${accountId}#SUBJ#${hash}`);

  it('is stored sealed: no value in the table hashes a subject to its index entries, so a reader of the table cannot confirm who it is', async () => {
    const { key, accountId } = await createAccount(call);
    const subject = marker('who');
    await publish(key, { payload: { n: 1 }, subject });
    expect(await indexedUnder(accountId, await hashSubject(accountId, subject))).toBe(true);

    const item = await keyItem(accountId);
    expect(item).toMatchObject({ sealed_key: expect.any(String) });
    expect(item).not.toHaveProperty('key');
    // Every string the table holds, tried as the key (base64, as a clear key was stored): none finds the subject's entries.
    const items = await tableItems();
    const partitions = new Set(items.map((item) => item.pk));
    const strings = items.flatMap((item) => Object.values(item).filter((value): value is string => typeof value === 'string'));
    expect(strings.length).toBeGreaterThan(0);
    for (const candidate of new Set(strings)) expect(partitions.has(`ACCT#${accountId}#SUBJ#${hmac(candidate, subject)}`), candidate).toBe(false);
  });

  it('stored in clear before is sealed on its first use, and keeps hashing subjects as before', async () => {
    const { key, accountId } = await createAccount(call);
    const clear = randomBytes(32).toString('base64');
    await table().send(new PutCommand({ TableName: env.gateway.resources.tableName, Item: { pk: `ACCT#${accountId}`, sk: 'SUBJECTKEY', entity: 'subject_key', key: clear } }));
    const subject = marker('old');
    const id = await publish(key, { payload: { email: subject }, subject });
    expect(await indexedUnder(accountId, hmac(clear, subject))).toBe(true);
    const item = await keyItem(accountId);
    expect(item).toMatchObject({ sealed_key: expect.any(String) });
    expect(item).not.toHaveProperty('key');
    expect(await erase(key, subject)).toMatchObject({ status: 'done', events: 1 });
    expect((await detail(key, id)).event.payload_erased).toBe(true);
  });
});

describe('a source’s ordering_key_pointer', () => {
  it('copies a payload value into the event’s ordering_key: the erasure clears it, and no line of the key holds it; the key’s line still flows', async () => {
    const { key } = await createAccount(call);
    const source = await call('POST', '/v1/sources', { key, body: { name: 'shop', subject_pointer: '/customer/id', ordering_key_pointer: '/customer/email' } });
    expect(source.status).toBe(201);
    const path = `/ordered-${randomBytes(4).toString('hex')}`;
    const destination = await addDestination(call, key, { url: `${sink.url}${path}`, ordering: 'per_key' });
    await addRoute(call, key, { destination_id: destination.id });
    const email = `${marker('mail')}@example.com`;
    const ingestOne = async (id: string) => {
      const res = await call('POST', `/ingest/${String(source.json.data.path_token)}`, { rawBody: JSON.stringify({ customer: { id, email } }), headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(202);
      return String(res.json.data.id);
    };
    const inbound = async (id: string) => (await call('GET', `/v1/events/${id}`, { key })).json.data as Detail;
    const theirs = await ingestOne('u-ordered');
    const before = await eventually(() => inbound(theirs), (d) => d.event.status === 'delivered');
    expect(before.event.ordering_key).toBe(email);

    expect(await erase(key, 'u-ordered')).toMatchObject({ status: 'done', events: 1 });
    const after = await call('GET', `/v1/events/${theirs}`, { key });
    expect(after.json.data.event).toMatchObject({ payload_erased: true, ordering_key: null });
    expect(after.text).not.toContain(email);
    expect(await everythingStored()).not.toContain(email);

    // Another subject’s event of the same key still joins the key’s line and is delivered behind it.
    const next = await ingestOne('u-other');
    expect((await eventually(() => inbound(next), (d) => d.event.status === 'delivered')).event.ordering_key).toBe(email);
    expect(sink.received.filter((request) => request.path === path)).toHaveLength(2);
  });
});
