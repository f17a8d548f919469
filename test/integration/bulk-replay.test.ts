import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findEventWithBody } from '../../lambdas/events/record';
import { claimReplayCopy, insertReplayJob } from '../../lambdas/replays/record';
import { copyEvent } from '../../lambdas/replays/replay-event';
import { runReplayWorker } from '../../lambdas/replays/worker';
import { newId } from '../../lambdas/shared/secrets';
import { CHILD_START_TIMEOUT_MS, startChildGateway } from '../fixtures/child-gateway';
import { bootGatewayWithSink, DELIVERY_TEST_ENV, SHORT_LEASE_ENV } from '../fixtures/gateway';
import { createAccount, httpClient, type Call } from '../fixtures/http-client';
import { replayJobFactory } from '../fixtures/records';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually, startSink, type ReceivedRequest, type Sink } from '../fixtures/sink';

// One try per delivery and no breaker in the way: an outage dead-letters every event at once.
const OUTAGE_ENV = { HOOKGATE_RETRY_SCHEDULE: '0', HOOKGATE_BREAKER_THRESHOLD: '100000', SCHEDULER_EXPORT_POLL_INTERVAL: '1' };

let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let sink: Sink;
let aDown = true;

beforeAll(async () => {
  env = await bootGatewayWithSink(OUTAGE_ENV);
  ({ call, sink } = env);
  sink.respondWith((request, res) => {
    const failsB = request.body.toString().includes('"b_fails":true');
    if (request.path === '/a' && aDown && !failsB) res.writeHead(503).end('down');
    else if (request.path === '/b' && failsB) res.writeHead(503).end('down');
    else res.writeHead(200).end('ok');
  });
});
afterAll(() => env?.stop());

type Job = { id: string; status: string; matched: number; replayed: number; truncated: boolean; error_message: string | null; filters: Record<string, unknown> };

async function finishedJob(client: Call, key: string, id: string, timeoutMs = 60_000): Promise<Job> {
  return eventually(
    async () => (await client('GET', `/v1/replays/${id}`, { key })).json.data as Job,
    (job) => job.status === 'done' || job.status === 'failed',
    timeoutMs,
  );
}

async function allEvents(client: Call, key: string): Promise<Array<{ id: string; status: string }>> {
  const events = [];
  let cursor: string | null = null;
  do {
    const page = await client('GET', `/v1/events?limit=200${cursor ? `&cursor=${cursor}` : ''}`, { key });
    events.push(...page.json.data);
    cursor = page.json.next_cursor;
  } while (cursor);
  return events;
}

/** Which events (the `x-hookgate-event-id` header: a copy's own id) brought each payload to a path. */
function senders(requests: ReceivedRequest[], path: string): Map<string, Set<string>> {
  const byBody = new Map<string, Set<string>>();
  for (const request of requests.filter((r) => r.path === path)) {
    const body = request.body.toString();
    byBody.set(body, (byBody.get(body) ?? new Set()).add(String(request.headers['x-hookgate-event-id'])));
  }
  return byBody;
}

