import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as sweeper } from '../../lambdas/handlers/sweeper';
import { createLocalClients, type LocalClients } from '../../local/aws-clients';
import { runAs } from '../../local/sdk-hooks';
import { expireItems } from '../../local/ttl';
import { bootGatewayWithSink } from '../fixtures/gateway';
import { createAccount, typedClient, type Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest, proveOwnership } from '../fixtures/setup';
import { eventually, type Sink } from '../fixtures/sink';

/**
 * The specification, part 1, rule 5: "Events in `queued`, `delivering` or `retry_scheduled` are never
 * deleted by retention." A free account's window is one day. Its events wait (a failing endpoint's
 * retries, an open breaker, a paused destination, an ordering line, an endpoint that has not proved
 * its ownership) while the sweeper runs with its clock two, then ten days ahead, and DynamoDB's TTL
 * (which dynalite lacks: `expireItems`) deletes what it would have by then. Every event survives with
 * its attempts, is delivered once what held it lets go, and only then goes on the sweeper's next pass.
 * Everything else runs on the wall clock.
 */

const DAY_MS = 86_400_000;

let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let sink: Sink;
let clients: LocalClients;
const down = new Set(['/flaky', '/lined']);

beforeAll(async () => {
  // The test invokes the sweeper itself; the breaker opens after 3 failures and probes every 2 s.
  env = await bootGatewayWithSink({
    SCHEDULER_RETENTION_INTERVAL: '3600',
    SCHEDULER_EXPORT_POLL_INTERVAL: '3600',
    HOOKGATE_BREAKER_THRESHOLD: '3',
    HOOKGATE_BREAKER_COOLDOWN_SECONDS: '2',
  });
  ({ call, sink } = env);
  clients = createLocalClients(env.gateway.endpoints);
  sink.respondWith((req, res) => (down.has(req.path) ? res.writeHead(503).end('down') : res.writeHead(200).end('ok')));
});
afterAll(async () => {
  clients?.destroy();
  await env?.stop();
});

/** As the sweeper function, so its calls are held to its role (local IAM, from the synthesised stack). */
const runSweeper = (nowMs: number) => runAs('hookgate-sweeper', () => sweeper({ time: new Date(nowMs).toISOString() }));
/** What DynamoDB's TTL would have deleted by then. */
const ttlPass = (nowMs: number) => expireItems(clients.dynamodb, env.gateway.resources.tableName, nowMs);
const bodiesAt = (path: string) => sink.received.filter((r) => r.path === path && !r.body.toString().includes('hookgate.endpoint.verification')).map((r) => JSON.parse(r.body.toString()) as Record<string, unknown>);
const health = async (key: string, id: string) => (await typedClient(call, key).destinations.get(id)).health;

