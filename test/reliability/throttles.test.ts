import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/aws-clients';
import { applyThrottles, throttledTries } from '../../local/throttles';
import { bootGateway, DELIVERY_TEST_ENV } from '../fixtures/gateway';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually, startSink, type ReceivedRequest, type Sink } from '../fixtures/sink';
import { recordFigures } from './summary';

// Fan-out, the storm and the cap while DynamoDB and SQS throttle at random, as a hot key or a burst
// over a table's capacity makes them do in AWS. The local runtime throttles each try of the functions'
// calls (local/throttles.ts); the SDK retries them as it would in AWS, and what its retries do not
// absorb reaches the code: a delivery task that fails outright comes back after its claim's lease
// (61 s), so a run with a fault or two takes two minutes. Every accepted event must still end delivered or dead-lettered with its
// tries recorded (here every one is delivered: the storm's endpoint comes back), nothing may be left in the queue or the DLQ, and a healthy endpoint may get a
// request twice only where a task failed after its try went out.

const SOURCE = 'throttles';
const THROTTLES = [
  { service: 'DynamoDB', rate: 0.12 },
  { service: 'SQS', rate: 0.05 },
];
const FANOUT_DESTINATIONS = 5;
const FANOUT_EVENTS = 6;
/**
 * The storm: an endpoint that fails its first requests, as many as it has events (twice the breaker's
 * threshold), so its breaker opens and deliveries are held, then released. Counted, not timed: a window
 * of seconds holds fewer tries, maybe too few to open the breaker, on a slow machine.
 */
const STORM_EVENTS = 6;
const STORM_FAILURES = STORM_EVENTS;
const CAPPED_EVENTS = 6;
// The test's waits, one after the other; its timeout is their sum and a minute for the setup and the
// requests between them, so a wait that runs out fails as itself, not as the test's timeout.
/** Every delivery reaches its endpoint while the throttles go on. */
const DELIVERED_MS = 200_000;
/** Then each event shows its outcome: written as its try ends, so a short while after. */
const SETTLED_MS = 60_000;
/** Then the queue empties: the breaker's last wake waits out its cooldown. */
const QUEUE_EMPTY_MS = 90_000;
const TEST_MS = DELIVERED_MS + SETTLED_MS + QUEUE_EMPTY_MS + 60_000;

let env: Awaited<ReturnType<typeof bootGateway>>;
let sink: Sink;
/** The storm's requests answered 500 (its outage); every other request is one that can succeed. */
const stormFailed = new Set<ReceivedRequest>();
const succeedable = (r: ReceivedRequest) => !stormFailed.has(r);
/** What the gateway logged, to count the delivery tasks that failed outright. */
const logged: string[] = [];

