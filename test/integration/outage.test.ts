import type { ServerResponse } from 'node:http';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalClients, type LocalClients } from '../../local/aws-clients';
import { bootGatewayWithSink } from '../fixtures/gateway';
import type { Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually, type Sink } from '../fixtures/sink';

// The bad day: an endpoint that fails every try, one that hangs, one that is gone. Retry waits of
// 3 s are longer than a visibility wait may be, so they wait as delayed messages, as in AWS. The
// breaker opens at the fifth failure in a row: a delivery that fails every try has all its tries on
// the schedule, not on a failed probe's doubled cooldown (6 s).
const SCHEDULE = [0, 3, 3, 3, 3];
const THRESHOLD = 5;
let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let sink: Sink;
let clients: LocalClients;

beforeAll(async () => {
  env = await bootGatewayWithSink({
    HOOKGATE_RETRY_SCHEDULE: SCHEDULE.join(','),
    HOOKGATE_BREAKER_THRESHOLD: String(THRESHOLD),
    HOOKGATE_BREAKER_COOLDOWN_SECONDS: '3',
  });
  ({ call, sink } = env);
  clients = createLocalClients(env.gateway.endpoints);
  sink.respondWith((request, res) => {
    if (request.path.startsWith('/down')) res.writeHead(503).end('down');
    else if (request.path.startsWith('/gone')) res.writeHead(410).end('gone');
    else if (request.path.startsWith('/hang')) hang(res);
    else if (request.path.startsWith('/flaky') && flakyFailuresLeft-- > 0) res.writeHead(503).end('not yet');
    else res.writeHead(200).end('ok');
  });
});
afterAll(async () => {
  clients?.destroy();
  await env?.stop();
});

/**
 * `/hang` fails at once until its breaker is open, then holds each try open without an answer until
 * the test releases them (or the destination's timeout ends one).
 */
const hanging = { failFast: true, held: new Set<ServerResponse>() };
function hang(res: ServerResponse) {
  if (hanging.failFast) return void res.writeHead(503).end('down');
  hanging.held.add(res);
  res.on('close', () => hanging.held.delete(res));
}

/** `/flaky` fails as many tries as open the breaker, and takes every one after them. */
let flakyFailuresLeft = THRESHOLD;

async function queueCounts() {
  const { Attributes } = await clients.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: env.gateway.resources.deliveryQueueUrl,
      AttributeNames: ['ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
    }),
  );
  return { inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible), delayed: Number(Attributes?.ApproximateNumberOfMessagesDelayed) };
}

async function destination(key: string, id: string) {
  const res = await call('GET', `/v1/destinations/${id}`, { key });
  expect(res.status).toBe(200);
  return res.json.data as { active: boolean; disabled_reason: string | null; health: { state: string; consecutive_failures: number; open_until: string | null; last_failure_at: string | null; last_success_at: string | null } };
}

async function setup(path: string, destinationBody: Record<string, unknown> = {}) {
  const { key, source } = await accountWithSource(call);
  const dest = await addDestination(call, key, { url: `${sink.url}${path}`, ...destinationBody });
  await addRoute(call, key, { destination_id: dest.id });
  return { key, source, dest };
}

const requestsTo = (path: string) => sink.received.filter((r) => r.path === path);

