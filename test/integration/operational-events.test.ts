import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGatewayWithSink } from '../fixtures/gateway';
import type { Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually, type ReceivedRequest, type Sink } from '../fixtures/sink';

let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let sink: Sink;
const failing = new Set<string>();

beforeAll(async () => {
  env = await bootGatewayWithSink();
  ({ call, sink } = env);
  sink.respondWith((req, res) => res.writeHead(failing.has(req.path) ? 500 : 200).end());
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

async function opsAccount(opsPath: string) {
  const account = await accountWithSource(call);
  const ops = await addDestination(call, account.key, { url: `${sink.url}${opsPath}`, retry_schedule: [0] });
  await addRoute(call, account.key, { destination_id: ops.id, event_type_pattern: 'hookgate.*' });
  return { ...account, ops };
}

async function hookgateEvents(key: string) {
  const res = await call('GET', '/v1/outbound-events?limit=200', { key });
  return (res.json.data as Array<{ id: string; event_type: string }>).filter((e) => e.event_type?.startsWith('hookgate.'));
}

describe('operational webhooks', () => {
  it('announce dead letters and the breaker opening and recovering, signed, at the ops endpoint', async () => {
    const { key, source, ops } = await opsAccount('/ops-a');
    failing.add('/app-a');
    const app = await addDestination(call, key, { url: `${sink.url}/app-a`, retry_schedule: [0, 1] });
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
    const opened = noticesAt('/ops-a').filter((n) => n.type === 'hookgate.destination.opened');
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
    const { key, source, ops } = await opsAccount('/ops-down');
    failing.add('/ops-down');
    failing.add('/app-b');
    const app = await addDestination(call, key, { url: `${sink.url}/app-b`, retry_schedule: [0] });
    await addRoute(call, key, { destination_id: app.id, source_id: source.id });
    for (let i = 0; i < 6; i++) await ingest(call, source.path_token, JSON.stringify({ i }));

    // 6 dead letters and the app's breaker opening: 7 notices, each tried once at the ops endpoint and failing there.
    await eventually(() => hookgateEvents(key), (events) => events.length >= 7, 20_000);
    await sink.waitForPath('/ops-down', 7, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const events = await hookgateEvents(key);
    expect(events).toHaveLength(7);
    for (const event of events) {
      const detail = await eventDetail(call, key, event.id, '/v1/outbound-events');
      expect(JSON.parse(String(detail.event.body)).data.destination_id).toBe(app.id);
    }
    const opsHealth = (await call('GET', `/v1/destinations/${ops.id}`, { key })).json.data.health;
    expect(opsHealth.state).toBe('open'); // its own breaker opened, and nobody was told: that would loop
  });

  it('auto-disables a destination that only failed for auto_disable_after_hours, and says so', async () => {
    const { key, source } = await opsAccount('/ops-c');
    failing.add('/app-c');
    const app = await addDestination(call, key, {
      url: `${sink.url}/app-c`,
      retry_schedule: Array.from({ length: 20 }, (_, i) => (i === 0 ? 0 : 1)),
      auto_disable_after_hours: 0.001,
    });
    expect((await call('GET', `/v1/destinations/${app.id}`, { key })).json.data.auto_disable_after_hours).toBe(0.001);
    await addRoute(call, key, { destination_id: app.id, source_id: source.id });
    const id = (await ingest(call, source.path_token, '{"n":1}')).json.data.id as string;

    const disabled = await eventually(
      async () => (await call('GET', `/v1/destinations/${app.id}`, { key })).json.data,
      (d) => d.active === false,
      30_000,
    );
    expect(disabled.health.state).toBe('disabled');
    expect(disabled.disabled_reason).toMatch(/^every delivery failed for 0\.001 hours \(since /);
    const notice = (await eventually(async () => noticesAt('/ops-c').filter((n) => n.type === 'hookgate.destination.disabled'), (n) => n.length === 1))[0]!;
    expect(notice.data).toMatchObject({ destination_id: app.id, reason: disabled.disabled_reason });
    const detail = await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'dead_letter', 20_000);
    expect((detail.event.deliveries as Array<{ end_reason: string | null }>)[0]!.end_reason).toBe('destination_inactive');
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
});
