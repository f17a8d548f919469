/**
 * `npm run bench`: every benchmark section in its own process, then one table, the targets, a
 * closing note on what was missed and why, and bench/results.json (stable keys, for comparing runs).
 * Everything runs on loopback; every load is bounded in count and time.
 *
 * `npm run bench -- storm outage` runs only the sections named (by file: cold-start, hot-path, cost,
 * batch, e2e, export, outage, storm, hot-keys, soak, over-cap, lone-account) and prints only their rows; bench/results.json keeps
 * the other sections' figures and says under `sections_run_alone` when these ran.
 */
import type { HotKeys } from './hot-keys';
import type { LoneAccountResult } from './lone-account';
import type { OverCapResult } from './over-cap';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, runSection } from './lib/child';
import type { CostReport } from './lib/cost-model';
import type { SoakResult } from './lib/soak';
import { progress, round } from './lib/stats';
import { PRICES_AS_OF, PRICE_REGION } from './prices';

const TARGETS = {
  /**
   * Issue 37, per million webhooks, priced as moderate traffic runs (deliver batches of 3, the endpoint
   * answering in 200 ms), storage and point-in-time recovery for a 30-day retention included: the happy
   * path on-demand and on provisioned capacity at 70% utilisation, and one webhook to 10 destinations.
   */
  happy_path_usd: 5.0,
  happy_path_provisioned_usd: 3.0,
  fanout_10_usd: 20.0,
  ingest_aws_calls: 2,
  ingest_bundle_kb: 250,
  ingest_import_ms: 150,
  /** Issue 23: every function, not only ingest. */
  function_import_ms: 150,
  e2e_delivered_per_s: 200,
  e2e_p99_ms: 1000,
  batch10_ms: 500,
  /** A healthy destination's p99 beside a hanging one, once its breaker is open, against its p99 alone. */
  outage_p99_ratio: 2,
  /** Issue 24, the storm: a healthy destination's p99 beside one hanging at 40 events/s (after the storm's first 10 s), against its p99 alone. */
  storm_healthy_p99_ratio: 2,
  /** Requests the hanging endpoint may get beyond its max_in_flight and one per probe: the failed tries that open its breaker. */
  storm_hang_requests_beyond_cap_and_probes: 5,
  /**
   * DynamoDB and SQS requests per held delivery while the storm lasts: parked once (a share of a
   * receive and a delete, a read or two, a write), not woken every few seconds for as long as it waits.
   */
  storm_held_ops_per_held_delivery: 5,
  /** ...and per second once nothing new arrives: a probe's few requests at most, however many are held. */
  storm_held_ops_per_s_after_publishing: 1,
  /**
   * Issue 36: 1,000 events a second to one destination, and to one account, with no partition key past
   * DynamoDB's ~1,000 write and ~3,000 read units a second: on any key, per event (reads that recur
   * with time, the routing table's, divided by the events).
   */
  hot_key_wcu_per_event: 1,
  hot_key_rcu_per_event: 3,
  /** Issue 48: what one wait over a destination's cap costs: write units, read units, messages put back. */
  over_cap_wru_per_wait: 4,
  over_cap_rru_per_wait: 3,
  over_cap_messages_per_wait: 1,
  /** Issue 48: one account alone, 1,500 events to a 6 s endpoint at max_in_flight 1,000: all arrive once within this. */
  lone_account_s: 300,
  /**
   * Issue 36, the soak: growth of any thread's heap (after a full collection) over the four measured
   * minutes at 20 events/s, 4,800 events. Measured: within 0.5 MB; 2 MB is ~400 bytes an event. The
   * emulator thread grew 15.9 MB while dynalite left its iterators open.
   */
  soak_heap_growth_mb: 2,
  /**
   * ...and the process's resident set, whatever no heap shows (LevelDB, buffers, the allocator), in
   * MB a minute after the warm-up. Measured 7 (40% of it LevelDB's mapped table files, which grow
   * with the data stored); 95 while dynalite left its iterators open.
   */
  soak_rss_growth_mb_per_min: 25,
} as const;

const SECTIONS = ['cold-start', 'hot-path', 'cost', 'batch', 'e2e', 'export', 'outage', 'storm', 'hot-keys', 'soak', 'over-cap', 'lone-account'] as const;
type SectionName = (typeof SECTIONS)[number];
const chosen = process.argv.slice(2);
const unknownSections = chosen.filter((name) => !(SECTIONS as readonly string[]).includes(name));
if (unknownSections.length > 0) {
  console.error(`unknown section(s): ${unknownSections.join(', ')}; the sections are ${SECTIONS.join(', ')}`);
  process.exit(2);
}
const runs = (name: SectionName) => chosen.length === 0 || chosen.includes(name);

