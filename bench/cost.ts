/**
 * Section 1: cost per million webhooks. The real handlers behind the local gateway, every AWS call
 * metered (bench/lib/meter.ts), priced at list prices (bench/prices.ts), with DynamoDB both on-demand
 * and on provisioned capacity (at 70% and at 40% utilisation), and what the webhooks leave stored
 * (storage and point-in-time recovery for a 30-day retention).
 *
 * Priced as real traffic runs, not at the best case: the destination answers in ENDPOINT_MS, which the
 * deliver function is billed for while it waits, and the deliver event source mapping hands it batches
 * of at most 3 records (moderate traffic: no batching window is configured, so a batch holds what
 * arrived while the last one ran) or of 1 (low traffic). One line keeps the best case apart, named so:
 * an endpoint that answers at once and the production batch size of 10, under a burst that fills them.
 *
 * Scenarios: the happy path (at batches of 3 and of 1, and the best case), 10% of deliveries failing
 * twice, the happy path with a provider delivery id (de-duplication), one webhook routed to 10
 * destinations, and outbound publish (single and batch). Each scenario ends with a retention sweep past
 * its events' window, priced as in AWS: DynamoDB's TTL deletes them for free, so the sweeper only looks
 * for what TTL left behind; the fixed monthly cost of the schedules is apart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { DELIVERY_QUEUE } from '../lambdas/shared/resource-definitions';
import { startGateway } from '../local/gateway';
import { createLambdaContext } from '../local/lambda-context';
import { scheduledEvent } from '../local/schedules';
import { REPO_ROOT, writeResult } from './lib/child';
import { costReport, type CostReport, type MeterSnapshot } from './lib/cost-model';
import { realHandlers } from './lib/handlers';
import { apiClient, BURST_MAX_IN_FLIGHT, providerHeaders, request, setupAccount, startSink, webhookBody } from './lib/http';
import { lambdaMemoryMb } from './lib/lambda-config';
import { Meter } from './lib/meter';
import { HOURS_PER_MONTH, MINUTES_PER_MONTH, PRICES } from './prices';
import { pool, progress, round, sleep, waitUntil } from './lib/stats';

/**
 * Webhooks per scenario. Each deliver batch waits ENDPOINT_MS, and batches run one at a time (the
 * deliver handler below is exclusive), so the priced scenarios are kept to a few hundred webhooks.
 */
const WEBHOOKS = 300;
const BEST_CASE_WEBHOOKS = 1000;
const LOW_TRAFFIC_WEBHOOKS = 60;
/** Each a delivery to every one of FANOUT_DESTINATIONS. */
const FANOUT_WEBHOOKS = 30;
const FANOUT_DESTINATIONS = 10;
/** How long the destination takes to answer: a typical webhook endpoint, which the deliver function is billed for. */
const ENDPOINT_MS = 200;
/** Records per deliver batch at moderate traffic, and at low traffic. */
const MODERATE_TRAFFIC_BATCH = 3;
const LOW_TRAFFIC_BATCH = 1;
const DAY_MS = 86_400_000;

const meter = new Meter();
const memory = lambdaMemoryMb(REPO_ROOT);
const context = (name: string, ms = 60_000): Context => createLambdaContext(`hookgate-${name}`, ms);
const sweeper = meter.wrap('sweeper', realHandlers.sweeper);
const exportWorker = meter.wrap('export', realHandlers.exportWorker);

