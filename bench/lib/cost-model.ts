/**
 * Turns what the meter saw (AWS calls, handler invocations, log lines) into dollars at list prices.
 *
 * Modelled rather than observed, because the local runtime does not make these calls through the
 * handlers' clients: API Gateway requests (one per ingest/api invocation), the SQS event source
 * mapping's ReceiveMessage (one per deliver batch) and DeleteMessageBatch (one per batch with a record
 * to delete), and the log bytes API Gateway adds around the handlers' own lines. Lambda adds none: its
 * system log level is WARN (lib/constructs/hookgate-function.ts), so no START, END or REPORT lines.
 *
 * Billed by the month rather than by the request: what the webhooks left in the table (the meter's net
 * stored bytes, indexes included), as storage and point-in-time recovery for STORAGE_RETENTION_DAYS.
 */
import {
  DAYS_PER_MONTH,
  LOG_EVENT_OVERHEAD_BYTES,
  PRICES,
  PROVISIONED_UTILIZATION,
  PROVISIONED_UTILIZATION_SWINGING,
  provisionedPerReadUnit,
  provisionedPerWriteUnit,
  STORAGE_RETENTION_DAYS,
} from '../prices';
import type { AwsCall, Invocation, LogTally, StoredBytes } from './meter';
import { percentile } from './stats';

export interface MeterSnapshot {
  invocations: Invocation[];
  calls: AwsCall[];
  logs: Map<string, LogTally>;
  itemSizes?: Map<string, { count: number; bytes: number; max: number }>;
  /** What the webhooks left stored (Meter.stored); without it nothing is charged for storage. */
  stored?: StoredBytes;
}

/**
 * Locally the handlers' logger prints `HH:MM:SS LEVEL message key=value` lines; in AWS Lambda the same
 * line is a Powertools JSON object that also carries the Lambda context. Each readable line is counted
 * at its local size plus these fields (minus the local time and level prefix). JSON lines (EMF metric
 * documents) are counted as printed.
 */
const LAMBDA_LOG_CONTEXT_BYTES =
  JSON.stringify({
    level: 'INFO',
    message: '',
    timestamp: '2026-11-21T14:03:54.123Z',
    service: 'hookgate-prod',
    sampling_rate: 0,
    cold_start: false,
    function_arn: 'arn:aws:lambda:us-east-1:123456789012:function:Hookgate-prod-Service-DeliverFunctionA1B2C3D4-AbCdEfGhIjKl',
    function_memory_size: '512',
    function_name: 'Hookgate-prod-Service-DeliverFunctionA1B2C3D4-AbCdEfGhIjKl',
    function_request_id: '8f5e2f9c-3b1d-4e7a-9c2b-5d6e7f8a9b0c',
    xray_trace_id: '1-6738a1b2-3c4d5e6f7a8b9c0d1e2f3a4b',
  }).length - '14:03:54 INFO '.length;
/** One access-log line per HTTP API request, with the fields of ACCESS_LOG_FORMAT in lib/service-stack.ts. */
const ACCESS_LOG_BYTES_PER_REQUEST =
  JSON.stringify({
    requestId: 'dGhpcy1pcy1hbi1pZA=',
    time: '1795097034123',
    ip: '203.0.113.10',
    route: 'POST /ingest/{token}',
    status: '202',
    latency: '31',
    error: '-',
  }).length + LOG_EVENT_OVERHEAD_BYTES;

interface CostLine {
  service: string;
  item: string;
  /** Per webhook. */
  quantity: number;
  unit: string;
  usd_per_million: number;
}

