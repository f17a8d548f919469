import { createHmac } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGatewayWithSink } from '../fixtures/gateway';
import { createAccount, typedClient, type Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { queueDrained as drained } from '../fixtures/sqs';
import { eventually, type ReceivedRequest, type Sink } from '../fixtures/sink';

let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let sink: Sink;
const failing = new Set<string>();
/** Paths whose requests wait unanswered until `release`: a try kept in flight while the test looks. */
const holding = new Set<string>();
const held: Array<{ path: string; res: ServerResponse }> = [];

beforeAll(async () => {
  env = await bootGatewayWithSink();
  ({ call, sink } = env);
  sink.respondWith((req, res) => {
    if (holding.has(req.path)) held.push({ path: req.path, res });
    else res.writeHead(failing.has(req.path) ? 500 : 200).end();
  });
});
afterAll(() => env?.stop());

interface Notice {
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}
const noticesAt = (path: string) => sink.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body.toString('utf8')) as Notice);

function expectSignedBy(request: ReceivedRequest, secret: string) {
  const header = String(request.headers['webhook-signature']);
  const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header) ?? [];
  const expected = createHmac('sha256', secret).update(`${t}.${request.body.toString('utf8')}`).digest('hex');
  expect(v1).toBe(expected);
}

async function opsAccount(opsPath: string, opsBody: Record<string, unknown> = {}) {
  const account = await accountWithSource(call);
  const ops = await addDestination(call, account.key, { url: `${sink.url}${opsPath}`, retry_schedule: [0], ...opsBody });
  await addRoute(call, account.key, { destination_id: ops.id, event_type_pattern: 'hookgate.*' });
  return { ...account, ops };
}

/**
 * The positive sign that the work is over: the delivery queue is empty, every task done (with it any
 * notice a task publishes after its try) and every breaker's wake gone (the cooldown here is 1 s).
 */
const QUEUE_DRAIN_MS = 45_000;
/**
 * The timeout of an endpoint whose breaker is probed: a probe holds the breaker, and sends a wake for
 * the hold's end, for the longest its try may take plus a margin (30 s at the default 15 s timeout),
 * and the queue, which every test here shares, is drained only once that wake came. The sink answers
 * at once, well within it.
 */
const PROBED_TIMEOUT_MS = 2000;
const queueDrained = () => drained(env.gateway.resources.deliveryQueueUrl, QUEUE_DRAIN_MS);

async function hookgateEvents(key: string) {
  const page = await typedClient(call, key).outboundEvents.list({ limit: 200 });
  return page.data.filter((e) => e.event_type?.startsWith('hookgate.'));
}