beforeAll(async () => {
  for (const method of ['log', 'info', 'error', 'warn'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
  }
  env = await bootGateway({ ...DELIVERY_TEST_ENV, HOOKGATE_LOG_LEVEL: 'info', HOOKGATE_BREAKER_THRESHOLD: '3' });
  sink = await startSink((request, res) => {
    if (request.path.startsWith('/storm') && stormFailed.size < STORM_FAILURES) {
      stormFailed.add(request);
      res.writeHead(500).end('down');
    } else if (request.path.startsWith('/capped')) setTimeout(() => res.writeHead(200).end('ok'), 200);
    else res.writeHead(200).end('ok');
  });
});
afterAll(async () => {
  applyThrottles([]);
  await sink?.close();
  await env?.stop();
});

/** Ingests as a provider does: a 5xx (a throttle that reached ingest) is sent again, up to 10 times. */
async function accept(token: string, body: string): Promise<string> {
  for (let i = 0; i < 10; i++) {
    const res = await ingest(env.call, token, body);
    if (res.status === 202) return res.json.data.id as string;
    expect(res.status, res.text).toBeGreaterThanOrEqual(500);
  }
  throw new Error('ingest refused 10 times');
}

describe('random throttles', () => {
  it('fan-out, the storm and the cap: every event ends delivered, nothing stranded, no needless repeat', async () => {
    const fanout = await accountWithSource(env.call);
    const fanoutPaths: string[] = [];
    for (let i = 0; i < FANOUT_DESTINATIONS; i++) {
      const destination = await addDestination(env.call, fanout.key, { url: `${sink.url}/fanout-${i}` });
      await addRoute(env.call, fanout.key, { destination_id: destination.id });
      fanoutPaths.push(`/fanout-${i}`);
    }
    const storm = await accountWithSource(env.call);
    await addRoute(env.call, storm.key, { destination_id: (await addDestination(env.call, storm.key, { url: `${sink.url}/storm` })).id });
    const capped = await accountWithSource(env.call);
    await addRoute(env.call, capped.key, { destination_id: (await addDestination(env.call, capped.key, { url: `${sink.url}/capped`, max_in_flight: 2 })).id });

    applyThrottles(THROTTLES);
    const events = [
      ...(await Promise.all(Array.from({ length: FANOUT_EVENTS }, (_, n) => accept(fanout.source.path_token, JSON.stringify({ fanout: n }))))).map((id) => ({ id, key: fanout.key })),
      ...(await Promise.all(Array.from({ length: STORM_EVENTS }, (_, n) => accept(storm.source.path_token, JSON.stringify({ storm: n }))))).map((id) => ({ id, key: storm.key })),
      ...(await Promise.all(Array.from({ length: CAPPED_EVENTS }, (_, n) => accept(capped.source.path_token, JSON.stringify({ capped: n }))))).map((id) => ({ id, key: capped.key })),
    ];
    // Every delivery reaches its endpoint (the storm's once it is back) while the throttles go on.
    const healthy = FANOUT_EVENTS * FANOUT_DESTINATIONS + CAPPED_EVENTS;
    const succeeded = () => new Set(sink.received.filter(succeedable).map((r) => `${r.path} ${String(r.headers['x-webhook-id'])}`)).size;
    await eventually(async () => succeeded(), (n) => n >= healthy + STORM_EVENTS, DELIVERED_MS);
    const throttled = throttledTries();
    applyThrottles([]);

    const details = await Promise.all(
      events.map(({ id, key }) => eventually(() => eventDetail(env.call, key, id), (d) => ['delivered', 'dead_letter'].includes(d.event.status), SETTLED_MS)),
    );
    expect(throttled).toBeGreaterThan(0);
    for (const detail of details) {
      expect(detail.event.status).toBe('delivered');
      expect(detail.attempts.at(-1)).toMatchObject({ outcome: 'success', response_status: 200 });
    }
    // The storm opened its destination's breaker: some of its deliveries waited, then went.
    const stormTries = details.filter((d) => d.event.account_id === storm.accountId).flatMap((d) => d.attempts);
    expect(stormTries.filter((a) => a.response_status === 500).length).toBeGreaterThanOrEqual(3);

    // Nothing stranded: no message left in the queue or moved to the DLQ. The last to go are the
    // breaker's wake messages, delayed until its last cooldown ends.
    const sqs = new SQSClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: env.gateway.endpoints.sqs });
    const depth = async (QueueUrl: string) => {
      const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] }));
      return Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible) + Number(Attributes.ApproximateNumberOfMessagesDelayed);
    };
    await eventually(() => depth(env.gateway.resources.deliveryQueueUrl), (n) => n === 0, QUEUE_EMPTY_MS);
    expect(await depth(env.gateway.resources.deliveryDlqUrl)).toBe(0);
    sqs.destroy();

    // At least once, and a repeat only where a task failed after its try went out.
    const received = new Map<string, number>();
    for (const r of sink.received.filter(succeedable)) {
      const key = `${r.path} ${String(r.headers['x-webhook-id'])}`;
      received.set(key, (received.get(key) ?? 0) + 1);
    }
    expect(received.size).toBe(healthy + STORM_EVENTS);
    const repeats = [...received.values()].reduce((sum, n) => sum + n - 1, 0);
    const failedTasks = logged.filter((line) => line.includes('delivery task failed')).length;
    expect(repeats).toBeLessThanOrEqual(failedTasks);

    vi.restoreAllMocks();
    console.info(`throttles: ${throttled} tries throttled, ${failedTasks} delivery tasks failed outright, ${repeats} repeated requests to healthy endpoints`);
    recordFigures(SOURCE, { faultsInjected: throttled, accepted: events.length, delivered: details.filter((d) => d.event.status === 'delivered').length, lost: 0 });
  }, TEST_MS);
});
