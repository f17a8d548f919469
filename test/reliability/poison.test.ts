import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReceiveMessageCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY_QUEUE } from '../../lambdas/shared/resource-definitions';
import { sqsClient } from '../../lambdas/adapters/aws-clients';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/aws-clients';
import { LOCAL_MAX_RECEIVE_COUNT } from '../../local/resources';
import { startGateway, type Gateway } from '../../local/gateway';
import { DELIVERY_TEST_ENV } from '../fixtures/gateway';
import { httpClient, type Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually, startSink, type Sink } from '../fixtures/sink';
import { injectFault, quietExpectedErrors, realHandlers, receivedIds } from './helpers';
import { recordFigures } from './summary';

// Messages on the delivery queue that are not delivery tasks. The real handlers run behind the
// real local poller; the deliver handler is watched so every answer it gives the poller is checked.

const SOURCE = 'poison';

interface Batch {
  ids: string[];
  result: SQSBatchResponse | void;
}
const batches: Batch[] = [];

let gateway: Gateway;
let dataDir: string;
let call: Call;
let sink: Sink;
let sqs: SQSClient;
// Each receive of a poison message is logged as a failed task: expected here, dozens of lines.
const quiet = quietExpectedErrors([/delivery task failed/]);

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'hookgate-reliability-poison-'));
  gateway = await startGateway({
    port: 0,
    dataDir,
    env: { HOOKGATE_LOG_LEVEL: 'warn', ...DELIVERY_TEST_ENV },
    log: () => undefined,
    handlers: realHandlers((real) => async (event, context) => {
      const result = await real(event, context);
      batches.push({ ids: event.Records.map((r) => r.messageId), result });
      return result;
    }),
  });
  call = httpClient(gateway.url);
  sink = await startSink();
  sqs = new SQSClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: gateway.endpoints.sqs });
});
afterAll(async () => {
  quiet.restore();
  sqs?.destroy();
  await sink?.close();
  await gateway?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const GARBAGE = [
  '{not json',
  'null',
  '[]',
  '"a string"',
  '{"hello":"world"}',
  '{"v":2,"account_id":"a","event_id":"b","destination_id":"c"}',
  '{"v":1,"account_id":123,"event_id":null}',
  `{"v":1,"padding":"${'x'.repeat(200_000)}"}`,
  'ÿþ\u0001\u0002 not a task',
];

describe('poison messages on the delivery queue', () => {
  it('go to the DLQ after the redrive count, without holding up the real tasks in their batch', async () => {
    const { key, accountId, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/real` });
    await addRoute(call, key, { destination_id: dest.id });

    // Four events are stored with their messages held back, so the test can send those tasks itself,
    // in the same SendMessageBatch as the garbage.
    const held = injectFault(sqsClient(), ['SendMessageBatchCommand'], (input) => ({
      Successful: (input.Entries as Array<{ Id: string }>).map(({ Id }) => ({ Id, MessageId: `held-${Id}`, MD5OfMessageBody: '' })),
      Failed: [],
    }));
    const eventIds: string[] = [];
    try {
      for (let i = 0; i < 4; i++) eventIds.push((await ingest(call, source.path_token, JSON.stringify({ real: i }))).json.data.id);
    } finally {
      held.restore();
    }
    const tasks = eventIds.map((event_id) => JSON.stringify({ v: 1, account_id: accountId, event_id, destination_id: dest.id }));
    // A well-formed task whose event does not exist is no poison: it is done (deleted), not dead-lettered.
    const orphan = JSON.stringify({ v: 1, account_id: accountId, event_id: '01a1fe7f-0000-7000-8000-000000000000', destination_id: dest.id });

    const queueUrl = gateway.resources.deliveryQueueUrl;
    const sent = new Map<string, string>(); // message id → body
    const bodies = [...GARBAGE, ...tasks, orphan];
    const sentAt = Date.now();
    for (let i = 0; i < bodies.length; i += 10) {
      const entries = bodies.slice(i, i + 10).map((MessageBody, j) => ({ Id: String(i + j), MessageBody }));
      const out = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
      expect(out.Failed ?? []).toEqual([]);
      for (const ok of out.Successful ?? []) sent.set(ok.MessageId!, bodies[Number(ok.Id)]!);
    }
    const poisonIds = new Set([...sent].filter(([, body]) => GARBAGE.includes(body)).map(([id]) => id));
    const taskIds = new Set([...sent].filter(([, body]) => tasks.includes(body)).map(([id]) => id));

    // The real tasks are delivered at once: the garbage next to them does not hold them up.
    await eventually(async () => receivedIds(sink, '/real'), (got) => eventIds.every((id) => got.has(id)), 20_000);
    const deliveredAfter = Math.max(...sink.received.filter((r) => r.path === '/real').map((r) => r.at)) - sentAt;
    for (const id of eventIds) await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered');

    // Every poison message reaches the DLQ, each once, within a bounded time.
    const dead = new Map<string, string>();
    await eventually(
      async () => {
        const out = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: gateway.resources.deliveryDlqUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 600 }),
        );
        for (const m of out.Messages ?? []) dead.set(m.MessageId!, m.Body ?? '');
        return dead.size;
      },
      (size) => size >= poisonIds.size,
      60_000,
    );
    const dlqAfter = Date.now() - sentAt;
    expect(new Set(dead.keys())).toEqual(poisonIds);
    expect([...dead.values()].sort()).toEqual([...GARBAGE].sort()); // bodies kept intact for inspection

    // The handler's answers: never an empty or unknown item identifier; real tasks never reported as failed.
    const reported = batches.flatMap((b) => (b.result?.batchItemFailures ?? []).map((f) => ({ id: f.itemIdentifier, batch: b.ids })));
    expect(reported.length).toBeGreaterThan(0);
    for (const { id, batch } of reported) {
      expect(id, 'itemIdentifier').toMatch(/\S/);
      expect(batch, 'itemIdentifier names a message of its own batch').toContain(id);
      expect(taskIds.has(id), 'a real task reported as failed').toBe(false);
    }
    // Each poison message was handed to the handler as often as the redrive policy allows, then moved.
    const receives = [...poisonIds].map((id) => batches.filter((b) => b.ids.includes(id)).length);
    // (locally each try counts twice: local-aws-sqs counts the visibility change as a receive too).
    expect(receives).toEqual([...poisonIds].map(() => LOCAL_MAX_RECEIVE_COUNT / 2));
    expect(LOCAL_MAX_RECEIVE_COUNT / 2).toBe(DELIVERY_QUEUE.maxReceiveCount);
    const togetherWithPoison = batches.filter((b) => b.ids.some((id) => poisonIds.has(id)) && b.ids.some((id) => taskIds.has(id)));
    console.log(
      `poison: ${poisonIds.size} garbage messages in the DLQ after ${dlqAfter} ms; the ${taskIds.size} real tasks sent with them ` +
        `delivered after ${deliveredAfter} ms (${togetherWithPoison.length} batch(es) held both)`,
    );

    // The orphan task was handled once and deleted; every real task was delivered exactly once.
    const orphanId = [...sent].find(([, body]) => body === orphan)![0];
    expect(batches.some((b) => b.ids.includes(orphanId))).toBe(true);
    expect(reported.some((r) => r.id === orphanId)).toBe(false);
    expect(sink.received.filter((r) => r.path === '/real')).toHaveLength(eventIds.length);

    recordFigures(SOURCE, { faultsInjected: poisonIds.size, accepted: eventIds.length, delivered: eventIds.length, lost: 0 });
  }, 120_000);
});
