/**
 * Section 4: local end to end. The gateway runs in its own process (bench/e2e-gateway.ts); this
 * process is the load and the destination. Phase 1: 50 closed-loop clients post 2 KB webhooks for
 * 30 s as fast as they are answered. Phase 2: an open-loop, paced load below the measured delivery
 * rate, to show latency when the local runtime is not saturated. Latency is from the moment a client
 * starts the request (written into the body) to the moment the destination has read the delivery.
 */
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { writeResult } from './lib/child';
import { startChildGateway } from './lib/child-gateway';
import { apiClient, BURST_MAX_IN_FLIGHT, providerHeaders, request, setupAccount, startSink, webhookBody, type Sink } from './lib/http';
import { percentile, pool, progress, round, sleep, waitUntil } from './lib/stats';

const CONCURRENCY = 50;
const DURATION_MS = 30_000;
const PACED_MS = 15_000;
const DRAIN_TIMEOUT_MS = 90_000;

const sink = await startSink();
const child = await startChildGateway().catch(async (error: unknown) => {
  await sink.close();
  throw error;
});
const { expect } = child;

/** Busy and total CPU time of the whole machine (Linux), to tell how much other work shared the cores. */
function machineCpu(): { busy: number; total: number } | undefined {
  if (!existsSync('/proc/stat')) return undefined;
  const ticks = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const total = ticks.reduce((sum, t) => sum + t, 0);
  return { busy: total - (ticks[3] ?? 0) - (ticks[4] ?? 0), total };
}

/** Cores busy over a window: the machine's, this process's (load and destination), and everything else's. */
function contention(start: { machine?: { busy: number; total: number }; own: NodeJS.CpuUsage; wall: number }, gatewayPercent: number) {
  const end = machineCpu();
  const own = process.cpuUsage(start.own);
  const ownCores = (own.user + own.system) / 1000 / (Date.now() - start.wall);
  if (!end || !start.machine) return { bench_process_cores: round(ownCores, 2) };
  const cores = os.cpus().length;
  const machineCores = ((end.busy - start.machine.busy) / Math.max(1, end.total - start.machine.total)) * cores;
  return {
    machine_busy_cores: round(machineCores, 2),
    bench_process_cores: round(ownCores, 2),
    // Other engineers' builds and tests on a shared machine: the gateway did not have these cores.
    other_processes_cores: round(Math.max(0, machineCores - ownCores - gatewayPercent / 100), 2),
  };
}

interface Phase {
  accepted: number[];
  rejected: number;
  ingestMs: number[];
  started: number;
  ended: number;
}

function deliveredStats(s: Sink, phase: Phase, label: string) {
  const accepted = new Set(phase.accepted);
  const first = new Map<number, { at: number; sentAt: number }>();
  for (const a of s.delivered()) if (accepted.has(a.seq) && !first.has(a.seq)) first.set(a.seq, { at: a.at, sentAt: a.sentAt });
  const latencies = [...first.values()].map((d) => d.at - d.sentAt);
  const seconds = (phase.ended - phase.started) / 1000;
  const inWindow = [...first.values()].filter((d) => d.at <= phase.ended).length;
  const lastAt = Math.max(phase.ended, ...[...first.values()].map((d) => d.at));
  const stats = {
    seconds: round(seconds, 1),
    accepted: phase.accepted.length,
    rejected: phase.rejected,
    accepted_per_s: round(phase.accepted.length / seconds, 1),
    delivered: first.size,
    delivered_per_s: round(inWindow / seconds, 1),
    drain_s: round((lastAt - phase.ended) / 1000, 1),
    // Once the load stops, only deliveries run: the local runtime's delivery capacity on its own.
    delivered_per_s_after_load: lastAt > phase.ended + 1000 ? round((first.size - inWindow) / ((lastAt - phase.ended) / 1000), 1) : null,
    delivered_per_s_including_drain: round(first.size / ((lastAt - phase.started) / 1000), 1),
    ingest_http_ms_p50: round(percentile(phase.ingestMs, 50), 1),
    ingest_http_ms_p99: round(percentile(phase.ingestMs, 99), 1),
    p50_ms: percentile(latencies, 50),
    p95_ms: percentile(latencies, 95),
    p99_ms: percentile(latencies, 99),
    max_ms: percentile(latencies, 100),
  };
  progress(`e2e: ${label}: ${JSON.stringify(stats)}`);
  return stats;
}

