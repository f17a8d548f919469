/**
 * Section 12: one account alone (issue 48). A deployment with one account sends 1,500 events to a
 * healthy endpoint that answers each in 6 s, its `max_in_flight` 1,000: a destination that slow is
 * under its cap, so its tries hold leases, and the account's share of the deliver batches (25 of the
 * default 100) would bind as if others waited. Past its share it borrows (all but one share's
 * batches while nobody else takes them), so all 1,500 should arrive, once each, within 300 s. The
 * local gateway runs in this process with the deliver mapping's default batches.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accountTries, borrowedTries } from '../lambdas/domain/max-in-flight';
import { DELIVERY_QUEUE } from '../lambdas/shared/resource-definitions';
import { startGateway } from '../local/gateway';
import { writeResult } from './lib/child';
import { apiClient, providerHeaders, request, setupAccount, startSink, webhookBody } from './lib/http';
import { pool, progress, round, sleep, waitUntil } from './lib/stats';

const EVENTS = 1_500;
const ANSWER_MS = 6_000;
const MAX_IN_FLIGHT = 1_000;
const DEADLINE_S = 300;

export interface LoneAccountResult {
  events: number;
  answer_ms: number;
  max_in_flight: number;
  share: number;
  borrowed: number;
  /** Seconds from the first publish to the last event's first arrival. */
  seconds: number | null;
  arrived_once: number;
  repeated: number;
  peak_open: number;
}

const dataDir = await mkdtemp(join(tmpdir(), 'hookgate-bench-lone-'));
const gateway = await startGateway({ port: 0, dataDir, log: () => undefined, env: { HOOKGATE_ALLOW_PRIVATE_DESTINATIONS: 'true', HOOKGATE_LOG_LEVEL: 'warn' } });
const sink = await startSink(() => ({ status: 200, delayMs: ANSWER_MS }));

/** The most requests open at once, each open from its arrival until its answer ANSWER_MS later. */
function peakOpen(times: readonly number[]): number {
  const edges = times.flatMap((at) => [
    [at, 1],
    [at + ANSWER_MS, -1],
  ]);
  edges.sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]!);
  let open = 0;
  let peak = 0;
  for (const [, step] of edges) peak = Math.max(peak, (open += step!));
  return peak;
}

try {
  const api = apiClient(gateway.url);
  const account = await setupAccount(api);
  await account.route({ destination_id: await account.destination(`${sink.url}/slow`, { max_in_flight: MAX_IN_FLIGHT }) });
  progress(`lone account: ${EVENTS} events to an endpoint answering in ${ANSWER_MS / 1000} s, max_in_flight ${MAX_IN_FLIGHT}`);
  const started = Date.now();
  await pool(EVENTS, 20, async (seq) => {
    const body = webhookBody(seq, Date.now());
    const reply = await request(`${gateway.url}/ingest/${account.token}`, { method: 'POST', headers: providerHeaders(body), body });
    if (reply.status !== 202) throw new Error(`ingest: HTTP ${reply.status}`);
  });
  const arrivedSeqs = () => new Set(sink.arrivals.map((a) => a.seq)).size;
  const allArrived = await waitUntil(() => arrivedSeqs() >= EVENTS, (DEADLINE_S + 120) * 1000, 500);
  // The last tries answered and settled: a repeat would show now, and closing the sink fails none.
  await sleep(ANSWER_MS + 2_000);
  const firsts = new Map<number, number>();
  for (const a of sink.arrivals) if (!firsts.has(a.seq)) firsts.set(a.seq, a.at);
  const share = accountTries(DELIVERY_QUEUE.maxConcurrency);
  const result: LoneAccountResult = {
    events: EVENTS,
    answer_ms: ANSWER_MS,
    max_in_flight: MAX_IN_FLIGHT,
    share,
    borrowed: borrowedTries(DELIVERY_QUEUE.maxConcurrency, share),
    seconds: allArrived ? round((Math.max(...firsts.values()) - started) / 1000, 1) : null,
    arrived_once: firsts.size,
    repeated: sink.arrivals.length - firsts.size,
    peak_open: peakOpen(sink.arrivals.map((a) => a.at)),
  };
  progress(`lone account: ${result.arrived_once} arrived in ${result.seconds ?? `more than ${DEADLINE_S + 120}`} s, ${result.peak_open} open at most, ${result.repeated} repeated`);
  writeResult(result);
} finally {
  await sink.close();
  await gateway.close();
  await rm(dataDir, { recursive: true, force: true });
}