type Scenario = CostReport & {
  deliver_batch_size: number;
  endpoint_ms: number;
  per_million_without_retention_usd: number;
  per_million_provisioned_without_retention_usd: number;
  per_million_provisioned_swinging_without_retention_usd: number;
  log_bytes_per_webhook_without_retention: number;
  seconds: number;
};
interface CostResult {
  scenarios: Record<string, Scenario>;
  fixed_monthly: Record<string, { usd_per_month: number; runs_per_month?: number; usd_per_run?: number }> & { total_usd: number };
  ingest_aws_calls_per_request_observed: number;
  memory_mb: Record<string, number>;
}
interface HotSummary {
  cpu_ms_p50: number;
  cpu_ms_p99: number;
  wall_ms_p50: number;
  aws_calls_mean: number;
  first_call?: { aws_calls: number; cpu_ms: number };
  cpu_ms_per_record_p50?: number;
}
interface HotResult {
  ingest: HotSummary;
  deliver: HotSummary;
  deliver_batch10: HotSummary;
}
interface ColdHandler {
  /** What a cold start loads: the entry and the chunks it imports statically. */
  bundle_kb: number;
  bundle_gzip_kb: number;
  /** Chunks loaded only when a code path needs them (the S3 client, SSO credentials…). */
  lazy_chunks_kb: number;
  import_ms: number;
  ready_since_process_start_ms: number;
  largest_packages_kb: Record<string, number>;
}
interface ColdResult {
  runs: number;
  handlers: Record<string, ColdHandler>;
}
interface E2EPhase {
  seconds: number;
  accepted: number;
  accepted_per_s: number;
  delivered: number;
  delivered_per_s: number;
  delivered_per_s_including_drain: number;
  drain_s: number;
  delivered_per_s_after_load: number | null;
  ingest_http_ms_p50: number;
  ingest_http_ms_p99: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  max_ms: number;
}
interface GatewayStats {
  /** The whole gateway process, every thread. */
  cpu_percent_of_one_core: number;
  /** The main (HTTP, ingest and API) thread's event loop. */
  event_loop_utilization: number;
  threads: Record<string, { cpu_percent_of_one_core: number; event_loop_utilization: number } | null>;
  cpu_profile_percent: Record<string, number>;
}
interface E2EResult {
  concurrency: number;
  duration_s: number;
  saturated: E2EPhase;
  gateway: GatewayStats;
  machine_during_load: Record<string, number>;
  gateway_while_draining: GatewayStats;
  paced: E2EPhase & { offered_per_s: number };
}
interface BatchResult {
  sink_delay_ms: number;
  batch10_ms: number;
  batch10_delivered: number;
  batch10_post_arrival_ms: { first: number; last: number };
  hang: { timeout_ms: number; checked_at_ms: number; others_delivered_at_check: number; hung_status_at_check: string; batch_ms: number };
}
interface LatencyPhase {
  deliveries: number;
  p50_ms: number;
  p99_ms: number;
}
interface OutageResult {
  hang_timeout_ms: number;
  healthy_per_s: number;
  healthy_alone: LatencyPhase;
  healthy_beside_hanging_breaker_closed: LatencyPhase;
  healthy_beside_hanging_breaker_open: LatencyPhase;
  breaker_opened: boolean;
  breaker_open_after_s: number;
  hanging_tries_total: number;
  hanging_events_sent: number;
  retries_waiting: number;
  peak_in_flight_while_waiting: number;
  peak_delayed_while_waiting: number;
}
interface StormLatency {
  deliveries: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}
interface StormOps {
  sqs: number;
  dynamodb: number;
  by_operation: Record<string, number>;
}
interface StormResult {
  hang_timeout_ms: number;
  seconds: number;
  hanging_per_s: number;
  healthy_per_s: number;
  events_published: { hanging: number; healthy: number; refused: number };
  healthy_alone: StormLatency;
  healthy_during_storm: StormLatency;
  healthy_during_storm_after_10s: StormLatency;
  healthy_p99_ratio_after_10s: number | null;
  max_in_flight: number;
  breaker_threshold: number;
  breaker_opened_after_s: number | null;
  probes_allowed: number;
  hang_requests: number;
  hang_peak_in_flight: number;
  held_deliveries: number;
  held_delivery_seconds: number;
  held_ops: StormOps & { per_held_delivery: number | null };
  held_ops_after_publishing: StormOps & { seconds: number; per_s: number };
  main_thread_ops: StormOps;
  deliver_ops_of_no_account: StormOps;
}
type HotKeysResult = Record<string, HotKeys>;
interface ExportRun {
  status: string;
  rows: number;
  ms: number;
  peak_rss_mb: number;
  rss_before_mb: number;
  file_kb: number;
}
interface ExportResult {
  events: number;
  csv: ExportRun;
  json: ExportRun;
}

const startedAt = new Date();
const loadStart = os.loadavg()[0] ?? 0;
progress(`Hookgate benchmark: ${os.cpus().length} cores, Node ${process.version}, load average ${loadStart.toFixed(2)}; prices ${PRICE_REGION} as of ${PRICES_AS_OF}`);
if (loadStart > os.cpus().length * 0.5) progress(`note: the machine is already busy (load ${loadStart.toFixed(2)}): timings will be slower than on an idle machine`);