const dataDir = await mkdtemp(join(tmpdir(), 'hookgate-bench-cost-'));
const gateway = await startGateway({
  port: 0,
  dataDir,
  log: (line) => progress(line),
  handlers: {
    api: meter.wrap('api', realHandlers.api),
    ingest: meter.wrap('ingest', realHandlers.ingest),
    // One batch at a time, as in one Lambda execution environment: the deliver handler keeps one
    // Powertools BatchProcessor per module, which two concurrent batches in one process would share.
    deliver: meter.wrap('deliver', realHandlers.deliver, { exclusive: true }),
  },
  env: {
    HOOKGATE_ALLOW_PRIVATE_DESTINATIONS: 'true',
    // Tries at the same count as production (5), seconds apart instead of minutes.
    HOOKGATE_RETRY_SCHEDULE: '0,1,1,1,1',
    // Production's level: the log lines are part of the cost.
    HOOKGATE_LOG_LEVEL: 'info',
    // As in Lambda, every invocation prints its EMF metric documents (the local runtime prints them
    // only at debug level), so their bytes are counted with the log lines.
    HOOKGATE_LOCAL: '0',
    // As in AWS, where TTL deletes an event once its window is over (dynalite has no TTL, so the local
    // gateway otherwise lets the sweeper do it at once).
    HOOKGATE_TTL_LAG_SECONDS: String(2 * DAY_MS / 1000),
  },
});
meter.install();
meter.captureOutput();
const sink = await startSink();
const api = apiClient(gateway.url);

type ScenarioResult = CostReport & {
  /** Most records per deliver batch (the event source mapping's BatchSize) and the endpoint's answer time. */
  deliver_batch_size: number;
  endpoint_ms: number;
  per_million_without_retention_usd: number;
  per_million_provisioned_without_retention_usd: number;
  per_million_provisioned_swinging_without_retention_usd: number;
  log_bytes_per_webhook_without_retention: number;
  sweep: unknown;
  seconds: number;
};
const scenarios: Record<string, ScenarioResult> = {};
let scenarioIndex = 0;