describe('bulk replay after one destination’s outage', () => {
  let key: string;
  let a: { id: string };
  const payloads = Array.from({ length: 12 }, (_, i) => JSON.stringify({ n: i }));
  const otherFailures = Array.from({ length: 3 }, (_, i) => JSON.stringify({ n: 100 + i, b_fails: true }));

  beforeAll(async () => {
    const setup = await accountWithSource(call);
    key = setup.key;
    a = await addDestination(call, key, { url: `${sink.url}/a` });
    const b = await addDestination(call, key, { url: `${sink.url}/b` });
    await addRoute(call, key, { destination_id: a.id });
    await addRoute(call, key, { destination_id: b.id });
    for (const body of [...payloads, ...otherFailures]) expect((await ingest(call, setup.source.path_token, body)).status).toBe(202);
    // Every event dead-letters: A is down for the twelve, B refuses the other three.
    await eventually(() => allEvents(call, key), (events) => events.length === 15 && events.every((e) => e.status === 'dead_letter'), 30_000);
    aDown = false;
  });

  it('a dry run counts the events whose delivery to that destination failed, and replays nothing', async () => {
    const before = sink.received.length;
    const res = await call('POST', '/v1/replays', { key, body: { direction: 'inbound', destination_id: a.id, dry_run: true } });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ matched: 12, truncated: false });
    const unfiltered = await call('POST', '/v1/replays', { key, body: { direction: 'inbound', dry_run: true } });
    expect(unfiltered.json.data).toEqual({ matched: 15, truncated: false });
    expect((await call('GET', '/v1/replays', { key })).json.data).toEqual([]);
    expect(sink.received.length).toBe(before);
  });

  it('replays each of them once, to that destination only, in the background', async () => {
    const bBefore = sink.received.filter((r) => r.path === '/b').length;
    const res = await call('POST', '/v1/replays', { key, body: { direction: 'inbound', destination_id: a.id } });
    expect(res.status).toBe(202);
    expect(res.json.data).toMatchObject({ status: 'queued', matched: 0, replayed: 0, completed_at: null, error_message: null });
    expect(res.json.data.filters).toEqual({ direction: 'inbound', status: ['dead_letter'], destination_id: a.id });

    const job = await finishedJob(call, key, res.json.data.id);
    expect(job).toMatchObject({ status: 'done', matched: 12, replayed: 12, truncated: false, error_message: null });
    await eventually(() => allEvents(call, key), (events) => events.filter((e) => e.status === 'delivered').length === 12, 30_000);

    const toA = senders(sink.received, '/a');
    for (const body of payloads) {
      // The failed try of the original, then exactly one copy.
      expect(toA.get(body)?.size, body).toBe(2);
    }
    for (const body of otherFailures) expect(toA.get(body)?.size, body).toBe(1); // delivered to A before: not sent again
    expect(sink.received.filter((r) => r.path === '/a' && r.headers['x-webhook-id'] === undefined)).toEqual([]);
    expect(sink.received.filter((r) => r.path === '/b').length).toBe(bBefore);

    const events = await allEvents(call, key);
    expect(events).toHaveLength(27);
    expect(events.filter((e) => e.status === 'replayed')).toHaveLength(12);
    const original = events.find((e) => e.status === 'replayed');
    const detail = await eventDetail(call, key, String(original?.id));
    const copy = await eventDetail(call, key, String(detail.event.replayed_by));
    expect(copy.event.replay_of).toBe(original?.id);
    expect((copy.event.deliveries as Array<{ destination_id: string }>).map((d) => d.destination_id)).toEqual([a.id]);
  });

  it('the same request again finds nothing left to replay', async () => {
    const res = await call('POST', '/v1/replays', { key, body: { direction: 'inbound', destination_id: a.id } });
    expect(await finishedJob(call, key, res.json.data.id)).toMatchObject({ status: 'done', matched: 0, replayed: 0 });
    const jobs = (await call('GET', '/v1/replays', { key })).json.data as Job[];
    expect(jobs.map((j) => j.id)).toEqual([res.json.data.id, jobs[1]?.id]);
    expect(jobs.map((j) => j.replayed)).toEqual([0, 12]);
  });

  it('filters by date: a window before the events matches none', async () => {
    const res = await call('POST', '/v1/replays', { key, body: { direction: 'inbound', status: ['dead_letter', 'replayed'], date_to: '2020-01-01T00:00:00Z', dry_run: true } });
    expect(res.json.data).toEqual({ matched: 0, truncated: false });
    const all = await call('POST', '/v1/replays', { key, body: { direction: 'inbound', status: ['dead_letter', 'replayed'], dry_run: true } });
    expect(all.json.data.matched).toBe(15);
  });
});