const failures: string[] = [];
async function section<T>(title: string, name: SectionName, timeoutMs: number): Promise<T | undefined> {
  if (!runs(name)) return undefined;
  const file = `${name}.ts`;
  const started = Date.now();
  progress(`── ${title} ──`);
  try {
    const result = await runSection<T>(file, timeoutMs);
    progress(`   ${title}: done in ${round((Date.now() - started) / 1000, 1)} s`);
    return result;
  } catch (error) {
    failures.push(`${title}: ${error instanceof Error ? error.message : String(error)}`);
    progress(`   ${title}: FAILED: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

const cold = await section<ColdResult>('3. cold start (bundle size, import time)', 'cold-start', 240_000);
const hot = await section<HotResult>('2. hot path (AWS answered instantly)', 'hot-path', 180_000);
const cost = await section<CostResult>('1. cost per million webhooks', 'cost', 600_000);
const batch = await section<BatchResult>('5. delivery concurrency in a batch', 'batch', 90_000);
const e2e = await section<E2EResult>('4. local end to end', 'e2e', 300_000);
const exported = await section<ExportResult>('6. export of 10,000 events', 'export', 240_000);
const outage = await section<OutageResult>('7. outage: a hanging destination, retries waiting', 'outage', 240_000);
const storm = await section<StormResult>('8. storm: a hanging destination at 40 events/s beside a healthy one', 'storm', 300_000);
const hotKeys = await section<HotKeysResult>('9. hot keys: units per event on the hottest partition key', 'hot-keys', 300_000);
const soak = await section<SoakResult>('10. soak: memory at a steady 20 events/s', 'soak', 480_000);
const overCap = await section<OverCapResult>('11. a delivery over its cap: what a wait costs', 'over-cap', 300_000);
const lone = await section<LoneAccountResult>('12. one account alone: 1,500 events to a 6 s endpoint', 'lone-account', 600_000);

// ---------------------------------------------------------------------------------------------------
// results.json

const scenarios = cost?.scenarios ?? {};
const usd = (name: string) => scenarios[name]?.per_million_usd ?? null;
const SCENARIOS = [
  'happy_path',
  'happy_path_best_case',
  'retries_10pct',
  'outbound_single',
  'outbound_batch',
  'happy_path_with_delivery_id',
  'happy_path_low_traffic',
  'fanout_10',
] as const;
/** One figure per scenario, and the happy path's without the retention sweep: the same keys in every map. */
function perScenario(figure: (s: Scenario) => number, withoutRetention: (s: Scenario) => number): Record<string, number | null> {
  const byName: Record<string, number | null> = Object.fromEntries(SCENARIOS.map((name) => [name, scenarios[name] ? figure(scenarios[name]) : null]));
  byName.happy_path_without_retention_deletes = scenarios.happy_path ? withoutRetention(scenarios.happy_path) : null;
  return byName;
}
const ingestCold = cold?.handlers.ingest;
const results = {
  at: startedAt.toISOString(),
  duration_s: round((Date.now() - startedAt.getTime()) / 1000, 0),
  machine: {
    cores: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memory_gb: round(os.totalmem() / 1024 ** 3, 1),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    load_average_at_start: round(loadStart, 2),
    load_average_at_end: round(os.loadavg()[0] ?? 0, 2),
  },
  prices: { region: PRICE_REGION, as_of: PRICES_AS_OF, file: 'bench/prices.ts' },
  targets: TARGETS,
  cost_per_million_usd: perScenario((s) => s.per_million_usd, (s) => s.per_million_without_retention_usd),
  cost_per_million_usd_provisioned: perScenario((s) => s.per_million_provisioned_usd, (s) => s.per_million_provisioned_without_retention_usd),
  cost_per_million_usd_provisioned_40pct: perScenario((s) => s.per_million_provisioned_swinging_usd, (s) => s.per_million_provisioned_swinging_without_retention_usd),
  /** What each scenario's figures assume: most records per deliver batch, and the endpoint's answer time. */
  cost_conditions: Object.fromEntries(
    Object.entries(scenarios).map(([name, s]) => [name, { deliver_batch_size: s.deliver_batch_size, deliver_avg_batch: s.deliver_avg_batch, endpoint_ms: s.endpoint_ms, webhooks: s.webhooks }]),
  ),
  log_bytes_per_webhook: perScenario((s) => s.log_bytes_per_webhook, (s) => s.log_bytes_per_webhook_without_retention),
  fixed_monthly_usd: cost?.fixed_monthly ?? null,
  cost_breakdown: Object.fromEntries(
    Object.entries(scenarios).map(([name, s]) => [
      name,
      {
        by_service: s.by_service,
        lines: s.lines,
        dynamo_by_item: s.dynamo_by_item,
        dynamo_by_operation: s.dynamo_by_operation,
        lambda: s.lambda,
        aws_calls_per_webhook: s.aws_calls,
        item_bytes: s.item_bytes,
        stored_bytes_per_webhook: s.stored_bytes_per_webhook,
        log_bytes_per_webhook: s.log_bytes_per_webhook,
        log_lines_per_webhook: s.log_lines,
        deliver_avg_batch: s.deliver_avg_batch,
        unit_check_against_dynalite: s.unit_check,
      },
    ]),
  ),
  lambda_memory_mb: cost?.memory_mb ?? null,
  ingest: {
    aws_calls_per_request: hot?.ingest.aws_calls_mean ?? null,
    aws_calls_first_request: hot?.ingest.first_call?.aws_calls ?? null,
    aws_calls_per_request_observed_in_cost_run: cost?.ingest_aws_calls_per_request_observed ?? null,
    handler_cpu_ms_p50: hot?.ingest.cpu_ms_p50 ?? null,
    handler_cpu_ms_p99: hot?.ingest.cpu_ms_p99 ?? null,
  },
  deliver: {
    aws_calls_per_delivery: hot?.deliver.aws_calls_mean ?? null,
    handler_cpu_ms_p50: hot?.deliver.cpu_ms_p50 ?? null,
    handler_cpu_ms_p99: hot?.deliver.cpu_ms_p99 ?? null,
    handler_cpu_ms_per_record_in_batch_of_10_p50: hot?.deliver_batch10.cpu_ms_per_record_p50 ?? null,
  },
  cold_start: cold?.handlers ?? null,
  e2e: e2e
    ? {
        concurrency: e2e.concurrency,
        duration_s: e2e.duration_s,
        accepted_per_s: e2e.saturated.accepted_per_s,
        delivered_per_s: e2e.saturated.delivered_per_s,
        delivered_per_s_including_drain: e2e.saturated.delivered_per_s_including_drain,
        drain_s: e2e.saturated.drain_s,
        delivered_per_s_after_load: e2e.saturated.delivered_per_s_after_load,
        p50_ms: e2e.saturated.p50_ms,
        p95_ms: e2e.saturated.p95_ms,
        p99_ms: e2e.saturated.p99_ms,
        ingest_http_ms_p50: e2e.saturated.ingest_http_ms_p50,
        ingest_http_ms_p99: e2e.saturated.ingest_http_ms_p99,
        gateway_process: e2e.gateway,
        machine_during_load: e2e.machine_during_load,
        gateway_process_while_draining: e2e.gateway_while_draining,
        paced: e2e.paced,
      }
    : null,
  batch10_200ms_sink_ms: batch?.batch10_ms ?? null,
  batch_with_hanging_destination: batch?.hang ?? null,
  export_10k: exported
    ? {
        csv_ms: exported.csv.ms,
        json_ms: exported.json.ms,
        peak_rss_mb: Math.max(exported.csv.peak_rss_mb, exported.json.peak_rss_mb),
        csv_peak_rss_mb: exported.csv.peak_rss_mb,
        json_peak_rss_mb: exported.json.peak_rss_mb,
        rss_before_run_mb: exported.csv.rss_before_mb,
        csv_file_kb: exported.csv.file_kb,
        json_file_kb: exported.json.file_kb,
        rows: exported.csv.rows,
      }
    : null,
  outage: outage ?? null,
  storm: storm ?? null,
  hot_keys: hotKeys ?? null,
  soak: soak ?? null,
  over_cap: overCap ?? null,
  lone_account: lone ?? null,
  failures,
};

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
/** `earlier` with every figure `later` has (not null) put in its place. */
function withFiguresOf(earlier: Json, later: Json): Json {
  const merged: Json = { ...earlier };
  for (const [key, value] of Object.entries(later)) {
    if (value === null || value === undefined) continue;
    merged[key] = isObject(value) && isObject(earlier[key]) ? withFiguresOf(earlier[key], value) : value;
  }
  return merged;
}
const resultsFile = fileURLToPath(new URL('bench/results.json', REPO_ROOT));
let written: Json = results;
if (chosen.length > 0 && existsSync(resultsFile)) {
  // The file stays the full run it was, with the figures of the sections run now in place of theirs.
  const { at, duration_s, machine, failures: failed, ...figures } = results;
  const earlier = JSON.parse(readFileSync(resultsFile, 'utf8')) as Json;
  const alone = isObject(earlier.sections_run_alone) ? earlier.sections_run_alone : {};
  const thisRun = { at, duration_s, load_average_at_start: machine.load_average_at_start, load_average_at_end: machine.load_average_at_end, failures: failed };
  written = { ...withFiguresOf(earlier, figures), sections_run_alone: { ...alone, ...Object.fromEntries(chosen.map((name) => [name, thisRun])) } };
}
writeFileSync(resultsFile, `${JSON.stringify(written, null, 2)}\n`);

// ---------------------------------------------------------------------------------------------------
// The table

const rows: Array<[string, string, string, string]> = [];
const fmt = (n: number | null | undefined, digits = 2, unit = '') => (n === null || n === undefined ? 'n/a' : `${n.toFixed(digits)}${unit}`);
const money = (n: number | null | undefined, suffix = '') => (n === null || n === undefined ? 'n/a' : `$${n.toFixed(2)}${suffix}`);
const verdict = (ok: boolean | null) => (ok === null ? '' : ok ? 'met' : 'MISSED');
/** The section the rows added next belong to: a run of some sections prints only theirs. */
let rowSection: SectionName = 'cost';
const add = (metric: string, value: string, target = '', status = '') => {
  if (runs(rowSection)) rows.push([metric, value, target, status]);
};

const happy = usd('happy_path');
const happyProvisioned = scenarios.happy_path?.per_million_provisioned_usd ?? null;
const fanout = usd('fanout_10');
/** On-demand / provisioned at 70% and 40% utilisation, and the CloudWatch log bytes of one webhook. */
const priced = (name: string) => {
  const s = scenarios[name];
  return s ? `${money(s.per_million_usd)} / ${money(s.per_million_provisioned_usd)} / ${money(s.per_million_provisioned_swinging_usd)}, ${s.log_bytes_per_webhook.toFixed(0)} log B` : 'n/a';
};
/** The batches a scenario ran at: most and average records, and the endpoint's answer time. */
const conditions = (name: string) => {
  const s = scenarios[name];
  return s ? `batches of ${s.deliver_batch_size} (avg ${s.deliver_avg_batch}), endpoint ${s.endpoint_ms} ms` : '?';
};
add(
  `1. cost / 1M: happy path (2 KB, 1 destination; ${conditions('happy_path')})`,
  priced('happy_path'),
  `<= $${TARGETS.happy_path_usd.toFixed(2)} on-demand`,
  verdict(happy === null ? null : happy <= TARGETS.happy_path_usd),
);
add(
  '   (on-demand / provisioned at 70% / at 40%, log bytes per webhook)',
  '',
  `<= $${TARGETS.happy_path_provisioned_usd.toFixed(2)} at 70%`,
  verdict(happyProvisioned === null ? null : happyProvisioned <= TARGETS.happy_path_provisioned_usd),
);
/** Storage and continuous backups of what a webhook leaves in the table, per million. */
const storageUsd = (s: Scenario) => s.lines.filter((l) => l.unit === 'byte-months').reduce((sum, l) => sum + l.usd_per_million, 0);
const stored = scenarios.happy_path?.stored_bytes_per_webhook;
add(
  '   ... of which storage and PITR, 30 days (bytes stored: table / indexes)',
  scenarios.happy_path ? `${money(storageUsd(scenarios.happy_path))} (${stored?.table.toFixed(0)} / ${stored?.indexes.toFixed(0)} B)` : 'n/a',
);
add('   ... of which retention deletes (sweeper)', money(happy !== null && scenarios.happy_path ? happy - scenarios.happy_path.per_million_without_retention_usd : null));
add(`   low traffic (${conditions('happy_path_low_traffic')})`, priced('happy_path_low_traffic'));
add(`   best case (${conditions('happy_path_best_case')})`, priced('happy_path_best_case'));
add('   10% of deliveries failing twice', priced('retries_10pct'));
add('   with a provider delivery id (de-duplication)', priced('happy_path_with_delivery_id'));
add('   one webhook to 10 destinations', priced('fanout_10'), `<= $${TARGETS.fanout_10_usd.toFixed(2)} on-demand`, verdict(fanout === null ? null : fanout <= TARGETS.fanout_10_usd));
add('   outbound publish, single', priced('outbound_single'));
add('   outbound publish, batch of 100', priced('outbound_batch'));
add('   fixed monthly (schedules, idle polling)', money(cost?.fixed_monthly.total_usd, ' a month'));
const calls = hot?.ingest.aws_calls_mean ?? null;
rowSection = 'hot-path';
add('2. AWS calls per ingest (warm)', fmt(calls, 2), `<= ${TARGETS.ingest_aws_calls}`, verdict(calls === null ? null : calls <= TARGETS.ingest_aws_calls));
add('   AWS calls per ingest (cold caches / observed)', `${hot?.ingest.first_call?.aws_calls ?? 'n/a'} / ${fmt(cost?.ingest_aws_calls_per_request_observed, 3)}`);
add('   ingest handler CPU p50 / p99', `${fmt(hot?.ingest.cpu_ms_p50, 3)} / ${fmt(hot?.ingest.cpu_ms_p99, 3)} ms`);
add('   deliver handler CPU p50 / p99 (1 record)', `${fmt(hot?.deliver.cpu_ms_p50, 3)} / ${fmt(hot?.deliver.cpu_ms_p99, 3)} ms`);
add('   AWS calls per delivery', fmt(hot?.deliver.aws_calls_mean, 2));
const bundleKb = ingestCold?.bundle_kb ?? null;
const importMs = ingestCold?.import_ms ?? null;
rowSection = 'cold-start';
add('3. ingest bundle (loaded at start)', `${fmt(bundleKb, 1, ' KB')} (+${fmt(ingestCold?.lazy_chunks_kb, 0, ' KB')} lazy)`, `< ${TARGETS.ingest_bundle_kb} KB`, verdict(bundleKb === null ? null : bundleKb < TARGETS.ingest_bundle_kb));
add('   ingest import (median, fresh Node 24)', fmt(importMs, 1, ' ms'), `< ${TARGETS.ingest_import_ms} ms`, verdict(importMs === null ? null : importMs < TARGETS.ingest_import_ms));
for (const [name, h] of Object.entries(cold?.handlers ?? {})) {
  if (name !== 'ingest') {
    add(
      `   ${name}: bundle / import`,
      `${h.bundle_kb.toFixed(0)} KB (+${h.lazy_chunks_kb.toFixed(0)} KB lazy) / ${h.import_ms.toFixed(0)} ms`,
      `< ${TARGETS.function_import_ms} ms`,
      verdict(h.import_ms < TARGETS.function_import_ms),
    );
  }
}
const delivered = e2e?.saturated.delivered_per_s ?? null;
const p99 = e2e?.saturated.p99_ms ?? null;
rowSection = 'e2e';
add(`4. e2e ${e2e?.concurrency ?? 50} clients, ${e2e?.duration_s ?? 30} s: accepted/s`, fmt(e2e?.saturated.accepted_per_s, 1));
add('   delivered/s (during the load)', fmt(delivered, 1), `>= ${TARGETS.e2e_delivered_per_s}`, verdict(delivered === null ? null : delivered >= TARGETS.e2e_delivered_per_s));
add('   delivered/s (load + drain)', `${fmt(e2e?.saturated.delivered_per_s_including_drain, 1)} (drain ${fmt(e2e?.saturated.drain_s, 1)} s)`);
add('   delivered/s once ingest stopped (deliveries only)', fmt(e2e?.saturated.delivered_per_s_after_load, 1));
add('   ingest-to-destination p50 / p95 / p99', `${fmt(e2e?.saturated.p50_ms, 0)} / ${fmt(e2e?.saturated.p95_ms, 0)} / ${fmt(p99, 0)} ms`, `p99 < ${TARGETS.e2e_p99_ms} ms`, verdict(p99 === null ? null : p99 < TARGETS.e2e_p99_ms));
add(`   paced at ${e2e?.paced.offered_per_s ?? '?'}/s: p50 / p95 / p99`, `${fmt(e2e?.paced.p50_ms, 0)} / ${fmt(e2e?.paced.p95_ms, 0)} / ${fmt(e2e?.paced.p99_ms, 0)} ms`);
add('   gateway process: CPU / event loop busy', `${fmt(e2e?.gateway.cpu_percent_of_one_core, 0)}% of a core / ${fmt(e2e ? e2e.gateway.event_loop_utilization * 100 : null, 0)}%`);
const batchMs = batch?.batch10_ms ?? null;
rowSection = 'batch';
add('5. batch of 10, destination answers in 200 ms', fmt(batchMs, 0, ' ms'), `about 200 ms, not 2 s (< ${TARGETS.batch10_ms} ms)`, verdict(batchMs === null ? null : batchMs < TARGETS.batch10_ms));
add(
  '   one destination hangs: others delivered by',
  batch ? `${batch.hang.others_delivered_at_check}/9 at ${batch.hang.checked_at_ms} ms (batch ends ${batch.hang.batch_ms} ms)` : 'n/a',
  'not held up',
  verdict(batch ? batch.hang.others_delivered_at_check === 9 : null),
);
rowSection = 'export';
add('6. export 10,000 rows: CSV / JSON', exported ? `${exported.csv.ms} / ${exported.json.ms} ms` : 'n/a');
add('   peak RSS (fresh process, bundled function)', exported ? `${exported.csv.peak_rss_mb} / ${exported.json.peak_rss_mb} MB` : 'n/a');
const ratio = outage ? round(outage.healthy_beside_hanging_breaker_open.p99_ms / outage.healthy_alone.p99_ms, 2) : null;
rowSection = 'outage';
add('7. outage: healthy destination alone p50 / p99', outage ? `${outage.healthy_alone.p50_ms} / ${outage.healthy_alone.p99_ms} ms` : 'n/a');
add('   beside one hanging with 10x traffic, breaker closed', outage ? `${outage.healthy_beside_hanging_breaker_closed.p50_ms} / ${outage.healthy_beside_hanging_breaker_closed.p99_ms} ms` : 'n/a');
add(
  '   ... once its breaker is open',
  outage ? `${outage.healthy_beside_hanging_breaker_open.p50_ms} / ${outage.healthy_beside_hanging_breaker_open.p99_ms} ms (${ratio}x alone; opened after ${outage.breaker_open_after_s} s)` : 'n/a',
  `p99 <= ${TARGETS.outage_p99_ratio}x alone`,
  verdict(ratio === null ? null : ratio <= TARGETS.outage_p99_ratio),
);
add('   hanging destination: tries made / events sent', outage ? `${outage.hanging_tries_total} / ${outage.hanging_events_sent}` : 'n/a');
add(`   ${outage?.retries_waiting ?? '?'} retries waiting: peak in flight / delayed`, outage ? `${outage.peak_in_flight_while_waiting} / ${outage.peak_delayed_while_waiting}` : 'n/a', 'in flight = tries running');
const stormRatio = storm?.healthy_p99_ratio_after_10s ?? null;
const hangLimit = storm ? storm.max_in_flight + TARGETS.storm_hang_requests_beyond_cap_and_probes + storm.probes_allowed : null;
const heldPer = storm?.held_ops.per_held_delivery ?? null;
const quietPerS = storm?.held_ops_after_publishing.per_s ?? null;
rowSection = 'storm';
add('8. storm: healthy destination alone p50 / p99', storm ? `${storm.healthy_alone.p50_ms} / ${storm.healthy_alone.p99_ms} ms` : 'n/a');
add(
  `   beside one hanging at ${storm?.hanging_per_s ?? '?'}/s, after the first 10 s`,
  storm ? `${storm.healthy_during_storm_after_10s.p50_ms} / ${storm.healthy_during_storm_after_10s.p99_ms} ms (${stormRatio}x alone)` : 'n/a',
  `p99 <= ${TARGETS.storm_healthy_p99_ratio}x alone`,
  verdict(stormRatio === null ? null : stormRatio <= TARGETS.storm_healthy_p99_ratio),
);
add(
  `   hanging endpoint: requests for ${storm?.events_published.hanging ?? '?'} events`,
  storm ? `${storm.hang_requests} (${storm.hang_peak_in_flight} at once at most; breaker open after ${storm.breaker_opened_after_s ?? 'never'} s)` : 'n/a',
  storm ? `<= ${hangLimit} (max_in_flight ${storm.max_in_flight} + ${TARGETS.storm_hang_requests_beyond_cap_and_probes} + ${storm.probes_allowed} probes)` : '',
  verdict(storm && hangLimit !== null ? storm.hang_requests <= hangLimit : null),
);
add(
  '   held deliveries: SQS / DynamoDB requests in the storm',
  storm ? `${storm.held_ops.sqs} / ${storm.held_ops.dynamodb} for ${storm.held_deliveries} held (${heldPer} each)` : 'n/a',
  `<= ${TARGETS.storm_held_ops_per_held_delivery} per held delivery`,
  verdict(heldPer === null ? null : heldPer <= TARGETS.storm_held_ops_per_held_delivery),
);
add(
  `   ... in the ${storm?.held_ops_after_publishing.seconds ?? '?'} s after it, nothing new arriving`,
  storm ? `${quietPerS}/s (${storm.held_ops_after_publishing.sqs} / ${storm.held_ops_after_publishing.dynamodb})` : 'n/a',
  `<= ${TARGETS.storm_held_ops_per_s_after_publishing}/s`,
  verdict(quietPerS === null ? null : quietPerS <= TARGETS.storm_held_ops_per_s_after_publishing),
);
rowSection = 'hot-keys';
const hotKeyScenarios = Object.entries(hotKeys ?? {});
const hotKeyMet = (s: HotKeys) => s.wcu_per_event <= TARGETS.hot_key_wcu_per_event && s.rcu_per_event <= TARGETS.hot_key_rcu_per_event;
add('9. hot keys: WCU / RCU per event on the hottest key', hotKeys ? '' : 'n/a', `<= ${TARGETS.hot_key_wcu_per_event} / <= ${TARGETS.hot_key_rcu_per_event}`);
for (const [name, s] of hotKeyScenarios) {
  add(`   ${name} (${s.events} events at ${s.events_per_s}/s${s.events_refused > 0 ? `, ${s.events_refused} refused` : ''})`, `${s.wcu_per_event} (${s.hottest_write_key_kind}) / ${s.rcu_per_event} (${s.hottest_read_key_kind})`, '', verdict(hotKeyMet(s)));
}
const heapGrowth = soak ? Math.max(...Object.values(soak.heap_used).map((g) => g.fitted_mb)) : null;
const rssPerMin = soak?.rss.mb_per_min ?? null;
rowSection = 'soak';
add(
  `10. soak ${soak?.rate_per_s ?? 20}/s, ${soak?.measured_s ?? '?'} s after ${soak?.warmup_s ?? '?'} s warm-up: delivered / not delivered by the drain's deadline, p50 / p99`,
  soak ? `${soak.delivered} / ${soak.undelivered}${soak.drained ? '' : ' (drain timed out)'}, ${soak.p50_ms} / ${soak.p99_ms} ms` : 'n/a',
);
add(
  '   heap after a full GC, growth: main / deliver / emulators',
  soak ? ['main', 'deliver', 'emulators'].map((name) => `${fmt(soak.heap_used[name]?.fitted_mb, 1)}`).join(' / ') + ' MB' : 'n/a',
  `< ${TARGETS.soak_heap_growth_mb} MB each`,
  verdict(heapGrowth === null ? null : heapGrowth < TARGETS.soak_heap_growth_mb),
);
add(
  '   resident set (whole process): first -> last, trend',
  soak ? `${soak.rss.first_mb} -> ${soak.rss.last_mb} MB, ${rssPerMin} MB/min${soak.rss_anon ? ` (anonymous ${soak.rss_anon.mb_per_min} MB/min)` : ''}` : 'n/a',
  `< ${TARGETS.soak_rss_growth_mb_per_min} MB/min`,
  verdict(rssPerMin === null ? null : rssPerMin < TARGETS.soak_rss_growth_mb_per_min),
);
rowSection = 'over-cap';
add(
  `11. over its cap (${overCap?.cap ?? '?'}, ${overCap?.waiting ?? '?'} waiting, ${overCap?.looks ?? '?'} looks): WRU / RRU / messages a wait`,
  overCap ? `${overCap.wru_per_wait} / ${overCap.rru_per_wait} / ${overCap.messages_per_wait}${overCap.all_delivered_once ? '' : ' (NOT all delivered once)'}` : 'n/a',
  `<= ${TARGETS.over_cap_wru_per_wait} / <= ${TARGETS.over_cap_rru_per_wait} / <= ${TARGETS.over_cap_messages_per_wait}`,
  verdict(
    overCap
      ? overCap.all_delivered_once &&
          overCap.wru_per_wait <= TARGETS.over_cap_wru_per_wait &&
          overCap.rru_per_wait <= TARGETS.over_cap_rru_per_wait &&
          overCap.messages_per_wait <= TARGETS.over_cap_messages_per_wait
      : null,
  ),
);
rowSection = 'lone-account';
add(
  `12. one account alone: ${lone?.events ?? '?'} events, ${lone ? lone.answer_ms / 1000 : '?'} s endpoint, max_in_flight ${lone?.max_in_flight ?? '?'} (share ${lone?.share ?? '?'} + borrowed ${lone?.borrowed ?? '?'})`,
  lone ? `${lone.arrived_once} once in ${lone.seconds ?? 'more than the deadline'} s, ${lone.peak_open} open at most, ${lone.repeated} repeated` : 'n/a',
  `all once <= ${TARGETS.lone_account_s} s`,
  verdict(lone ? lone.seconds !== null && lone.seconds <= TARGETS.lone_account_s && lone.arrived_once === lone.events && lone.repeated === 0 : null),
);

const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => (r[i] ?? '').length), ['Metric', 'Value', 'Target', ''][i]?.length ?? 0));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
console.log('');
console.log(line(['Metric', 'Value', 'Target', '']));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const r of rows) console.log(line(r));