describe('operational webhooks', () => {
  it('announce dead letters and the breaker opening and recovering, signed, at the ops endpoint', async () => {
    const { key, source, ops } = await opsAccount('/ops-a');
    failing.add('/app-a');
    const app = await addDestination(call, key, { url: `${sink.url}/app-a`, retry_schedule: [0, 1], timeout_ms: PROBED_TIMEOUT_MS });
    await addRoute(call, key, { destination_id: app.id, source_id: source.id });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await ingest(call, source.path_token, JSON.stringify({ i }))).json.data.id as string);
    for (const id of ids) await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'dead_letter', 20_000);

    await eventually(async () => noticesAt('/ops-a').filter((n) => n.type === 'hookgate.delivery.dead_lettered').length, (n) => n === 3);
    const dead = noticesAt('/ops-a').filter((n) => n.type === 'hookgate.delivery.dead_lettered');
    expect(dead.map((n) => n.data.event_id).sort()).toEqual([...ids].sort());
    expect(dead[0]!.data).toMatchObject({
      destination_id: app.id,
      direction: 'inbound',
      end_reason: null,
      last_attempt: { attempt_number: 2, outcome: 'http_error', response_status: 500, error: null, attempted_at: expect.any(String) },
    });
    // The breaker's notice is published after the try that opened it: it may come after the dead letters'.
    const opened = await eventually(async () => noticesAt('/ops-a').filter((n) => n.type === 'hookgate.destination.opened'), (found) => found.length >= 1);
    expect(opened).toHaveLength(1);
    expect(opened[0]!.data).toMatchObject({ destination_id: app.id, consecutive_failures: 5, url: `${sink.url}/app-a` });
    for (const request of sink.received.filter((r) => r.path === '/ops-a')) {
      expectSignedBy(request, ops.signing_secret);
      expect(String(request.headers['x-event-type'])).toMatch(/^hookgate\./);
    }

    failing.delete('/app-a');
    const healed = (await ingest(call, source.path_token, '{"healed":true}')).json.data.id as string;
    await eventually(() => eventDetail(call, key, healed), (d) => d.event.status === 'delivered', 20_000);
    await eventually(async () => noticesAt('/ops-a').filter((n) => n.type === 'hookgate.destination.recovered').length, (n) => n === 1);
    expect(noticesAt('/ops-a').find((n) => n.type === 'hookgate.destination.recovered')!.data).toMatchObject({ destination_id: app.id });
    const published = await hookgateEvents(key);
    expect(published).toHaveLength(5);
    const detail = await eventDetail(call, key, published[0]!.id, '/v1/outbound-events');
    expect(detail.event.created_by).toBe('hookgate');
  });

  it('never loop: an ops endpoint that is down causes no event about itself', async () => {
    const { key, source, ops } = await opsAccount('/ops-down', { timeout_ms: PROBED_TIMEOUT_MS });
    failing.add('/ops-down');
    failing.add('/app-b');
    const app = await addDestination(call, key, { url: `${sink.url}/app-b`, retry_schedule: [0], timeout_ms: PROBED_TIMEOUT_MS });
    await addRoute(call, key, { destination_id: app.id, source_id: source.id });
    for (let i = 0; i < 6; i++) await ingest(call, source.path_token, JSON.stringify({ i }));

    // 6 dead letters and the app's breaker opening: 7 notices, each tried once at the ops endpoint and failing there.
    await eventually(() => hookgateEvents(key), (events) => events.length >= 7, 20_000);
    await sink.waitForPath('/ops-down', 7, 20_000);
    // A notice about the ops endpoint's own breaker would follow its opening: once it is open and every
    // task is done, it would be there.
    await eventually(async () => (await typedClient(call, key).destinations.get(ops.id)).health.state, (state) => state === 'open', 20_000);
    await queueDrained();
    const events = await hookgateEvents(key);
    expect(events).toHaveLength(7);
    for (const event of events) {
      const detail = await eventDetail(call, key, event.id, '/v1/outbound-events');
      expect(JSON.parse(String(detail.event.body)).data.destination_id).toBe(app.id);
    }
    const opsHealth = (await typedClient(call, key).destinations.get(ops.id)).health;
    expect(opsHealth.state).toBe('open'); // its own breaker opened, and nobody was told: that would loop
  }, QUEUE_DRAIN_MS + 60_000);

  it('auto-disables a destination that only failed for auto_disable_after_hours, and says so', async () => {
    const { key, source } = await opsAccount('/ops-c');
    failing.add('/app-c');
    const app = await addDestination(call, key, {
      url: `${sink.url}/app-c`,
      retry_schedule: Array.from({ length: 20 }, (_, i) => (i === 0 ? 0 : 1)),
      auto_disable_after_hours: 0.001,
    });
    const hookgate = typedClient(call, key);
    expect((await hookgate.destinations.get(app.id)).auto_disable_after_hours).toBe(0.001);
    await addRoute(call, key, { destination_id: app.id, source_id: source.id });
    const id = (await ingest(call, source.path_token, '{"n":1}')).json.data.id as string;

    const disabled = await eventually(() => hookgate.destinations.get(app.id), (d) => d.active === false, 30_000);
    expect(disabled.health.state).toBe('disabled');
    expect(disabled.disabled_reason).toMatch(/^every delivery failed for 0\.001 hours \(since /);
    const notice = (await eventually(async () => noticesAt('/ops-c').filter((n) => n.type === 'hookgate.destination.disabled'), (n) => n.length === 1))[0]!;
    expect(notice.data).toMatchObject({ destination_id: app.id, reason: disabled.disabled_reason });
    // Its delivery waits for the destination to be switched back on, no try spent meanwhile.
    const detail = await eventually(() => eventDetail(call, key, id), (d) => d.event.deliveries[0]!.waiting?.reason === 'paused', 20_000);
    expect(detail.event.deliveries[0]).toMatchObject({ status: 'retry_scheduled', waiting: { reason: 'paused', until: null } });
  });

  it('refuses hookgate.* types from tenants and providers', async () => {
    const { key, source } = await accountWithSource(call);
    const published = await call('POST', '/v1/outbound-events', { key, body: { payload: '{}', event_type: 'hookgate.destination.disabled' } });
    expect(published.status).toBe(400);
    expect(published.json.error).toBe('event_type must not start with hookgate. (reserved for operational events)');
    const ingested = await ingest(call, source.path_token, '{}', { 'x-event-type': 'hookgate.delivery.dead_lettered' });
    expect(ingested.status).toBe(400);
    expect(ingested.json.error).toBe('X-Event-Type must not start with hookgate. (reserved for operational events)');
  });

  it('refuses the reserved prefix in any letter case, wherever a tenant names a type', async () => {
    const { key, source } = await accountWithSource(call);
    const single = await call('POST', '/v1/outbound-events', { key, body: { payload: '{}', event_type: 'HookGate.x' } });
    expect([single.status, single.json.error]).toEqual([400, 'event_type must not start with hookgate. (reserved for operational events)']);
    const batch = await call('POST', '/v1/outbound-events/batch', { key, body: { events: [{ payload: '{}', event_type: 'HOOKGATE.delivery.failed' }, { payload: '{}', event_type: 'hookgate_ok' }] } });
    expect(batch.json.data.map((item: { status: number }) => item.status)).toEqual([400, 201]);
    expect(batch.json.data[0].error).toBe('event_type must not start with hookgate. (reserved for operational events)');
    const catalog = await call('POST', '/v1/event-types', { key, body: { name: 'Hookgate.delivery.dead_lettered' } });
    expect([catalog.status, catalog.json.error]).toEqual([400, 'name must not start with hookgate. (reserved for operational events)']);
    const ingested = await ingest(call, source.path_token, '{}', { 'x-event-type': 'hookGATE.destination.disabled' });
    expect([ingested.status, ingested.json.error]).toEqual([400, 'X-Event-Type must not start with hookgate. (reserved for operational events)']);
    // Nothing of those was stored: only the batch's other event.
    const hookgate = typedClient(call, key);
    expect((await hookgate.outboundEvents.list()).data.map((e) => e.event_type)).toEqual(['hookgate_ok']);
    expect((await hookgate.events.list()).data).toEqual([]);
    expect((await call('GET', '/v1/event-types', { key })).json.data).toEqual([]);
  });
});