describe('a run that resumes after a crash', () => {
  it('finds the copy a claim names instead of making another, and makes the one still missing', async () => {
    const { key, accountId, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/never` });
    await addRoute(call, key, { destination_id: dest.id });
    sink.respondWith((_req, res) => res.writeHead(503).end());
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push((await ingest(call, source.path_token, JSON.stringify({ n }))).json.data.id);
    await eventually(() => allEvents(call, key), (events) => events.length === 3 && events.every((e) => e.status === 'dead_letter'), 30_000);
    const [copied, claimed, untouched] = ids as [string, string, string];

    // What a worker killed mid-page leaves: a job still `running` under a lease that has run out, one
    // event claimed and copied but not yet marked, one claimed only.
    const job = replayJobFactory({ account_id: accountId, status: 'running', lease_token: 'dead-worker', lease_until: new Date(Date.now() - 1000).toISOString() });
    await insertReplayJob(job);
    const expiresAt = Math.floor(Date.now() / 1000) + 86_400;
    const copyOfFirst = (await claimReplayCopy(accountId, copied, job.id, newId(), expiresAt)).copyId;
    const loaded = await findEventWithBody(accountId, copied);
    if (!loaded) throw new Error('event missing');
    const firstCopy = await copyEvent(accountId, loaded, undefined, new Date(Date.now() - 60_000), { copyId: copyOfFirst });
    const copyOfSecond = (await claimReplayCopy(accountId, claimed, job.id, newId(), expiresAt)).copyId;

    await runReplayWorker({ now: () => new Date(), job: { accountId, jobId: job.id }, remainingMs: () => 900_000 });
    const finished = await finishedJob(call, key, job.id);
    expect(finished).toMatchObject({ status: 'done', matched: 3, replayed: 3 });
    expect((await eventDetail(call, key, copied)).event.replayed_by).toBe(copyOfFirst);
    expect((await eventDetail(call, key, copyOfFirst)).event.received_at).toBe(firstCopy.received_at); // not made again
    expect((await eventDetail(call, key, claimed)).event.replayed_by).toBe(copyOfSecond);
    expect((await eventDetail(call, key, copyOfSecond)).event.replay_of).toBe(claimed);
    expect((await eventDetail(call, key, untouched)).event.status).toBe('replayed');
    expect(await allEvents(call, key)).toHaveLength(6);
    sink.respondWith((_req, res) => res.writeHead(200).end('ok'));
  });
});

describe('a run near its Lambda timeout', () => {
  it('stops after a checkpoint and lets the next run finish the job, each event once', async () => {
    const { key, accountId, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/paused` });
    await addRoute(call, key, { destination_id: dest.id });
    sink.respondWith((_req, res) => res.writeHead(503).end());
    for (const n of [1, 2, 3]) await ingest(call, source.path_token, JSON.stringify({ n }));
    await eventually(() => allEvents(call, key), (events) => events.length === 3 && events.every((e) => e.status === 'dead_letter'), 30_000);
    sink.respondWith((_req, res) => res.writeHead(200).end('ok'));

    // Held under a lease another worker took a minute ago; the runs below act from a clock past it, so
    // the gateway's own schedule (on the real clock) cannot take the job in between.
    const job = replayJobFactory({ account_id: accountId, status: 'running', lease_token: 'other', lease_until: new Date(Date.now() + 60_000).toISOString() });
    await insertReplayJob(job);
    const later = (seconds: number) => () => new Date(Date.now() + seconds * 1000);
    let calls = 0;
    // Time enough to start, then only the safety margin's worth: the run must stop after its first page.
    const remainingMs = () => (calls++ === 0 ? 900_000 : 30_000);
    const first = await runReplayWorker({ now: later(90), job: { accountId, jobId: job.id }, remainingMs });
    expect(first.processed).toEqual([{ id: job.id, result: 'paused' }]);
    const paused = (await call('GET', `/v1/replays/${job.id}`, { key })).json.data as Job;
    expect(paused).toMatchObject({ status: 'running', matched: 3, replayed: 3 });
    const second = await runReplayWorker({ now: later(95), job: { accountId, jobId: job.id }, remainingMs: () => 900_000 });
    expect(second.processed).toEqual([{ id: job.id, result: 'finished' }]);

    const done = await finishedJob(call, key, job.id);
    expect(done).toMatchObject({ status: 'done', matched: 3, replayed: 3 });
    const events = await allEvents(call, key);
    expect(events).toHaveLength(6);
    expect(events.filter((e) => e.status === 'replayed')).toHaveLength(3);
  });
});

describe('bulk replay refuses what it cannot do', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['no direction', {}, 'direction'],
    ['a status in flight', { direction: 'inbound', status: ['queued'] }, 'status.0 must be one of'],
    ['a repeated status', { direction: 'inbound', status: ['dead_letter', 'dead_letter'] }, 'status must not repeat a value'],
    ['an empty status list', { direction: 'inbound', status: [] }, 'status'],
    ['a destination of no one', { direction: 'inbound', destination_id: '01970c6e-0000-7000-8000-000000000000' }, 'destination_id does not match a destination of this account'],
    ['a source for outbound events', { direction: 'outbound', source_id: '01970c6e-0000-7000-8000-000000000000' }, 'source_id applies to inbound events only'],
    ['dates the wrong way round', { direction: 'inbound', date_from: '2026-02-01T00:00:00Z', date_to: '2026-01-01T00:00:00Z' }, 'date_from must not be after date_to'],
    ['an unknown field', { direction: 'inbound', colour: 'red' }, 'unknown field: colour'],
  ])('%s: 400', async (_name, body, message) => {
    const { key } = await createAccount(call);
    const res = await call('POST', '/v1/replays', { key, body });
    expect(res.status).toBe(400);
    expect(res.json.error).toContain(message);
    expect((await call('GET', '/v1/replays', { key })).json.data).toEqual([]);
  });

  it("another account's destination and job are not found", async () => {
    const owner = await accountWithSource(call);
    const theirs = await addDestination(call, owner.key, { url: `${sink.url}/theirs` });
    const job = await call('POST', '/v1/replays', { key: owner.key, body: { direction: 'inbound' } });
    expect(job.status).toBe(202);
    const { key } = await createAccount(call);
    expect((await call('POST', '/v1/replays', { key, body: { direction: 'inbound', destination_id: theirs.id } })).status).toBe(400);
    expect((await call('GET', `/v1/replays/${job.json.data.id}`, { key })).status).toBe(404);
    expect((await call('GET', '/v1/replays', { key })).json.data).toEqual([]);
  });
});