const happyScenario = scenarios.happy_path;
if (happyScenario) {
  console.log('\nHappy path, $ per million webhooks by service:');
  for (const [service, value] of Object.entries(happyScenario.by_service).sort((a, b) => b[1] - a[1])) {
    console.log(`  ${service.padEnd(18)} ${value.toFixed(3).padStart(8)}`);
  }
  console.log('DynamoDB by item (units per webhook, $ per million):');
  for (const [item, u] of Object.entries(happyScenario.dynamo_by_item).sort((a, b) => b[1].usd_per_million - a[1].usd_per_million)) {
    if (u.usd_per_million < 0.005) continue;
    console.log(`  ${item.padEnd(30)} ${u.wru.toFixed(2).padStart(6)} WRU ${u.rru.toFixed(2).padStart(6)} RRU ${u.usd_per_million.toFixed(3).padStart(8)}`);
  }
  console.log('DynamoDB by function and operation (calls per webhook, $ per million):');
  for (const [op, u] of Object.entries(happyScenario.dynamo_by_operation).sort((a, b) => b[1].usd_per_million - a[1].usd_per_million)) {
    if (u.usd_per_million < 0.005) continue;
    console.log(`  ${op.padEnd(30)} ${u.calls.toFixed(2).padStart(6)} calls ${u.wru.toFixed(2).padStart(6)} WRU ${u.rru.toFixed(2).padStart(6)} RRU ${u.usd_per_million.toFixed(3).padStart(8)}`);
  }
}

