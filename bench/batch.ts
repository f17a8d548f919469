/**
 * Section 5: delivery concurrency inside one batch. The real deliver handler is called directly with
 * SQS records for events ingested through the local gateway (no poller runs). A batch of 10 to a
 * destination that answers in 200 ms should take about 200 ms, not 2 s; with one destination that
 * hangs (until its 3 s timeout), the other nine should be delivered and recorded long before it ends.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ReceiveMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { startGateway } from '../local/gateway';
import { createLambdaContext } from '../local/lambda-context';
import { writeResult } from './lib/child';
import { realHandlers } from './lib/handlers';
import { apiClient, providerHeaders, request, setupAccount, startSink } from './lib/http';
import { progress, round, silenceStdout, sleep } from './lib/stats';

const SLOW_MS = 200;
const HANG_TIMEOUT_MS = 3000;

const sink = await startSink(({ path }) => (path === '/hang' ? 'hang' : { status: 200, delayMs: SLOW_MS }));
const dataDir = await mkdtemp(join(tmpdir(), 'hookgate-bench-batch-'));
const gateway = await startGateway({
  port: 0,
  dataDir,
  log: (line) => progress(line),
  handlers: { api: realHandlers.api, ingest: realHandlers.ingest },
  env: { HOOKGATE_ALLOW_PRIVATE_DESTINATIONS: 'true', HOOKGATE_LOG_LEVEL: 'warn' },
});
const api = apiClient(gateway.url);

try {
  const account = await setupAccount(api);
  const slow = await account.destination(`${sink.url}/slow`);
  const hang = await account.destination(`${sink.url}/hang`, { timeout_ms: HANG_TIMEOUT_MS });
  await account.route({ destination_id: slow, event_type_pattern: 'slow.*' });
  await account.route({ destination_id: hang, event_type_pattern: 'hang.*' });

  let n = 0;
  const ingest = async (type: string) => {
    const seq = ++n;
    const body = JSON.stringify({ bench: { seq, sent_at: Date.now() }, type });
    const reply = await request(`${gateway.url}/ingest/${account.token}`, {
      method: 'POST',
      headers: { ...providerHeaders(body), 'x-event-type': type },
      body,
    });
    if (reply.status !== 202) throw new Error(`ingest answered ${reply.status}`);
    return { seq, eventId: reply.json.data.id as string };
  };
  // The messages ingest sent (no poller runs here), received for real: their receipt handles work.
  const sqs = new SQSClient({});
  const received = new Map<string, Message>();
  const record = async (eventId: string, destinationId: string): Promise<SQSRecord> => {
    for (let attempt = 0; !received.has(eventId) && attempt < 50; attempt++) {
      const out = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: gateway.resources.deliveryQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      for (const m of out.Messages ?? []) received.set((JSON.parse(m.Body ?? '{}') as { event_id?: string }).event_id ?? '', m);
      if (!out.Messages?.length) await sleep(20);
    }
    const message = received.get(eventId);
    if (!message) throw new Error(`no queued message for event ${eventId}`);
    return {
      messageId: message.MessageId ?? '',
      receiptHandle: message.ReceiptHandle ?? '',
      body: JSON.stringify({ v: 1, account_id: account.accountId, event_id: eventId, destination_id: destinationId }),
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'bench', ApproximateFirstReceiveTimestamp: '0' },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: gateway.resources.deliveryQueueArn,
      awsRegion: 'us-east-1',
    };
  };
  const deliver = (records: SQSRecord[]) => realHandlers.deliver({ Records: records }, createLambdaContext('hookgate-deliver', 60_000));
  const status = async (eventId: string) => (await api('GET', `/v1/events/${eventId}`, { key: account.key })).json?.data?.event?.status as string;

  const restoreStdout = silenceStdout();
  // Warm: the handler's import, the keep-alive socket to the destination.
  await deliver([await record((await ingest('slow.warm')).eventId, slow)]);

  progress(`batch: 10 records to a destination answering in ${SLOW_MS} ms...`);
  const ten = await Promise.all(Array.from({ length: 10 }, () => ingest('slow.test')));
  const tenRecords = await Promise.all(ten.map((e) => record(e.eventId, slow)));
  const before = sink.arrivals.length;
  const started = performance.now();
  const startedAt = Date.now();
  const result = (await deliver(tenRecords)) ?? { batchItemFailures: [] };
  const batchMs = performance.now() - started;
  const arrivals = sink.arrivals.slice(before).map((a) => a.at - startedAt);
  const delivered = (await Promise.all(ten.map((e) => status(e.eventId)))).filter((s) => s === 'delivered').length;
  progress(`batch: ${round(batchMs, 1)} ms for 10 (${delivered} delivered; POSTs arrived ${Math.min(...arrivals)}..${Math.max(...arrivals)} ms after the start)`);

  progress(`batch: 9 records to the ${SLOW_MS} ms destination + 1 to a destination that hangs (timeout ${HANG_TIMEOUT_MS} ms)...`);
  const nine = await Promise.all(Array.from({ length: 9 }, () => ingest('slow.test')));
  const stuck = await ingest('hang.test');
  const mixed = [await record(stuck.eventId, hang), ...(await Promise.all(nine.map((e) => record(e.eventId, slow))))];
  const hangStartedAt = Date.now();
  const hangStarted = performance.now();
  const running = deliver(mixed);
  await sleep(SLOW_MS + 500);
  const checkedAtMs = Date.now() - hangStartedAt;
  const othersDone = (await Promise.all(nine.map((e) => status(e.eventId)))).filter((s) => s === 'delivered').length;
  const stuckStatus = await status(stuck.eventId);
  const hangResult = (await running) ?? { batchItemFailures: [] };
  const hangBatchMs = performance.now() - hangStarted;
  progress(`batch: at ${checkedAtMs} ms ${othersDone}/9 others were delivered and the hung one was ${stuckStatus}; the batch returned after ${round(hangBatchMs, 0)} ms`);

  restoreStdout();
  sqs.destroy();
  writeResult({
    sink_delay_ms: SLOW_MS,
    batch10_ms: round(batchMs, 1),
    batch10_delivered: delivered,
    batch10_failures: result.batchItemFailures.length,
    batch10_post_arrival_ms: { first: Math.min(...arrivals), last: Math.max(...arrivals) },
    hang: {
      timeout_ms: HANG_TIMEOUT_MS,
      checked_at_ms: checkedAtMs,
      others_delivered_at_check: othersDone,
      hung_status_at_check: stuckStatus,
      batch_ms: round(hangBatchMs, 0),
      batch_item_failures: hangResult.batchItemFailures.length,
    },
  });
} finally {
  await sink.close();
  await gateway.close();
  await rm(dataDir, { recursive: true, force: true });
}