describe('retention and events that still wait (rule 5)', () => {
  it('keeps retrying, breaker-held, paused, ordering-held and verification-held events past the window with their attempts; delivers them; deletes them once settled', async () => {
    const { key, source } = await accountWithSource(call);
    const hookgate = typedClient(call, key);
    // Three quick tries open the breaker; the rest are far enough apart to outlast the test's waits.
    const retries = [0, 1, 1, ...Array(17).fill(10)];
    const flaky = await addDestination(call, key, { url: `${sink.url}/flaky`, retry_schedule: retries });
    await addRoute(call, key, { destination_id: flaky.id, event_type_pattern: 'order.flaky' });
    const paused = await addDestination(call, key, { url: `${sink.url}/paused`, active: false });
    // Inbound: the source's webhooks go to the paused destination.
    await addRoute(call, key, { destination_id: paused.id, source_id: source.id });
    const lined = await addDestination(call, key, { url: `${sink.url}/lined`, retry_schedule: retries, ordering: 'per_key' });
    await addRoute(call, key, { destination_id: lined.id, event_type_pattern: 'order.lined' });
    const unverified = await addDestination(call, key, { url: `${sink.url}/unverified`, verify_ownership: true });
    await addRoute(call, key, { destination_id: unverified.id, event_type_pattern: 'order.unverified' });

    // Retrying: its endpoint fails until its breaker opens, then the breaker's probes fail too.
    const retrying = (await hookgate.outboundEvents.publish({ event_type: 'order.flaky', payload: { n: 'retrying' } })).id;
    await eventually(() => health(key, flaky.id), (h) => h.state === 'open', 30_000);
    // Breaker-held: published while its breaker is open, it is parked behind it.
    const behindBreaker = (await hookgate.outboundEvents.publish({ event_type: 'order.flaky', payload: { n: 'breaker' } })).id;
    const heldByPause = (await ingest(call, source.path_token, JSON.stringify({ n: 'paused' }))).json.data.id as string;
    const head = (await hookgate.outboundEvents.publish({ event_type: 'order.lined', payload: { n: 'a1' }, ordering_key: 'a' })).id;
    const lineWaiter = (await hookgate.outboundEvents.publish({ event_type: 'order.lined', payload: { n: 'a2' }, ordering_key: 'a' })).id;
    const heldForProof = (await hookgate.outboundEvents.publish({ event_type: 'order.unverified', payload: { n: 'unverified' } })).id;

    const outbound = (id: string) => eventDetail(call, key, id, '/v1/outbound-events');
    await eventually(() => outbound(behindBreaker), (d) => d.event.deliveries[0]?.waiting?.reason === 'breaker_open' || d.attempts.length > 0, 20_000);
    await eventually(() => eventDetail(call, key, heldByPause), (d) => d.event.deliveries[0]?.waiting?.reason === 'paused', 20_000);
    await eventually(() => outbound(head), (d) => d.attempts.length >= 1, 20_000);
    await eventually(() => outbound(lineWaiter), (d) => d.event.deliveries[0]?.waiting?.reason === 'ordering', 20_000);
    await eventually(() => outbound(heldForProof), (d) => d.event.deliveries[0]?.waiting?.reason === 'unverified', 20_000);
    const waiting = { retrying, behindBreaker, head, lineWaiter, heldForProof };
    const attemptsBefore = new Map<string, string[]>();
    for (const id of Object.values(waiting)) attemptsBefore.set(id, (await outbound(id)).attempts.map((a) => a.id));
    expect(attemptsBefore.get(retrying)!.length).toBeGreaterThanOrEqual(3);

    // Two days on, past the one-day window: nothing is ended or deleted, nothing is due for a keep yet.
    const twoDays = await runSweeper(Date.now() + 2 * DAY_MS);
    expect(twoDays).toMatchObject({ kept_waiting: 6, ttl_kept: 0, deleted_events: 0, skipped_unsettled: 0, failed_accounts: 0 });
    // Ten days on, past the window and TTL's margin: the sweeper pushes their TTLs out, so TTL takes nothing of them.
    const tenDays = Date.now() + 10 * DAY_MS;
    const kept = await runSweeper(tenDays);
    expect(kept).toMatchObject({ kept_waiting: 6, deleted_events: 0, failed_accounts: 0 });
    expect(kept.ttl_kept).toBeGreaterThanOrEqual(6);
    await ttlPass(tenDays);

    for (const id of Object.values(waiting)) {
      const detail = await outbound(id);
      expect(['queued', 'delivering', 'retry_scheduled']).toContain(detail.event.status);
      expect(detail.attempts.map((a) => a.id)).toEqual(expect.arrayContaining(attemptsBefore.get(id)!));
    }
    expect(['queued', 'delivering']).toContain((await eventDetail(call, key, heldByPause)).event.status);
    expect((await hookgate.events.list({ limit: 10 })).data.map((e) => e.id)).toContain(heldByPause);

    // What held them lets go: the endpoints recover, the paused destination is switched on, the other proves its ownership.
    down.clear();
    await hookgate.destinations.update(paused.id, { active: true });
    await proveOwnership(call, key, sink, unverified.id, '/unverified');
    for (const id of Object.values(waiting)) await eventually(() => outbound(id), (d) => d.event.status === 'delivered', 60_000);
    await eventually(() => eventDetail(call, key, heldByPause), (d) => d.event.status === 'delivered', 30_000);

    // Each arrives with its own payload (its body outlived TTL's margin); a2 only after a1.
    expect(bodiesAt('/flaky').filter((b) => b.n === 'retrying').length).toBeGreaterThanOrEqual(4);
    expect(bodiesAt('/flaky').map((b) => b.n)).toContain('breaker');
    expect(bodiesAt('/paused')).toEqual([{ n: 'paused' }]);
    expect(bodiesAt('/unverified')).toEqual([{ n: 'unverified' }]);
    const line = bodiesAt('/lined').map((b) => b.n);
    expect(line.indexOf('a2')).toBeGreaterThan(line.lastIndexOf('a1'));
    expect(line.filter((n) => n === 'a2')).toHaveLength(1);

    // Settled, and older than their window by the sweeper's clock: its next pass deletes every one.
    const after = await runSweeper(tenDays);
    expect(after).toMatchObject({ kept_waiting: 0, deleted_events: 6, failed_accounts: 0 });
    for (const id of Object.values(waiting)) expect((await call('GET', `/v1/outbound-events/${id}`, { key })).status).toBe(404);
    expect((await call('GET', `/v1/events/${heldByPause}`, { key })).status).toBe(404);
  });
});