try {
  const account = await setupAccount(api);
  const destination = await account.destination(`${sink.url}/hooks`, BURST_MAX_IN_FLIGHT);
  // No source_id: inbound events of any source and outbound events both go to the one destination.
  await account.route({ destination_id: destination });
  const ingestUrl = `${gateway.url}/ingest/${account.token}`;

  const ingest = (extraHeaders: (seq: number) => Record<string, string> = () => ({}), url = ingestUrl) => async (seq: number) => {
    const body = webhookBody(seq, Date.now());
    const reply = await request(url, { method: 'POST', headers: { ...providerHeaders(body), ...extraHeaders(seq) }, body });
    if (reply.status !== 202) throw new Error(`ingest answered ${reply.status}: ${reply.text}`);
  };

  async function scenario(
    name: string,
    count: number,
    opts: {
      calls: number;
      concurrency: number;
      send: (seqBase: number, index: number) => Promise<void>;
      /** One delivery in ten fails (HTTP 500) on its first two tries. */
      failingTwice?: boolean;
      /** @default ENDPOINT_MS */
      endpointMs?: number;
      /** @default MODERATE_TRAFFIC_BATCH */
      batchSize?: number;
      /** Destinations each webhook is routed to (each has a path of its own at the sink). @default 1 */
      destinations?: number;
    },
  ) {
    const seqBase = ++scenarioIndex * 100_000;
    const endpointMs = opts.endpointMs ?? ENDPOINT_MS;
    const batchSize = opts.batchSize ?? MODERATE_TRAFFIC_BATCH;
    sink.respondWith(({ seq, attempt }) => ({ status: opts.failingTwice && seq % 10 === 0 && attempt <= 2 ? 500 : 200, delayMs: endpointMs }));
    gateway.setDeliverBatchSize(batchSize);
    await sleep(200);
    meter.reset();
    const started = Date.now();
    progress(`cost: ${name}: ${count} webhooks of 2 KB, batches of up to ${batchSize}, endpoint answering in ${endpointMs} ms...`);
    await pool(opts.calls, opts.concurrency, (i) => opts.send(seqBase, i));
    const expected = count * (opts.destinations ?? 1);
    const delivered = () =>
      new Set(sink.delivered().filter((a) => a.seq >= seqBase && a.seq < seqBase + count).map((a) => `${a.seq} ${a.path}`)).size;
    if (!(await waitUntil(() => delivered() >= expected, 180_000, 100))) throw new Error(`${name}: ${delivered()} of ${expected} deliveries made`);
    // Quiet: no deliver invocation running and none started for a while (outcome writes follow the POST).
    let seen = -1;
    while (seen !== meter.invocations.length || (meter.inFlight.get('deliver') ?? 0) > 0) {
      seen = meter.invocations.length;
      await sleep(600);
    }
    const seconds = (Date.now() - started) / 1000;
    // What the webhooks left stored: priced as kept for the retention (STORAGE_RETENTION_DAYS).
    const stored = { ...meter.stored };
    // Every event is deleted once its retention (1 day) ends: by TTL, for free. The sweep a day later
    // finds nothing left to delete: what it costs is its looking.
    const sweep = await sweeper({ time: new Date(Date.now() + 2 * DAY_MS).toISOString() } as never, context('sweeper', 15 * 60_000));
    const snapshot: MeterSnapshot = {
      invocations: [...meter.invocations],
      calls: [...meter.calls],
      logs: new Map(meter.logs),
      itemSizes: new Map(meter.itemSizes),
      stored,
    };
    const report = costReport(snapshot, count, memory, (fn) => fn !== 'outside');
    const withoutRetention = costReport(snapshot, count, memory, (fn) => fn !== 'outside' && fn !== 'sweeper');
    scenarios[name] = {
      ...report,
      deliver_batch_size: batchSize,
      endpoint_ms: endpointMs,
      per_million_without_retention_usd: withoutRetention.per_million_usd,
      per_million_provisioned_without_retention_usd: withoutRetention.per_million_provisioned_usd,
      per_million_provisioned_swinging_without_retention_usd: withoutRetention.per_million_provisioned_swinging_usd,
      log_bytes_per_webhook_without_retention: withoutRetention.log_bytes_per_webhook,
      sweep,
      seconds: round(seconds, 1),
    };
    progress(
      `cost: ${name}: $${report.per_million_usd.toFixed(2)} per million on-demand, $${report.per_million_provisioned_usd.toFixed(2)} / ` +
        `$${report.per_million_provisioned_swinging_usd.toFixed(2)} provisioned at 70% / 40%, ${report.deliver_avg_batch} records per deliver batch, ` +
        `${report.log_bytes_per_webhook} log bytes per webhook (${round(seconds, 1)} s, sweep ${JSON.stringify(sweep)})`,
    );
  }

  await scenario('happy_path', WEBHOOKS, { calls: WEBHOOKS, concurrency: 4, send: (base, i) => ingest()(base + i) });
  // Low traffic: every batch holds one record, as the event source mapping hands them out at ~1 webhook/s.
  await scenario('happy_path_low_traffic', LOW_TRAFFIC_WEBHOOKS, {
    calls: LOW_TRAFFIC_WEBHOOKS,
    concurrency: 4,
    batchSize: LOW_TRAFFIC_BATCH,
    send: (base, i) => ingest()(base + i),
  });
  // The best case, apart: an endpoint that answers at once, and a burst that fills the production batch size.
  await scenario('happy_path_best_case', BEST_CASE_WEBHOOKS, {
    calls: BEST_CASE_WEBHOOKS,
    concurrency: 4,
    endpointMs: 0,
    batchSize: DELIVERY_QUEUE.batchSize,
    send: (base, i) => ingest()(base + i),
  });
  // At a steady moderate rate (a batch's worth at a time, as fast as they are delivered): a failed try's
  // retry then comes between other deliveries' successes. Sent as a burst, the backlog (batches run one
  // at a time here) would put every retry at its end, in a row, and open the destination's breaker
  // after 5 consecutive failures: the outage section's case, not this one's.
  await scenario('retries_10pct', WEBHOOKS, {
    calls: WEBHOOKS / MODERATE_TRAFFIC_BATCH,
    concurrency: 1,
    failingTwice: true,
    send: async (base, i) => {
      await Promise.all(Array.from({ length: MODERATE_TRAFFIC_BATCH }, (_, j) => ingest()(base + i * MODERATE_TRAFFIC_BATCH + j)));
      await sleep(2 * ENDPOINT_MS);
    },
  });
  await scenario('happy_path_with_delivery_id', WEBHOOKS / 2, {
    calls: WEBHOOKS / 2,
    concurrency: 4,
    send: (base, i) => ingest((seq) => ({ 'webhook-id': `msg_${seq}` }))(base + i),
  });
  // One inbound webhook routed to ten destinations, all answering 200: a second account, so the
  // happy path's single route stays as it is.
  const fanout = await setupAccount(api);
  for (let d = 0; d < FANOUT_DESTINATIONS; d++) {
    await fanout.route({ destination_id: await fanout.destination(`${sink.url}/fanout/${d}`, BURST_MAX_IN_FLIGHT) });
  }
  await scenario('fanout_10', FANOUT_WEBHOOKS, {
    calls: FANOUT_WEBHOOKS,
    concurrency: 4,
    destinations: FANOUT_DESTINATIONS,
    send: (base, i) => ingest(undefined, `${gateway.url}/ingest/${fanout.token}`)(base + i),
  });
  await scenario('outbound_single', WEBHOOKS / 2, {
    calls: WEBHOOKS / 2,
    concurrency: 4,
    send: async (base, i) => {
      const reply = await api('POST', '/v1/outbound-events', {
        key: account.key,
        body: { payload: webhookBody(base + i, Date.now()), event_type: 'invoice.paid' },
      });
      if (reply.status !== 201) throw new Error(`publish answered ${reply.status}: ${reply.text}`);
    },
  });
  await scenario('outbound_batch', WEBHOOKS, {
    calls: WEBHOOKS / 100,
    concurrency: 2,
    send: async (base, i) => {
      const events = Array.from({ length: 100 }, (_, j) => ({ payload: webhookBody(base + i * 100 + j, Date.now()), event_type: 'invoice.paid' }));
      const reply = await api('POST', '/v1/outbound-events/batch', { key: account.key, body: { events } });
      if (reply.status !== 200) throw new Error(`batch publish answered ${reply.status}: ${reply.text}`);
    },
  });

  // Fixed monthly cost: one idle run of each scheduled function, times its runs per month.
  progress('cost: scheduled functions (one idle run each)...');
  const tick = async (fn: string, run: () => Promise<unknown>, perMonth: number) => {
    meter.reset();
    await run();
    const snapshot: MeterSnapshot = { invocations: [...meter.invocations], calls: [...meter.calls], logs: new Map(meter.logs) };
    const perRun = costReport(snapshot, 1, memory, (f) => f === fn).per_million_usd / 1e6;
    return { runs_per_month: perMonth, usd_per_run: perRun, usd_per_month: round(perRun * perMonth, 3), aws_calls_per_run: snapshot.calls.length };
  };
  const fixed = {
    export: await tick('export', () => exportWorker(scheduledEvent('hookgate-export'), context('export')), MINUTES_PER_MONTH),
    sweeper: await tick('sweeper', () => sweeper(scheduledEvent('hookgate-sweeper'), context('sweeper', 15 * 60_000)), HOURS_PER_MONTH),
    // The SQS event source mapping long-polls an empty queue too: about 5 pollers x 3 receives a minute.
    sqs_idle_polling: { runs_per_month: 15 * MINUTES_PER_MONTH, usd_per_run: PRICES.sqsPerRequest, usd_per_month: round(15 * MINUTES_PER_MONTH * PRICES.sqsPerRequest, 3) },
  };
  const fixedTotal = round(Object.values(fixed).reduce((sum, f) => sum + f.usd_per_month, 0), 2);

  const happy = scenarios.happy_path;
  const ingestInvocations = happy?.lambda.ingest?.invocations ?? 1;
  const ingestCalls = Object.entries(happy?.aws_calls ?? {})
    .filter(([key]) => key.startsWith('ingest '))
    .reduce((sum, [, n]) => sum + n, 0);
  writeResult({
    scenarios,
    fixed_monthly: { ...fixed, total_usd: fixedTotal },
    ingest_aws_calls_per_request_observed: round(ingestCalls / ingestInvocations, 3),
    memory_mb: memory,
  });
} finally {
  meter.releaseOutput();
  await sink.close();
  await gateway.close();
  await rm(dataDir, { recursive: true, force: true });
}