export interface CostReport {
  webhooks: number;
  /** DynamoDB on-demand. */
  per_million_usd: number;
  /** The same, with DynamoDB's units on provisioned capacity at PROVISIONED_UTILIZATION. */
  per_million_provisioned_usd: number;
  /** ...and at PROVISIONED_UTILIZATION_SWINGING. */
  per_million_provisioned_swinging_usd: number;
  /** Bytes each webhook leaves stored for STORAGE_RETENTION_DAYS, as DynamoDB bills them. */
  stored_bytes_per_webhook: StoredBytes;
  by_service: Record<string, number>;
  lines: CostLine[];
  /** Per webhook, by function and operation. */
  aws_calls: Record<string, number>;
  dynamo_by_operation: Record<string, { calls: number; rru: number; wru: number; usd_per_million: number }>;
  dynamo_by_item: Record<string, { rru: number; wru: number; usd_per_million: number }>;
  lambda: Record<string, { invocations: number; p50_ms: number; p99_ms: number; gb_s: number; usd_per_million: number }>;
  deliver_avg_batch: number;
  log_bytes_per_webhook: number;
  /** Application log lines and EMF documents per webhook, by function. */
  log_lines: Record<string, number>;
  /** Average and largest size of the items written, by kind (bytes as DynamoDB counts them). */
  item_bytes: Record<string, { avg: number; max: number }>;
  /** Our units against dynalite's ReturnConsumedCapacity (which has no index writes), whole run. */
  unit_check: { table_writes: { ours: number; dynalite: number }; reads: { ours: number; dynalite: number } };
}

const round = (n: number, digits = 4) => Number(n.toFixed(digits));