describe('POST /v1/destinations/{id}/end-held', () => {
  it('ends what a paused destination holds as held_ended dead letters, announced; GET shows the count and the oldest first', async () => {
    const { key } = await createAccount(call, { name: 'end held' });
    const hookgate = typedClient(call, key);
    const ops = await addDestination(call, key, { url: `${sink.url}/ops`, retry_schedule: [0] });
    await addRoute(call, key, { destination_id: ops.id, event_type_pattern: 'hookgate.*' });
    const paused = await addDestination(call, key, { url: `${sink.url}/forgotten`, active: false });
    await addRoute(call, key, { destination_id: paused.id, event_type_pattern: 'order.*' });

    const first = (await hookgate.outboundEvents.publish({ event_type: 'order.held', payload: { n: 1 } })).id;
    const firstAt = (await eventDetail(call, key, first, '/v1/outbound-events')).event.received_at;
    const second = (await hookgate.outboundEvents.publish({ event_type: 'order.held', payload: { n: 2 } })).id;
    const shown = await eventually(() => health(key, paused.id), (h) => h.held === 2, 20_000);
    expect(Date.parse(shown.oldest_held_since!)).toBeGreaterThanOrEqual(Date.parse(firstAt) - 1000);
    expect(Date.parse(shown.oldest_held_since!)).toBeLessThanOrEqual(Date.now());

    // Nobody else's: another account's key finds no such destination.
    const other = await createAccount(call, { name: 'someone else' });
    expect((await call('POST', `/v1/destinations/${paused.id}/end-held`, { key: other.key })).status).toBe(404);

    const res = await call('POST', `/v1/destinations/${paused.id}/end-held`, { key });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ ended: 2, held: 0 });
    expect(await health(key, paused.id)).toMatchObject({ held: 0, oldest_held_since: null });
    for (const id of [first, second]) {
      const detail = await eventDetail(call, key, id, '/v1/outbound-events');
      expect(detail.event.status).toBe('dead_letter');
      expect(detail.event.deliveries).toEqual([expect.objectContaining({ destination_id: paused.id, status: 'dead_letter', attempts: 0, end_reason: 'held_ended', waiting: null })]);
    }
    const notices = await sink.waitForPath('/ops', 2, 20_000);
    expect(notices.map((r) => JSON.parse(r.body.toString()) as { type: string; data: Record<string, unknown> })).toEqual(
      expect.arrayContaining([first, second].map((id) => expect.objectContaining({ type: 'hookgate.delivery.dead_lettered', data: expect.objectContaining({ event_id: id, end_reason: 'held_ended', last_attempt: null }) }))),
    );

    // Switched back on, it has nothing left to send of them; a new event goes through.
    await hookgate.destinations.update(paused.id, { active: true });
    const next = (await hookgate.outboundEvents.publish({ event_type: 'order.held', payload: { n: 3 } })).id;
    await eventually(() => eventDetail(call, key, next, '/v1/outbound-events'), (d) => d.event.status === 'delivered', 20_000);
    expect(bodiesAt('/forgotten')).toEqual([{ n: 3 }]);
    // Nothing held: a call ends nothing.
    expect((await call('POST', `/v1/destinations/${paused.id}/end-held`, { key })).json.data).toEqual({ ended: 0, held: 0 });
  });
});