describe('a destination down for every try', () => {
  it('dead-letters after 5 tries on the schedule, its waits holding no in-flight message', async () => {
    // Three destinations, one event each, so each one's breaker sees only its own event's tries.
    const { key, source } = await accountWithSource(call);
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) {
      const dest = await addDestination(call, key, { url: `${sink.url}/down` });
      await addRoute(call, key, { destination_id: dest.id, event_type_pattern: `down.${n}` });
      ids.push((await ingest(call, source.path_token, JSON.stringify({ n }), { 'x-event-type': `down.${n}` })).json.data.id as string);
    }

    // The waiting retries are delayed messages: a moment comes when all three wait at once as delayed
    // messages with none held in flight (as a visibility wait would hold them), before any of them had
    // its last try (so before a breaker opened and sent its own delayed wake). That state is waited for
    // while they run, not counted from samples: how often a message is seen in flight is the machine's
    // speed (a received message stays in flight while it waits for a poller slot and until its batch is
    // done, and a re-sent wait is sent before its received copy is deleted). The emulator may count a
    // message delayed a little past its delay on a loaded machine, hence at least three.
    const triesOf = (n: number) => requestsTo('/down').filter((r) => r.body.toString() === JSON.stringify({ n })).length;
    const waitingAsDelayed = eventually(
      async () => ({ ...(await queueCounts()), mostTries: Math.max(...ids.map((_, n) => triesOf(n))) }),
      (state) => state.delayed >= ids.length && state.inFlight === 0 && state.mostTries < THRESHOLD,
      40_000,
    );
    waitingAsDelayed.catch(() => undefined); // awaited below, after the tries it watches
    for (const id of ids) {
      const detail = await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'dead_letter', 40_000);
      expect(detail.attempts.map((a) => a.response_status)).toEqual([503, 503, 503, 503, 503]);
    }
    await waitingAsDelayed;
    expect(requestsTo('/down')).toHaveLength(15);
    // Each wait followed the schedule (a little slack for polling), not the queue's visibility timeout.
    const tries = requestsTo('/down').filter((r) => r.body.toString() === '{"n":0}').map((r) => r.at);
    tries.slice(1).forEach((at, i) => expect(at - tries[i]!).toBeGreaterThanOrEqual(SCHEDULE[i + 1]! * 1000 - 1000));
  });
});