/** A replay job's status as a stopped gateway's local DynamoDB holds it on disk. */
async function storedJobStatus(dataDir: string, jobId: string): Promise<string | undefined> {
  const db = new Level<string, Record<string, { S?: string }>>(join(dataDir, 'dynamodb'), { valueEncoding: 'json' });
  try {
    for await (const value of db.values()) {
      if (value?.sk?.S === `REPLAY#${jobId}` && value.status?.S) return value.status.S;
    }
    throw new Error(`replay job ${jobId} is not in ${dataDir}`);
  } finally {
    await db.close();
  }
}

describe('a bulk replay killed with SIGKILL mid-job', () => {
  it('resumes after a restart and replays every event exactly once', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'hookgate-replay-crash-'));
    const childEnv = { ...DELIVERY_TEST_ENV, ...OUTAGE_ENV, ...SHORT_LEASE_ENV, HOOKGATE_REPLAY_LEASE_SECONDS: '2', HOOKGATE_DATA_DIR: dataDir };
    let down = true;
    const target = await startSink((_req, res) => res.writeHead(down ? 503 : 200).end());
    let gateway = await startChildGateway(childEnv);
    const total = 150;
    try {
      let child = httpClient(gateway.url);
      const { key, source } = await accountWithSource(child);
      const dest = await addDestination(child, key, { url: `${target.url}/r` });
      await addRoute(child, key, { destination_id: dest.id });
      for (let start = 0; start < total; start += 25) {
        await Promise.all(Array.from({ length: 25 }, (_, i) => ingest(child, source.path_token, JSON.stringify({ n: start + i }))));
      }
      await eventually(() => allEvents(child, key), (events) => events.length === total && events.every((e) => e.status === 'dead_letter'), 60_000);
      down = false;

      const created = await child('POST', '/v1/replays', { key, body: { direction: 'inbound', destination_id: dest.id } });
      expect(created.status).toBe(202);
      // Killed once copies are arriving. What the kill left is read from the stopped gateway's data,
      // where it no longer moves: a read before the kill could see a job that then ended.
      await eventually(async () => target.received.filter((r) => r.path === '/r').length, (n) => n > total + 5, 60_000);
      await gateway.kill('SIGKILL');
      expect(await storedJobStatus(dataDir, created.json.data.id), 'the kill came after the job ended: nothing to resume').not.toBe('done');

      gateway = await startChildGateway(childEnv);
      child = httpClient(gateway.url);
      const job = await finishedJob(child, key, created.json.data.id, 120_000);
      expect(job).toMatchObject({ status: 'done', matched: total, replayed: total });

      const events = await allEvents(child, key);
      expect(events).toHaveLength(2 * total); // one copy per original, no more
      expect(events.filter((e) => e.status === 'replayed')).toHaveLength(total);
      // A try cut short by the kill may be sent again (at least once), but always as the same copy.
      await eventually(async () => senders(target.received, '/r'), (bySender) => bySender.size === total && [...bySender.values()].every((ids) => ids.size === 2), 60_000);
    } finally {
      await gateway.kill('SIGTERM');
      await target.close();
      await rm(dataDir, { recursive: true, force: true });
    }
    // More than its waits one after the other (two starts; dead-lettered, copies arriving, the job done,
    // every copy delivered) and a minute for the requests between them: a wait that runs out fails as itself.
  }, 2 * CHILD_START_TIMEOUT_MS + 60_000 + 60_000 + 120_000 + 60_000 + 60_000);
});
