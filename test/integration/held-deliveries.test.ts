import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalClients, type LocalClients } from '../../local/aws-clients';
import { beforeFunctionCalls } from '../../local/sdk-hooks';
import { bootGatewayWithSink } from '../fixtures/gateway';
import type { Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually, type Sink } from '../fixtures/sink';

// Deliveries an open breaker holds sleep: parked against their destination with no message, timer or
// read, then released once each when the breaker closes. The cooldown (60 s) outlasts every test
// here, so anything delivered was let through by a probe, a manual action or a release, never by time.

let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let sink: Sink;
let clients: LocalClients;
let down = true;

beforeAll(async () => {
  env = await bootGatewayWithSink({ HOOKGATE_BREAKER_THRESHOLD: '3', HOOKGATE_BREAKER_COOLDOWN_SECONDS: '60' });
  ({ call, sink } = env);
  clients = createLocalClients(env.gateway.endpoints);
  sink.respondWith((_request, res) => (down ? res.writeHead(503).end('down') : res.writeHead(200).end('ok')));
});
afterAll(async () => {
  clients?.destroy();
  await env?.stop();
});

/** Every message of the delivery queue: visible, in flight or delayed. */
async function messagesInQueue(): Promise<number> {
  const { Attributes } = await clients.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: env.gateway.resources.deliveryQueueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
    }),
  );
  return Object.values(Attributes ?? {}).reduce((sum, n) => sum + Number(n), 0);
}

const health = async (key: string, id: string) => (await call('GET', `/v1/destinations/${id}`, { key })).json.data.health as { state: string; held: number; open_until: string | null };

describe('deliveries held by an open breaker', () => {
  it('sleep without messages, say why they wait, go at once as a replay’s probe, and are released once each when it succeeds', async () => {
    const { key, source } = await accountWithSource(call);
    // One try each, so the events that open the breaker dead-letter and can be replayed.
    const dest = await addDestination(call, key, { url: `${sink.url}/held`, retry_schedule: [0] });
    await addRoute(call, key, { destination_id: dest.id });
    const opening: string[] = [];
    for (let n = 0; n < 3; n++) opening.push((await ingest(call, source.path_token, JSON.stringify({ opening: n }))).json.data.id as string);
    for (const id of opening) await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'dead_letter');
    // The breaker is written after the try's outcome: the third dead letter can show a moment before it opens.
    await eventually(() => health(key, dest.id), (h) => h.state === 'open');

    const held: string[] = [];
    for (let n = 0; n < 20; n++) held.push((await ingest(call, source.path_token, JSON.stringify({ held: n }))).json.data.id as string);
    const parked = await eventually(() => health(key, dest.id), (h) => h.held === 20);
    const detail = await eventDetail(call, key, held[0]!);
    expect(detail.event.status).toBe('queued');
    expect(detail.event.deliveries[0]).toMatchObject({ status: 'queued', attempts: 0, waiting: { reason: 'breaker_open', until: parked.open_until } });

    // Asleep: the queue keeps no message for them (each goes once its task has parked it), only the
    // destination's one wake (its cooldown's end); and nothing is sent.
    // With every task gone (so every held delivery parked), nothing is left that could send before the wake.
    await eventually(messagesInQueue, (n) => n <= 1);
    expect(sink.received).toHaveLength(3);

    // The endpoint is fixed; its owner replays one dead letter: sent at once as the probe, not after the 60 s cooldown.
    down = false;
    const replay = await call('POST', `/v1/events/${opening[0]}/replay`, { key });
    expect(replay.status).toBe(202);
    await sink.waitForPath('/held', 4, 5_000);

    // Its success closed the breaker and released what was held: each delivered exactly once.
    for (const id of held) await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered', 20_000);
    const bodies = sink.received.slice(3).map((r) => r.body.toString());
    expect(bodies).toHaveLength(21);
    expect(new Set(bodies).size).toBe(21);
    for (let n = 0; n < 20; n++) expect(bodies).toContain(JSON.stringify({ held: n }));
    const after = await health(key, dest.id);
    expect(after).toMatchObject({ state: 'healthy', held: 0 });
    expect((await eventDetail(call, key, held[0]!)).event.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 1, waiting: null });
  }, 120_000);

  it('when their destination is deleted end, never sleep for good', async () => {
    const { key, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/held-deleted`, retry_schedule: [0] });
    await addRoute(call, key, { destination_id: dest.id });
    down = true;
    for (let n = 0; n < 3; n++) await ingest(call, source.path_token, JSON.stringify({ opening: n }));
    await eventually(() => health(key, dest.id), (h) => h.state === 'open');
    const held: string[] = [];
    for (let n = 0; n < 5; n++) held.push((await ingest(call, source.path_token, JSON.stringify({ held: n }))).json.data.id as string);
    await eventually(() => health(key, dest.id), (h) => h.held === 5);

    expect((await call('DELETE', `/v1/destinations/${dest.id}`, { key })).status).toBeLessThan(300);
    for (const id of held) {
      const detail = await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'dead_letter', 20_000);
      expect(detail.event.deliveries[0]).toMatchObject({ status: 'dead_letter', attempts: 0, end_reason: 'destination_deleted', waiting: null });
    }
    expect(sink.received.filter((r) => r.path === '/held-deleted')).toHaveLength(3);
  }, 120_000);

  it('wait parked while their destination is switched off (new events too), and go once each when it is switched back on', async () => {
    const { key, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/paused`, retry_schedule: [0, 1] });
    await addRoute(call, key, { destination_id: dest.id });
    down = true;
    const retrying = (await ingest(call, source.path_token, '{"retrying":true}')).json.data.id as string;
    await eventually(() => eventDetail(call, key, retrying), (d) => d.event.status === 'retry_scheduled');
    const paused = await call('PATCH', `/v1/destinations/${dest.id}`, { key, body: { active: false } });
    expect(paused.json.data).toMatchObject({ active: false, health: { state: 'disabled' } });
    const fresh: string[] = [];
    for (let n = 0; n < 3; n++) fresh.push((await ingest(call, source.path_token, JSON.stringify({ fresh: n }))).json.data.id as string);

    // Its retry and the new events wait without a try, and say why: nothing ends, nothing is sent.
    await eventually(() => health(key, dest.id), (h) => h.held === 4, 20_000);
    const waitingRetry = await eventually(() => eventDetail(call, key, retrying), (d) => d.event.deliveries[0]!.waiting?.reason === 'paused');
    expect(waitingRetry.event.deliveries[0]).toMatchObject({ status: 'retry_scheduled', attempts: 1, waiting: { reason: 'paused', until: null } });
    expect((await eventDetail(call, key, fresh[0]!)).event.deliveries[0]).toMatchObject({ status: 'queued', attempts: 0, waiting: { reason: 'paused', until: null } });
    // All four parked (held counts parked deliveries, which keep no message): nothing is left to send them.
    expect(sink.received.filter((r) => r.path === '/paused')).toHaveLength(1);
    expect((await health(key, dest.id)).held).toBe(4);

    down = false;
    expect((await call('PATCH', `/v1/destinations/${dest.id}`, { key, body: { active: true } })).status).toBe(200);
    for (const id of [retrying, ...fresh]) await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered', 20_000);
    const bodies = sink.received.filter((r) => r.path === '/paused').map((r) => r.body.toString());
    expect(bodies.slice(1).sort()).toEqual(['{"fresh":0}', '{"fresh":1}', '{"fresh":2}', '{"retrying":true}']);
    expect(await eventually(() => health(key, dest.id), (h) => h.held === 0)).toMatchObject({ state: 'healthy', held: 0 });
  }, 120_000);
});