describe('operational events only where a route takes them', () => {
  /** Answers the held tries of `path` as it now answers (a 500 once it is failing), and stops holding. */
  function release(path: string) {
    holding.delete(path);
    for (const { res } of held.filter((h) => h.path === path)) res.writeHead(failing.has(path) ? 500 : 200).end();
  }

  async function exportedIds(key: string): Promise<string[]> {
    const created = await call('POST', '/v1/exports', { key, body: {} });
    expect(created.status).toBe(201);
    const hookgate = typedClient(call, key);
    const job = await eventually(() => hookgate.exports.get(created.json.data.id), (j) => j.status === 'ready' || j.status === 'failed', 30_000);
    expect(job.status).toBe('ready');
    const location = await hookgate.exports.downloadUrl(job.id);
    return ((await (await fetch(location)).json()) as Array<{ id: string }>).map((row) => row.id).sort();
  }

  const listedTypes = async (key: string) =>
    (await typedClient(call, key).outboundEvents.list({ limit: 200 })).data.map((e) => e.event_type).sort();

  /** An account that publishes 9 events; the 5 `order.paid` also go to a destination that dead-letters them and opens its breaker. */
  async function publisher(name: string, opsPattern: string | null) {
    const { key } = await createAccount(call);
    const ok = await addDestination(call, key, { url: `${sink.url}/${name}-ok` });
    const down = await addDestination(call, key, { url: `${sink.url}/${name}-down`, retry_schedule: [0], timeout_ms: 30_000 });
    await addRoute(call, key, { destination_id: ok.id, event_type_pattern: 'order.*' });
    await addRoute(call, key, { destination_id: down.id, event_type_pattern: 'order.paid' });
    if (opsPattern) {
      const ops = await addDestination(call, key, { url: `${sink.url}/${name}-ops` });
      await addRoute(call, key, { destination_id: ops.id, event_type_pattern: opsPattern });
    }
    failing.add(`/${name}-down`);
    holding.add(`/${name}-down`);
    const published: string[] = [];
    for (let i = 0; i < 9; i++) {
      const res = await call('POST', '/v1/outbound-events', { key, body: { payload: JSON.stringify({ i }), event_type: i < 5 ? 'order.paid' : 'order.created' } });
      expect(res.status).toBe(201);
      published.push(res.json.data.id as string);
    }
    return { key, down, published: published.sort(), paid: published.slice(0, 5) };
  }

  it('an account that never routed hookgate.* exports and lists exactly the 9 events it published, before and after a destination dead-letters; one that routed hookgate.delivery.* gets those and no others', async () => {
    const quiet = await publisher('quiet', null);
    const subscribed = await publisher('subscribed', 'hookgate.delivery.*');
    await sink.waitForPath('/quiet-down', 1, 20_000);

    // Before: a try is still in flight, nothing has failed yet.
    expect(await exportedIds(quiet.key)).toEqual(quiet.published);
    expect((await eventDetail(call, quiet.key, quiet.paid[0]!, '/v1/outbound-events')).event.status).not.toBe('dead_letter');

    release('/quiet-down');
    release('/subscribed-down');
    for (const { key, paid } of [quiet, subscribed]) {
      for (const id of paid) await eventually(() => eventDetail(call, key, id, '/v1/outbound-events'), (d) => d.event.status === 'dead_letter', 20_000);
    }
    for (const { key, down } of [quiet, subscribed]) {
      await eventually(async () => (await typedClient(call, key).destinations.get(down.id)).health.state, (state) => state === 'open', 20_000);
    }
    // The subscribed account's five notices are there, so the quiet account's would be by now.
    await eventually(() => listedTypes(subscribed.key), (types) => types.filter((t) => t === 'hookgate.delivery.dead_lettered').length === 5, 20_000);
    await queueDrained(); // every task done: a notice it would publish is published

    expect(await exportedIds(quiet.key)).toEqual(quiet.published);
    expect(await listedTypes(quiet.key)).toEqual([...Array(4).fill('order.created'), ...Array(5).fill('order.paid')]);
    // The breaker opened there too, but no route takes hookgate.destination.opened: not created.
    expect(await listedTypes(subscribed.key)).toEqual([...Array(5).fill('hookgate.delivery.dead_lettered'), ...Array(4).fill('order.created'), ...Array(5).fill('order.paid')]);
    expect(await exportedIds(subscribed.key)).toHaveLength(14);
  }, 120_000);
});
