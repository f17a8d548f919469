/**
 * Section 2: the hot path with AWS answered instantly. A real gateway creates the account, source,
 * destination and route (so the items are exactly what the code writes); the table is copied into an
 * in-memory fake behind aws-sdk-client-mock; then the ingest and deliver handlers are called directly,
 * in process, measuring process.cpuUsage() and AWS calls per invocation. The destination runs in
 * another process so its CPU does not count here.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { toApiGatewayEvent } from '../local/apigw-event';
import { startGateway } from '../local/gateway';
import { createLambdaContext } from '../local/lambda-context';
import { writeResult } from './lib/child';
import { fakeAws } from './lib/fake-aws';
import { realHandlers } from './lib/handlers';
import { apiClient, BURST_MAX_IN_FLIGHT, providerHeaders, setupAccount, webhookBody } from './lib/http';
import { startSinkProcess } from './lib/sink-process';
import { percentile, progress, round, silenceStdout } from './lib/stats';

const WARMUP = 200;
const INGESTS = 5000;
const DELIVERIES = 2000;

const sink = await startSinkProcess();
const dataDir = await mkdtemp(join(tmpdir(), 'hookgate-bench-hot-'));
const gateway = await startGateway({
  port: 0,
  dataDir,
  log: (line) => progress(line),
  handlers: { api: realHandlers.api, ingest: realHandlers.ingest },
  env: { HOOKGATE_ALLOW_PRIVATE_DESTINATIONS: 'true', HOOKGATE_LOG_LEVEL: 'warn' },
});
let seed: Array<Record<string, unknown>>;
let token: string;
try {
  const account = await setupAccount(apiClient(gateway.url));
  token = account.token;
  await account.route({ destination_id: await account.destination(`${sink.url}/hooks`, BURST_MAX_IN_FLIGHT) });
  const raw = DynamoDBDocumentClient.from(new DynamoDBClient({}));
  seed = ((await raw.send(new ScanCommand({ TableName: gateway.resources.tableName }))).Items ?? []) as typeof seed;
  raw.destroy();
} finally {
  await gateway.close();
  await rm(dataDir, { recursive: true, force: true });
}

const aws = fakeAws(seed);
const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

interface Sample {
  cpu: number;
  wall: number;
  calls: number;
}

async function measure(run: () => Promise<unknown>): Promise<Sample> {
  const calls = aws.totalCalls();
  const wall = performance.now();
  const cpu = cpuMs();
  await run();
  return { cpu: cpuMs() - cpu, wall: performance.now() - wall, calls: aws.totalCalls() - calls };
}

function summary(samples: Sample[]) {
  const callCounts: Record<string, number> = {};
  for (const s of samples) callCounts[s.calls] = (callCounts[s.calls] ?? 0) + 1;
  return {
    count: samples.length,
    cpu_ms_p50: round(percentile(samples.map((s) => s.cpu), 50), 3),
    cpu_ms_p99: round(percentile(samples.map((s) => s.cpu), 99), 3),
    wall_ms_p50: round(percentile(samples.map((s) => s.wall), 50), 3),
    aws_calls_mean: round(samples.reduce((sum, s) => sum + s.calls, 0) / samples.length, 3),
    aws_calls_histogram: callCounts,
  };
}

const body = webhookBody(1, Date.now());
const rawHeaders = Object.entries({ host: '127.0.0.1', ...providerHeaders(body) }).flat();
const ingestEvent = () =>
  toApiGatewayEvent(
    { method: 'POST', url: `/ingest/${token}`, rawHeaders, httpVersion: '1.1', socket: { remoteAddress: '127.0.0.1', localPort: 443 } },
    Buffer.from(body),
    { routeKey: 'POST /ingest/{token}', pathParameters: { token } },
  );
const context = (name: string) => createLambdaContext(`hookgate-${name}`, 29_000);

// Handler log lines and EMF documents are formatted as in production, then dropped.
const restoreStdout = silenceStdout();
progress(`hot path: ingest x ${WARMUP} warm-up + ${INGESTS} measured (AWS mocked)...`);
const first = await measure(() => realHandlers.ingest(ingestEvent(), context('ingest')));
for (let i = 1; i < WARMUP; i++) await realHandlers.ingest(ingestEvent(), context('ingest'));
const ingests: Sample[] = [];
for (let i = 0; i < INGESTS; i++) {
  const event = ingestEvent();
  ingests.push(await measure(() => realHandlers.ingest(event, context('ingest'))));
}

const record = (body: string, i: number): SQSRecord => ({
  messageId: `m-${i}`,
  receiptHandle: `rh-${i}`,
  body,
  attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'bench', ApproximateFirstReceiveTimestamp: '0' },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:hookgate-delivery',
  awsRegion: 'us-east-1',
});
const tasks = [...aws.sentTasks];
if (tasks.length < DELIVERIES + 100 + 100 * 10) throw new Error(`only ${tasks.length} delivery tasks were sent`);

progress(`hot path: deliver x 100 warm-up + ${DELIVERIES} measured, one record per batch (AWS mocked, real HTTP POST)...`);
let next = 0;
const take = () => record(tasks[next] ?? '', next++);
for (let i = 0; i < 100; i++) await realHandlers.deliver({ Records: [take()] }, context('deliver'));
const deliveries: Sample[] = [];
for (let i = 0; i < DELIVERIES; i++) {
  const event = { Records: [take()] };
  deliveries.push(await measure(() => realHandlers.deliver(event, context('deliver'))));
}
progress('hot path: deliver x 100 batches of 10...');
const batches: Sample[] = [];
for (let i = 0; i < 100; i++) {
  const event = { Records: Array.from({ length: 10 }, take) };
  batches.push(await measure(() => realHandlers.deliver(event, context('deliver'))));
}
restoreStdout();
aws.restore();
await sink.stop();

const ingest = summary(ingests);
const deliver = summary(deliveries);
const batch = summary(batches);
writeResult({
  ingest: { ...ingest, first_call: { aws_calls: first.calls, cpu_ms: round(first.cpu, 2) } },
  deliver,
  deliver_batch10: { ...batch, cpu_ms_per_record_p50: round(batch.cpu_ms_p50 / 10, 3) },
});
progress(
  `hot path: ingest ${ingest.aws_calls_mean} AWS calls, CPU p50 ${ingest.cpu_ms_p50} ms p99 ${ingest.cpu_ms_p99} ms; ` +
    `deliver ${deliver.aws_calls_mean} AWS calls, CPU p50 ${deliver.cpu_ms_p50} ms p99 ${deliver.cpu_ms_p99} ms`,
);