/**
 * Fails the first message sent at once that lets a destination's held deliveries go (a release task),
 * as SQS does when it is unreachable for longer than the SDK's retries: the change that sent it is
 * written, and nothing the change's own request does can send it again. Returns how many it failed.
 */
function loseTheNextRelease(): () => number {
  let lost = 0;
  beforeFunctionCalls('lose a release', (_client, command) => {
    if (lost > 0 || command.constructor.name !== 'SendMessageBatchCommand') return;
    const entries = (command.input.Entries ?? []) as Array<{ MessageBody?: string; DelaySeconds?: number }>;
    if (!entries.some((entry) => entry.DelaySeconds === 0 && (JSON.parse(entry.MessageBody ?? '{}') as { kind?: string }).kind === 'release')) return;
    lost++;
    throw Object.assign(new Error('SQS unreachable (injected)'), { name: 'ServiceUnavailable', $fault: 'server' });
  });
  return () => lost;
}

describe('release triggers', () => {
  it('let held deliveries go when the release a switch-on sent is lost', async () => {
    const { key, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/lost-switch-on` });
    await addRoute(call, key, { destination_id: dest.id });
    down = false;
    expect((await call('PATCH', `/v1/destinations/${dest.id}`, { key, body: { active: false } })).status).toBe(200);
    const held: string[] = [];
    for (let n = 0; n < 3; n++) held.push((await ingest(call, source.path_token, JSON.stringify({ lost: n }))).json.data.id as string);
    await eventually(() => health(key, dest.id), (h) => h.held === 3);

    const lost = loseTheNextRelease();
    expect((await call('PATCH', `/v1/destinations/${dest.id}`, { key, body: { active: true } })).status).toBe(200);
    for (const id of held) await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered', 20_000);
    expect(lost()).toBe(1);
    expect(sink.received.filter((r) => r.path === '/lost-switch-on')).toHaveLength(3);
    expect(await eventually(() => health(key, dest.id), (h) => h.held === 0)).toMatchObject({ state: 'healthy', held: 0 });
  }, 60_000);

  it('let held deliveries go when the release a recovered breaker sent is lost', async () => {
    const { key, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/lost-recovery`, retry_schedule: [0] });
    await addRoute(call, key, { destination_id: dest.id });
    down = true;
    const opening: string[] = [];
    for (let n = 0; n < 3; n++) opening.push((await ingest(call, source.path_token, JSON.stringify({ opening: n }))).json.data.id as string);
    for (const id of opening) await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'dead_letter');
    await eventually(() => health(key, dest.id), (h) => h.state === 'open');
    const held: string[] = [];
    for (let n = 0; n < 3; n++) held.push((await ingest(call, source.path_token, JSON.stringify({ recovering: n }))).json.data.id as string);
    await eventually(() => health(key, dest.id), (h) => h.held === 3);

    // The replay goes as the probe; its success closes the breaker, and the release sent after that write is lost.
    down = false;
    const lost = loseTheNextRelease();
    expect((await call('POST', `/v1/events/${opening[0]}/replay`, { key })).status).toBe(202);
    for (const id of held) await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered', 20_000);
    expect(lost()).toBe(1);
    expect(await eventually(() => health(key, dest.id), (h) => h.held === 0)).toMatchObject({ state: 'healthy', held: 0 });
  }, 60_000);
});