// ---------------------------------------------------------------------------------------------------
// Closing note: each missed target, by how much, and what limits it.

const notes: string[] = [];
const pct = (measured: number, target: number) => `${Math.round((measured / target - 1) * 100)}%`;
if (happy !== null && happyScenario && (happy > TARGETS.happy_path_usd || (happyProvisioned ?? 0) > TARGETS.happy_path_provisioned_usd)) {
  const items = Object.entries(happyScenario.dynamo_by_item).sort((a, b) => b[1].usd_per_million - a[1].usd_per_million).slice(0, 4);
  const wru = happyScenario.lines.find((l) => l.item === 'write request units')?.quantity ?? 0;
  const deliver = happyScenario.lambda.deliver;
  notes.push(
    `Cost (${conditions('happy_path')}): $${happy.toFixed(2)} per million on-demand against $${TARGETS.happy_path_usd.toFixed(2)} (${pct(happy, TARGETS.happy_path_usd)}), ` +
      `$${(happyProvisioned ?? 0).toFixed(2)} provisioned at 70% against $${TARGETS.happy_path_provisioned_usd.toFixed(2)} (${pct(happyProvisioned ?? 0, TARGETS.happy_path_provisioned_usd)}). ` +
      `DynamoDB is $${(happyScenario.by_service.DynamoDB ?? 0).toFixed(2)} of it: ${wru.toFixed(1)} write units per webhook, mostly ` +
      items.map(([k, v]) => `${k} $${v.usd_per_million.toFixed(2)}`).join(', ') +
      `, and $${storageUsd(happyScenario).toFixed(2)} of storage and PITR. The deliver function is $${(deliver?.usd_per_million ?? 0).toFixed(2)} (p50 ${deliver ? Math.round(deliver.p50_ms) : '?'} ms a batch, most of it waiting for the endpoint). ` +
      `API Gateway alone is $${(happyScenario.by_service['API Gateway'] ?? 0).toFixed(2)}; the best case (${conditions('happy_path_best_case')}) is ${money(usd('happy_path_best_case'))}. See docs/scaling.md for the ranked changes.`,
  );
}
if (fanout !== null && fanout > TARGETS.fanout_10_usd) {
  const f = scenarios.fanout_10;
  notes.push(
    `Fan-out (${conditions('fanout_10')}): $${fanout.toFixed(2)} per million webhooks to 10 destinations against $${TARGETS.fanout_10_usd.toFixed(2)} (${pct(fanout, TARGETS.fanout_10_usd)}): ` +
      `DynamoDB $${(f?.by_service.DynamoDB ?? 0).toFixed(2)}, Lambda $${(f?.by_service.Lambda ?? 0).toFixed(2)}, SQS $${(f?.by_service.SQS ?? 0).toFixed(2)}.`,
  );
}
if (calls !== null && calls > TARGETS.ingest_aws_calls) notes.push(`Ingest makes ${calls} AWS calls on a warm function, ${round(calls - TARGETS.ingest_aws_calls, 2)} over the target of ${TARGETS.ingest_aws_calls}.`);
if (ingestCold && bundleKb !== null && bundleKb >= TARGETS.ingest_bundle_kb) {
  const top = Object.entries(ingestCold.largest_packages_kb).slice(0, 4).map(([k, v]) => `${k} ${v} KB`).join(', ');
  notes.push(`Ingest bundle: ${bundleKb} KB against ${TARGETS.ingest_bundle_kb} KB (${pct(bundleKb, TARGETS.ingest_bundle_kb)} over). Largest parts: ${top}.`);
}
if (ingestCold && importMs !== null && importMs >= TARGETS.ingest_import_ms) {
  notes.push(
    `Ingest import: ${importMs} ms against ${TARGETS.ingest_import_ms} ms (${pct(importMs, TARGETS.ingest_import_ms)} over). ` +
      `It is parse and evaluation of the ${bundleKb} KB bundle, on a machine with load average ${results.machine.load_average_at_start}.`,
  );
}
const slowImports = Object.entries(cold?.handlers ?? {}).filter(([name, h]) => name !== 'ingest' && h.import_ms >= TARGETS.function_import_ms);
if (slowImports.length > 0) {
  notes.push(
    `Imports over ${TARGETS.function_import_ms} ms: ${slowImports.map(([name, h]) => `${name} ${h.import_ms} ms`).join(', ')}, ` +
      `on a machine with load average ${results.machine.load_average_at_start}.`,
  );
}
/** Each thread's share, as `name cpu% (event loop busy%)`. */
const threadUse = (stats: GatewayStats) =>
  Object.entries(stats.threads ?? {})
    .flatMap(([name, use]) => (use ? [`${name} ${use.cpu_percent_of_one_core}% (loop ${Math.round(use.event_loop_utilization * 100)}% busy)`] : []))
    .join(', ');
