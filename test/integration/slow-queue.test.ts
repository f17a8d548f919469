import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGateway, type Gateway, type GatewayHandlers } from '../../local/gateway';
import { importHandlers } from '../../local/handlers';
import { invokeFunction } from '../../local/lambda-context';
import { scheduledEvent } from '../../local/schedules';
import { DELIVERY_TEST_ENV } from '../fixtures/gateway';
import { httpClient, type Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute } from '../fixtures/setup';

// A delivery that waits in a busy queue is not lost, so nothing may send it again. The deliver
// poller is held (the gateway runs without a deliver handler) while 1,000 due events wait; then the
// clock moves on 5 minutes and every scheduled job of the stack runs: the queue must still hold
// exactly one message per delivery.

const EVENTS = 1000;
const HELD_FOR_MS = 5 * 60_000;
const SCHEDULED = ['exportWorker', 'sweeper'] as const satisfies ReadonlyArray<keyof GatewayHandlers>;
/** The functions they are in the stack: each runs with its own role. */
const FUNCTION_NAMES = { exportWorker: 'hookgate-export', sweeper: 'hookgate-sweeper' } as const;

let dataDir: string;
let gateway: Gateway;
let call: Call;
let sqs: SQSClient;
let loaded: Promise<GatewayHandlers> | undefined;
// Imported on first use, once the gateway has set the handlers' environment.
const handlers = () => (loaded ??= importHandlers(['api', 'ingest', ...SCHEDULED]));

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'hookgate-slow-queue-'));
  gateway = await startGateway({
    port: 0,
    dataDir,
    env: { ...DELIVERY_TEST_ENV, HOOKGATE_LOG_LEVEL: 'warn' },
    handlers: {
      api: async (event, context) => (await handlers()).api!(event, context),
      ingest: async (event, context) => (await handlers()).ingest!(event, context),
    },
  });
  call = httpClient(gateway.url);
  sqs = new SQSClient({ endpoint: gateway.endpoints.sqs, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
});
afterAll(async () => {
  vi.useRealTimers();
  sqs?.destroy();
  await gateway?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function messagesInQueue(): Promise<number> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: gateway.resources.deliveryQueueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
    }),
  );
  return Object.values(Attributes).reduce((sum, count) => sum + Number(count), 0);
}

describe('waiting in a slow queue', () => {
  it('1,000 due deliveries held 5 minutes: every scheduled job runs, and the queue holds exactly 1,000 messages, one per delivery', async () => {
    const { key } = await accountWithSource(call);
    const destination = await addDestination(call, key, { url: 'http://127.0.0.1:9/held' });
    await addRoute(call, key, { destination_id: destination.id });
    const published: string[] = [];
    for (let batch = 0; batch < EVENTS / 100; batch++) {
      const events = Array.from({ length: 100 }, (_, i) => ({ payload: JSON.stringify({ n: batch * 100 + i }) }));
      const res = await call('POST', '/v1/outbound-events/batch', { key, body: { events } });
      expect(res.status).toBe(200);
      published.push(...res.json.data.map((item: { status: number; data: { id: string } }) => item.data.id));
    }
    expect(new Set(published).size).toBe(EVENTS);
    expect(await messagesInQueue()).toBe(EVENTS);

    // Five minutes on: every delivery is long past due, and nobody has taken it.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + HELD_FOR_MS);
    const loadedHandlers = await handlers();
    for (const name of SCHEDULED) {
      await invokeFunction(FUNCTION_NAMES[name], 60_000, (context) => loadedHandlers[name]!(scheduledEvent(FUNCTION_NAMES[name]), context));
    }
    vi.useRealTimers();

    expect(await messagesInQueue()).toBe(EVENTS);
    const tasks: string[] = [];
    // An empty answer is no proof the queue is drained (on a starved machine one came back with 220
    // messages still to be received): receive until all are in or a deadline, then count.
    const deadline = Date.now() + 60_000;
    while (tasks.length < EVENTS && Date.now() < deadline) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: gateway.resources.deliveryQueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 600, WaitTimeSeconds: 1 }),
      );
      for (const message of Messages) {
        const task = JSON.parse(message.Body ?? '{}') as { event_id: string; destination_id: string };
        tasks.push(`${task.event_id}/${task.destination_id}`);
      }
    }
    expect(tasks).toHaveLength(EVENTS);
    expect(new Set(tasks)).toEqual(new Set(published.map((id) => `${id}/${destination.id}`)));
  }, 300_000);
});