try {
  const { url } = child;
  progress(`e2e: gateway in its own process at ${url}`);
  const account = await setupAccount(apiClient(url));
  await account.route({ destination_id: await account.destination(`${sink.url}/hooks`, BURST_MAX_IN_FLIGHT) });
  const ingestUrl = `${url}/ingest/${account.token}`;
  let seq = 0;

  async function post(phase: Phase): Promise<void> {
    const mine = ++seq;
    const sentAt = Date.now();
    const body = webhookBody(mine, sentAt);
    const reply = await request(ingestUrl, { method: 'POST', headers: providerHeaders(body), body });
    phase.ingestMs.push(Date.now() - sentAt);
    if (reply.status === 202) phase.accepted.push(mine);
    else phase.rejected++;
  }
  const newPhase = (): Phase => ({ accepted: [], rejected: 0, ingestMs: [], started: Date.now(), ended: 0 });
  const drain = async (phase: Phase) => {
    const wanted = new Set(phase.accepted);
    await waitUntil(() => new Set(sink.delivered().filter((a) => wanted.has(a.seq)).map((a) => a.seq)).size >= wanted.size, DRAIN_TIMEOUT_MS, 100);
  };

  progress('e2e: warm-up (300 webhooks)...');
  const warm = newPhase();
  await pool(300, 10, () => post(warm));
  await drain(warm);

  progress(`e2e: ${CONCURRENCY} clients for ${DURATION_MS / 1000} s...`);
  child.send({ type: 'measure-start' });
  await expect('measuring');
  const load = newPhase();
  const cpuAtStart = { machine: machineCpu(), own: process.cpuUsage(), wall: Date.now() };
  const deadline = load.started + DURATION_MS;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) await post(load);
    }),
  );
  load.ended = Date.now();
  child.send({ type: 'measure-stop' });
  const { stats: gatewayStats } = (await expect('stats')) as unknown as { stats: Record<string, unknown> & { cpu_percent_of_one_core: number } };
  const cpuDuringLoad = contention(cpuAtStart, gatewayStats.cpu_percent_of_one_core);
  progress(`e2e: gateway process during the load: ${JSON.stringify(gatewayStats)}`);
  progress(`e2e: machine during the load (${os.cpus().length} cores): ${JSON.stringify(cpuDuringLoad)}`);
  progress('e2e: draining the backlog (no more ingest)...');
  child.send({ type: 'measure-start' });
  await expect('measuring');
  await drain(load);
  child.send({ type: 'measure-stop' });
  const { stats: drainStats } = (await expect('stats')) as unknown as { stats: Record<string, unknown> };
  progress(`e2e: gateway process while draining: ${JSON.stringify(drainStats)}`);
  const saturated = deliveredStats(sink, load, 'closed loop, 50 clients');

  // Phase 2: paced below what the runtime delivers, to see latency without a backlog.
  const rate = Math.max(20, Math.floor((saturated.delivered_per_s_including_drain * 0.7) / 10) * 10);
  progress(`e2e: paced load at ${rate} webhooks/s for ${PACED_MS / 1000} s...`);
  await sleep(1000);
  const paced = newPhase();
  const total = Math.round((rate * PACED_MS) / 1000);
  const inFlight: Array<Promise<void>> = [];
  for (let i = 0; i < total; i++) {
    const due = paced.started + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 0) await sleep(wait);
    inFlight.push(post(paced));
  }
  await Promise.all(inFlight);
  paced.ended = Date.now();
  await drain(paced);
  const pacedStats = deliveredStats(sink, paced, `open loop, ${rate}/s`);

  writeResult({
    concurrency: CONCURRENCY,
    duration_s: DURATION_MS / 1000,
    saturated,
    gateway: gatewayStats,
    machine_during_load: cpuDuringLoad,
    gateway_while_draining: drainStats,
    paced: { offered_per_s: rate, ...pacedStats },
  });
} finally {
  await child.stop();
  await sink.close();
}