if (e2e && ((delivered !== null && delivered < TARGETS.e2e_delivered_per_s) || (p99 !== null && p99 >= TARGETS.e2e_p99_ms))) {
  const profile = Object.entries(e2e.gateway.cpu_profile_percent).slice(0, 6).map(([k, v]) => `${k} ${v}%`).join(', ');
  notes.push(
    `End to end: ${delivered} delivered/s during the load against ${TARGETS.e2e_delivered_per_s} (${pct(delivered ?? 0, TARGETS.e2e_delivered_per_s)}), p99 ${p99} ms against ${TARGETS.e2e_p99_ms} ms. ` +
      `The local runtime is the limit, not Hookgate's code: the gateway (ingest and API on the main thread, deliveries and the emulators on threads of their own) used ${e2e.gateway.cpu_percent_of_one_core}% of one core (${threadUse(e2e.gateway)}), ` +
      `while other processes used ${e2e.machine_during_load.other_processes_cores ?? '?'} of the machine's cores. ` +
      `CPU by component on the main thread: ${profile}. With AWS answered instantly the handlers need ${hot?.ingest.cpu_ms_p50 ?? '?'} ms (ingest) and ${hot?.deliver.cpu_ms_p50 ?? '?'} ms (delivery) of CPU. ` +
      `Deliveries kept pace with ingest (${e2e.saturated.accepted_per_s}/s accepted, the backlog drained in ${e2e.saturated.drain_s} s), so the latency is the 50 clients queueing for a saturated machine (ingest HTTP p50 ${e2e.saturated.ingest_http_ms_p50} ms); ` +
      `at ${e2e.paced.offered_per_s}/s offered, p99 is ${e2e.paced.p99_ms} ms.`,
  );
}
if (batch && batchMs !== null && batchMs >= TARGETS.batch10_ms) notes.push(`Batch of 10: ${batchMs} ms against ~200 ms (POSTs left ${batch.batch10_post_arrival_ms.first}..${batch.batch10_post_arrival_ms.last} ms after the start).`);
if (outage && ratio !== null && ratio > TARGETS.outage_p99_ratio) {
  notes.push(
    `Outage: the healthy destination's p99 beside the hanging one, breaker open, is ${outage.healthy_beside_hanging_breaker_open.p99_ms} ms, ${ratio}x its ${outage.healthy_alone.p99_ms} ms alone (target ${TARGETS.outage_p99_ratio}x). ` +
      `No hanging try runs then; what remains is the local gateway's two cores doing ten ingests and ten held deliveries (a read, a write and a re-send each) for every healthy event.`,
  );
}
if (storm) {
  const held = storm.held_ops;
  const topOps = Object.entries(held.by_operation).slice(0, 4).map(([op, n]) => `${op} ${n}`).join(', ');
  if (stormRatio !== null && stormRatio > TARGETS.storm_healthy_p99_ratio) {
    notes.push(
      `Storm: the healthy destination's p99 after the storm's first 10 s is ${storm.healthy_during_storm_after_10s.p99_ms} ms, ${stormRatio}x its ${storm.healthy_alone.p99_ms} ms alone (target ${TARGETS.storm_healthy_p99_ratio}x). ` +
        `Beside it the gateway's two cores accepted ${storm.hanging_per_s} events/s for the hanging one and served ${held.sqs + held.dynamodb} SQS and DynamoDB requests for its held deliveries (${topOps}).`,
    );
  }
  if (hangLimit !== null && storm.hang_requests > hangLimit) {
    notes.push(
      `Storm: the hanging endpoint received ${storm.hang_requests} requests for ${storm.events_published.hanging} events, ${storm.hang_peak_in_flight} of them open at once, against at most ${hangLimit}: ` +
        `before its breaker opened (after ${storm.breaker_opened_after_s ?? '?'} s) nothing bounded the tries in flight to it, so each deliver slot that took one of its events hung for the ${storm.hang_timeout_ms} ms timeout.`,
    );
  }
  if (heldPer !== null && (heldPer > TARGETS.storm_held_ops_per_held_delivery || (quietPerS ?? 0) > TARGETS.storm_held_ops_per_s_after_publishing)) {
    notes.push(
      `Storm: the ${storm.held_deliveries} held deliveries (${storm.held_delivery_seconds} delivery-seconds of waiting) cost ${held.sqs} SQS and ${held.dynamodb} DynamoDB requests during the storm, ${heldPer} each, ` +
        `and ${quietPerS} a second once nothing new arrived. Each held delivery is parked once (its arrival's reads, its wait, its park, the count, a breaker re-read) and not touched again while it waits; what remains after the storm is the destination's own wakes and probes, a constant per destination, not per held delivery (${topOps}).`,
    );
  }
}
const hotKeysMissed = hotKeyScenarios.filter(([, s]) => !hotKeyMet(s));
if (hotKeysMissed.length > 0) {
  notes.push(
    `Hot keys: ${hotKeysMissed.length} of ${hotKeyScenarios.length} scenarios put more than ${TARGETS.hot_key_wcu_per_event} WCU or ${TARGETS.hot_key_rcu_per_event} RCU per event on one partition key: ` +
      hotKeysMissed
        .map(([name, s]) => `${name} ${s.wcu_per_event} WCU on ${s.hottest_write_key_kind}, ${s.rcu_per_event} RCU on ${s.hottest_read_key_kind} (busiest second ${s.hottest_write_key_peak_wcu_per_s} / ${s.hottest_read_key_peak_rcu_per_s})`)
        .join('; ') +
      '. See docs/scaling.md, Hot keys.',
  );
}
if (soak && ((heapGrowth ?? 0) >= TARGETS.soak_heap_growth_mb || (rssPerMin ?? 0) >= TARGETS.soak_rss_growth_mb_per_min)) {
  const byThread = Object.entries(soak.heap_used).map(([name, g]) => `${name} ${g.first_mb} -> ${g.last_mb} MB`).join(', ');
  notes.push(
    `Soak: memory grew under a steady ${soak.rate_per_s} events/s: heaps after a full collection ${byThread}; resident set ${soak.rss.first_mb} -> ${soak.rss.last_mb} MB (${rssPerMin} MB/min). ` +
      `A heap that grows is a leak in that thread's code (heap snapshots diffed by constructor find it); a resident set that grows while the heaps do not is native memory (LevelDB under dynalite, buffers, the allocator).`,
  );
}
if (lone && !(lone.seconds !== null && lone.seconds <= TARGETS.lone_account_s && lone.arrived_once === lone.events && lone.repeated === 0)) {
  const floor = Math.round((lone.events * lone.answer_ms) / 1000 / (lone.share + lone.borrowed));
  notes.push(
    `One account alone: ${lone.arrived_once} of ${lone.events} arrived in ${lone.seconds ?? 'more than the deadline of'} s (${lone.repeated} repeated), ${lone.peak_open} open at most, against all once within ${TARGETS.lone_account_s} s. ` +
      `Its share and what it may borrow hold ${lone.share + lone.borrowed} tries at once: ${lone.events} x ${lone.answer_ms / 1000} s / ${lone.share + lone.borrowed} = ${floor} s at the least, plus each waiting delivery's 2-5 s between looks.`,
  );
}
if (failures.length) notes.push(`Sections that failed: ${failures.join('; ')}`);

console.log('\nClosing note');
if (notes.length === 0) console.log('  Every target is met.');
for (const note of notes) console.log(`  - ${note}`);
console.log(`\nWrote bench/results.json (${results.duration_s} s in all).`);
if (failures.length) process.exitCode = 1;