describe('circuit breaker', () => {
  it('opens after consecutive failures, holds deliveries without a try, lets one probe through, and closes', async () => {
    const { key, source, dest } = await setup('/flaky');
    const first = [];
    for (let n = 0; n < THRESHOLD; n++) first.push((await ingest(call, source.path_token, JSON.stringify({ n }))).json.data.id as string);
    await sink.waitForPath('/flaky', THRESHOLD);
    const opened = await eventually(() => destination(key, dest.id), (d) => d.health.state === 'open');
    expect(opened.health).toMatchObject({ consecutive_failures: THRESHOLD, open_until: expect.any(String), last_failure_at: expect.any(String) });

    // While open, a new event's delivery waits with no try spent; the first probe, at the cooldown's
    // end, finds the endpoint fixed.
    const held = (await ingest(call, source.path_token, '{"n":"held"}')).json.data.id as string;
    const recovered = await eventually(() => destination(key, dest.id), (d) => d.health.state === 'healthy', 20_000);
    expect(recovered.health).toMatchObject({ consecutive_failures: 0, open_until: null, last_success_at: expect.any(String) });
    const attempts = [];
    for (const id of [...first, held]) {
      attempts.push((await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered', 20_000)).attempts.length);
    }
    // No try was spent while the breaker was open: each event failed once (before it opened) or never.
    expect(attempts).toEqual([...Array<number>(THRESHOLD).fill(2), 1]);
    expect(requestsTo('/flaky')).toHaveLength(2 * THRESHOLD + 1);
    // Until the cooldown's end the endpoint saw only the tries that opened the breaker: however late
    // this test saw it open, neither the held event nor a retry was sent while it was.
    expect(requestsTo('/flaky').filter((r) => r.at < Date.parse(opened.health.open_until!))).toHaveLength(THRESHOLD);
  });

  it('keeps a healthy destination flowing beside a hanging one with ten times its traffic, once the breaker is open', async () => {
    const { key, source } = await accountWithSource(call);
    const fast = await addDestination(call, key, { url: `${sink.url}/fast` });
    // The longest a try may be held: a probe held open outlasts any healthy delivery beside it.
    const hang = await addDestination(call, key, { url: `${sink.url}/hang`, timeout_ms: 30_000 });
    await addRoute(call, key, { destination_id: fast.id, event_type_pattern: 'fast.*' });
    await addRoute(call, key, { destination_id: hang.id, event_type_pattern: 'hang.*' });

    const FLOOD = 10;
    const flood = async () => {
      await Promise.all(Array.from({ length: FLOOD }, (_, n) => ingest(call, source.path_token, JSON.stringify({ n }), { 'x-event-type': 'hang.x' })));
    };
    await flood();
    await eventually(() => destination(key, hang.id), (d) => d.health.state === 'open', 20_000);
    hanging.failFast = false; // from now on each probe hangs, held open
    // Each healthy event is sent beside a probe held open, and arrives while that probe still is: it
    // did not wait behind it (it would have arrived only once the probe ended).
    for (let n = 0; n < 20; n++) {
      await flood();
      const [probe] = await eventually(async () => [...hanging.held], (held) => held.length > 0, 20_000);
      const before = requestsTo('/fast').length;
      await ingest(call, source.path_token, JSON.stringify({ n }), { 'x-event-type': 'fast.x' });
      await eventually(async () => requestsTo('/fast').slice(before), (r) => r.length > 0, 20_000);
      expect(hanging.held.has(probe!), `healthy event ${n} arrived while the probe beside it was held open`).toBe(true);
    }
    // 200 more events for the hanging destination. Before its breaker opened, at most one try per event
    // of the first flood; after, only probes, one at a time, however long this took: each failed probe
    // counts once more in consecutive_failures (a try begun before it opened counts nothing when it
    // fails after), and one may still be out.
    const after = await destination(key, hang.id);
    expect(after.health.state).toBe('open');
    expect(requestsTo('/hang').length).toBeLessThanOrEqual(FLOOD + (after.health.consecutive_failures - THRESHOLD) + 1);
    // How much slower a healthy delivery is beside a hanging one is a speed figure: `npm run bench`'s
    // (outage section).
    hanging.failFast = true;
    for (const res of hanging.held) res.writeHead(503).end('down');
  });
});

describe('endpoints that are gone or switched off', () => {
  it('a 410 Gone disables the destination and ends the delivery; what comes next waits until it is switched back on', async () => {
    const { key, source, dest } = await setup('/gone');
    const id = (await ingest(call, source.path_token, '{"n":1}')).json.data.id as string;
    const detail = await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'dead_letter');
    expect(detail.attempts).toHaveLength(1);
    expect(detail.event.deliveries).toEqual([expect.objectContaining({ destination_id: dest.id, status: 'dead_letter', attempts: 1, end_reason: 'endpoint_gone' })]);
    // The delivery's outcome is written (and the event settled) before its destination is switched off.
    const disabled = await eventually(() => destination(key, dest.id), (d) => !d.active);
    expect(disabled).toMatchObject({ active: false, disabled_reason: 'the endpoint answered 410 Gone', health: { state: 'disabled' } });

    // No further tries: a new event to it waits, held, until its owner switches it back on.
    const next = (await ingest(call, source.path_token, '{"n":2}')).json.data.id as string;
    const held = await eventually(() => eventDetail(call, key, next), (d) => d.event.deliveries[0]!.waiting?.reason === 'paused');
    expect(held.event.deliveries[0]).toMatchObject({ status: 'queued', attempts: 0 });
    expect(requestsTo('/gone')).toHaveLength(1);

    const enabled = await call('PATCH', `/v1/destinations/${dest.id}`, { key, body: { active: true } });
    expect(enabled.json.data).toMatchObject({ active: true, disabled_reason: null, health: { state: 'healthy' } });
    // Switched back on, the held event is tried: this endpoint is still gone.
    const ended = await eventually(() => eventDetail(call, key, next), (d) => d.event.status === 'dead_letter');
    expect(ended.event.deliveries[0]).toMatchObject({ attempts: 1, end_reason: 'endpoint_gone' });
    expect(requestsTo('/gone')).toHaveLength(2);
  });

  it('active: false holds the retries already waiting, with their attempts unchanged and a reason', async () => {
    const { key, source, dest } = await setup('/down-then-paused');
    const id = (await ingest(call, source.path_token, '{"n":1}')).json.data.id as string;
    await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'retry_scheduled');
    const paused = await call('PATCH', `/v1/destinations/${dest.id}`, { key, body: { active: false } });
    expect(paused.json.data).toMatchObject({ active: false, disabled_reason: null, health: { state: 'disabled' } });

    const detail = await eventually(() => eventDetail(call, key, id), (d) => d.event.deliveries[0]!.waiting?.reason === 'paused', 15_000);
    expect(detail.attempts).toHaveLength(1);
    expect(detail.event).toMatchObject({ status: 'retry_scheduled', attempts_count: 1 });
    expect(detail.event.deliveries).toEqual([expect.objectContaining({ status: 'retry_scheduled', attempts: 1, waiting: { reason: 'paused', until: null } })]);
    expect(requestsTo('/down-then-paused')).toHaveLength(1);
  });
});