export function costReport(snapshot: MeterSnapshot, webhooks: number, memoryMb: Record<string, number>, include?: (fn: string) => boolean): CostReport {
  const keep = include ?? (() => true);
  const invocations = snapshot.invocations.filter((i) => keep(i.fn));
  const calls = snapshot.calls.filter((c) => keep(c.fn));
  const perWebhook = (n: number) => n / webhooks;
  const perMillion = (usd: number) => (usd / webhooks) * 1e6;
  const lines: CostLine[] = [];
  const line = (service: string, item: string, total: number, unit: string, usd: number) =>
    lines.push({ service, item, quantity: round(perWebhook(total), 5), unit, usd_per_million: round(perMillion(usd)) });

  // API Gateway: every ingest and api invocation came through the HTTP API.
  const httpRequests = invocations.filter((i) => i.fn === 'ingest' || i.fn === 'api').length;
  line('API Gateway', 'HTTP API requests', httpRequests, 'requests', httpRequests * PRICES.apiGatewayHttpPerRequest);

  // Lambda: requests and GB-s per function.
  const lambda: CostReport['lambda'] = {};
  for (const fn of [...new Set(invocations.map((i) => i.fn))].sort()) {
    const mine = invocations.filter((i) => i.fn === fn);
    const memory = memoryMb[fn] ?? 512;
    const gbs = mine.reduce((sum, i) => sum + Math.ceil(i.ms) / 1000, 0) * (memory / 1024);
    const usdRequests = mine.length * PRICES.lambdaPerRequest;
    const usdDuration = gbs * PRICES.lambdaArmPerGbSecond;
    line('Lambda', `${fn} requests`, mine.length, 'invocations', usdRequests);
    line('Lambda', `${fn} duration (${memory} MB)`, gbs, 'GB-s', usdDuration);
    const ms = mine.map((i) => i.ms);
    lambda[fn] = {
      invocations: round(perWebhook(mine.length), 5),
      p50_ms: round(percentile(ms, 50), 2),
      p99_ms: round(percentile(ms, 99), 2),
      gb_s: round(perWebhook(gbs), 7),
      usd_per_million: round(perMillion(usdRequests + usdDuration)),
    };
  }

  // DynamoDB: units by operation and by item kind.
  const dynamoByOperation: CostReport['dynamo_by_operation'] = {};
  const dynamoByItem: CostReport['dynamo_by_item'] = {};
  let rru = 0;
  let wru = 0;
  for (const call of calls.filter((c) => c.service === 'dynamodb')) {
    const key = `${call.fn} ${call.op}`;
    const entry = (dynamoByOperation[key] ??= { calls: 0, rru: 0, wru: 0, usd_per_million: 0 });
    entry.calls += 1;
    entry.rru += call.rru;
    entry.wru += call.wru;
    rru += call.rru;
    wru += call.wru;
    for (const [category, units] of Object.entries(call.byCategory)) {
      const item = (dynamoByItem[category] ??= { rru: 0, wru: 0, usd_per_million: 0 });
      item.rru += units.rru;
      item.wru += units.wru;
    }
  }
  const unitsUsd = (u: { rru: number; wru: number }) => u.rru * PRICES.dynamoPerReadRequestUnit + u.wru * PRICES.dynamoPerWriteRequestUnit;
  for (const entry of [...Object.values(dynamoByOperation), ...Object.values(dynamoByItem)]) {
    entry.usd_per_million = round(perMillion(unitsUsd(entry)));
    entry.rru = round(perWebhook(entry.rru), 4);
    entry.wru = round(perWebhook(entry.wru), 4);
  }
  for (const entry of Object.values(dynamoByOperation)) entry.calls = round(perWebhook(entry.calls), 4);
  line('DynamoDB', 'write request units', wru, 'WRU', wru * PRICES.dynamoPerWriteRequestUnit);
  line('DynamoDB', 'read request units', rru, 'RRU', rru * PRICES.dynamoPerReadRequestUnit);
  const dynamoOnDemand = perMillion(unitsUsd({ rru, wru }));
  const dynamoProvisioned = (utilization: number) => perMillion(rru * provisionedPerReadUnit(utilization) + wru * provisionedPerWriteUnit(utilization));

  // What the webhooks left in the table, kept for the retention whatever the capacity mode: storage
  // of the table and its indexes, and continuous backups of the table alone.
  const stored = snapshot.stored ?? { table: 0, indexes: 0 };
  const months = STORAGE_RETENTION_DAYS / DAYS_PER_MONTH;
  const byteMonths = (bytes: number) => Math.max(0, bytes) * months;
  const gbMonths = (bytes: number) => byteMonths(bytes) / 1024 ** 3;
  line('DynamoDB', `storage, table (${STORAGE_RETENTION_DAYS} days)`, byteMonths(stored.table), 'byte-months', gbMonths(stored.table) * PRICES.dynamoStoragePerGbMonth);
  line('DynamoDB', `storage, indexes (${STORAGE_RETENTION_DAYS} days)`, byteMonths(stored.indexes), 'byte-months', gbMonths(stored.indexes) * PRICES.dynamoStoragePerGbMonth);
  line('DynamoDB', `point-in-time recovery (${STORAGE_RETENTION_DAYS} days)`, byteMonths(stored.table), 'byte-months', gbMonths(stored.table) * PRICES.dynamoPitrPerGbMonth);

  // SQS: the handlers' own requests, plus the event source mapping's receives and deletes.
  const sqsByOp = new Map<string, number>();
  for (const call of calls.filter((c) => c.service === 'sqs')) sqsByOp.set(call.op, (sqsByOp.get(call.op) ?? 0) + call.sqsRequests);
  const batches = invocations.filter((i) => i.fn === 'deliver' && (i.records ?? 0) > 0);
  const receives = batches.reduce((sum, b) => sum + Math.max(1, Math.ceil(((b.receivedBytes ?? 0) + (b.records ?? 0) * 600) / PRICES.sqsChunkBytes)), 0);
  const deletes = batches.filter((b) => (b.records ?? 0) - (b.failures ?? 0) > 0).length;
  sqsByOp.set('ReceiveMessage (event source mapping)', receives);
  sqsByOp.set('DeleteMessageBatch (event source mapping)', deletes);
  for (const [op, count] of sqsByOp) line('SQS', op, count, 'requests', count * PRICES.sqsPerRequest);

  // S3.
  const s3Put = calls.reduce((sum, c) => sum + c.s3Put, 0);
  const s3Get = calls.reduce((sum, c) => sum + c.s3Get, 0);
  line('S3', 'PUT/COPY/POST/LIST requests', s3Put, 'requests', s3Put * PRICES.s3PutCopyPostListPerRequest);
  line('S3', 'GET requests', s3Get, 'requests', s3Get * PRICES.s3GetPerRequest);

  // CloudWatch Logs: handler lines (as Powertools prints them in Lambda) and API access logs.
  let appBytes = 0;
  for (const [fn, tally] of snapshot.logs) {
    if (!keep(fn)) continue;
    appBytes += tally.bytes + tally.textLines * LAMBDA_LOG_CONTEXT_BYTES + tally.lines * LOG_EVENT_OVERHEAD_BYTES;
  }
  const accessBytes = httpRequests * ACCESS_LOG_BYTES_PER_REQUEST;
  const gb = (bytes: number) => bytes / 1024 ** 3;
  line('CloudWatch Logs', 'handler log lines and EMF metrics', appBytes, 'bytes', gb(appBytes) * PRICES.logsIngestionPerGb);
  line('CloudWatch Logs', 'API Gateway access logs', accessBytes, 'bytes', gb(accessBytes) * PRICES.logsIngestionPerGb);

  const byService: Record<string, number> = {};
  for (const l of lines) byService[l.service] = round((byService[l.service] ?? 0) + l.usd_per_million);
  const awsCalls: Record<string, number> = {};
  for (const call of calls) {
    const key = `${call.fn} ${call.service}:${call.op}`;
    awsCalls[key] = (awsCalls[key] ?? 0) + 1;
  }
  for (const key of Object.keys(awsCalls)) awsCalls[key] = round(perWebhook(awsCalls[key] ?? 0), 4);

  // Cross-check against dynalite's own figures: table writes (it leaves indexes out) and all reads.
  const dynamoCalls = calls.filter((c) => c.service === 'dynamodb');
  const isWrite = (c: AwsCall) => /^(Put|Update|Delete|BatchWrite)/.test(c.op);
  const tableWrites = dynamoCalls
    .filter(isWrite)
    .reduce((sum, c) => sum + Object.entries(c.byCategory).reduce((s, [k, u]) => (k.startsWith('gsi') ? s : s + u.wru), 0), 0);
  const unitCheck = {
    table_writes: { ours: round(tableWrites, 1), dynalite: round(dynamoCalls.filter(isWrite).reduce((s, c) => s + c.dynaliteUnits, 0), 1) },
    reads: { ours: round(rru, 1), dynalite: round(dynamoCalls.filter((c) => !isWrite(c)).reduce((s, c) => s + c.dynaliteUnits, 0), 1) },
  };
  const perMillionUsd = Object.values(byService).reduce((a, b) => a + b, 0);
  return {
    webhooks,
    per_million_usd: round(perMillionUsd),
    per_million_provisioned_usd: round(perMillionUsd - dynamoOnDemand + dynamoProvisioned(PROVISIONED_UTILIZATION)),
    per_million_provisioned_swinging_usd: round(perMillionUsd - dynamoOnDemand + dynamoProvisioned(PROVISIONED_UTILIZATION_SWINGING)),
    stored_bytes_per_webhook: { table: round(perWebhook(stored.table), 1), indexes: round(perWebhook(stored.indexes), 1) },
    by_service: byService,
    lines,
    aws_calls: awsCalls,
    dynamo_by_operation: dynamoByOperation,
    dynamo_by_item: dynamoByItem,
    lambda,
    deliver_avg_batch: round(batches.reduce((sum, b) => sum + (b.records ?? 0), 0) / Math.max(1, batches.length), 2),
    log_bytes_per_webhook: round(perWebhook(appBytes + accessBytes), 1),
    log_lines: Object.fromEntries([...snapshot.logs].filter(([fn]) => keep(fn)).map(([fn, t]) => [fn, round(perWebhook(t.lines), 3)])),
    item_bytes: Object.fromEntries(
      [...(snapshot.itemSizes ?? new Map<string, { count: number; bytes: number; max: number }>())].map(([k, v]) => [
        k,
        { avg: Math.round(v.bytes / Math.max(1, v.count)), max: v.max },
      ]),
    ),
    unit_check: unitCheck,
  };
}
