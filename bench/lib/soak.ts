import { startChildGateway } from './child-gateway';
import { apiClient, BURST_MAX_IN_FLIGHT, providerHeaders, request, setupAccount, startSink, webhookBody } from './http';
import { percentile, round, sleep, waitUntil } from './stats';

/**
 * A soak: the local gateway as `npm start` runs it (bench/e2e-gateway.ts, a process of its own) under
 * a steady open-loop load of 2 KB webhooks to one destination, its memory read every few seconds:
 * the process's resident set and each thread's heap after a full collection. What grows after the
 * warm-up is what a long run would run out of. bench/soak.ts runs it for minutes and records the
 * figures; test/reliability/soak.test.ts runs it for a minute and fails when memory grows.
 */

/** What bench/e2e-gateway.ts answers to `memory`, in bytes. */
export interface GatewayMemory {
  /** The whole process: every thread's heap, and what no heap shows (LevelDB under dynalite, buffers, the allocator). */
  rss: number;
  /**
   * Linux only: the resident set's anonymous part (heaps, malloc, LevelDB's caches) and its file pages
   * (LevelDB maps its table files: pages the kernel may drop, and which grow with the data stored).
   */
  rss_anon?: number;
  rss_file?: number;
  /**
   * Each JS thread (main, deliver, emulators) after a full collection: V8 heap used (what the thread's
   * code holds on to) and committed (what of the heap is resident). Not its external memory: read
   * right after a collection it moved in steps of 5-8 MB that heap snapshots (array buffers included)
   * did not show.
   */
  threads: Record<string, { heap_used: number; heap_physical: number }>;
}

export interface SoakOptions {
  ratePerS: number;
  /** Load before the window whose growth counts: caches fill, heaps and the allocator reach their working size. */
  warmupS: number;
  /** The window after the warm-up. */
  measureS: number;
  sampleEveryS: number;
  /** How long after the load the accepted events have to reach the destination. Default 60 s. */
  drainS?: number;
  log?: (line: string) => void;
}

/** One reading, in MB. */
interface SoakSample {
  at_s: number;
  sent: number;
  delivered: number;
  rss_mb: number;
  rss_anon_mb: number | null;
  rss_file_mb: number | null;
  /** Each thread's V8 heap used after a full collection. */
  heap_used_mb: Record<string, number>;
  /** Each thread's V8 heap as committed (what of it is resident). */
  heap_physical_mb: Record<string, number>;
}

/** How a figure moved over the window: its first and last readings, and the least-squares slope of all of them. */
interface Growth {
  first_mb: number;
  last_mb: number;
  mb_per_min: number;
  /** The slope over the whole window: the growth the readings agree on, not one reading's luck. */
  fitted_mb: number;
}

export interface SoakResult {
  rate_per_s: number;
  warmup_s: number;
  measured_s: number;
  accepted: number;
  refused: number;
  /**
   * Why requests were not accepted (`HTTP <status>`, or the request's error code), and how many. A
   * list: bench/run.ts merges a section's objects into the earlier results key by key, and would keep
   * a reason this run did not see.
   */
  refusals: Array<{ reason: string; count: number }>;
  delivered: number;
  /** Whether every accepted event reached the destination within the drain's deadline. */
  drained: boolean;
  /**
   * Accepted and not delivered when the drain's deadline passed: a slow drain (a timeout), not a loss,
   * since nothing shows them gone.
   */
  undelivered: number;
  /** Latency from the request's start to the destination's read of the delivery, over the window. */
  p50_ms: number;
  p99_ms: number;
  /** Over the window: the resident set (on Linux its anonymous part too), each thread's heap after a full collection. */
  rss: Growth;
  rss_anon: Growth | null;
  heap_used: Record<string, Growth>;
  samples: SoakSample[];
}

const MB = 1024 * 1024;
const mb = (bytes: number) => round(bytes / MB, 1);
const mbOrNull = (bytes: number | undefined) => (bytes === undefined ? null : mb(bytes));

/** The least-squares line through the readings: its slope per minute, and how far it climbs over theirs. */
function growthOf(points: ReadonlyArray<{ at_s: number; mb: number }>): Growth {
  const n = points.length;
  const meanT = points.reduce((sum, p) => sum + p.at_s, 0) / n;
  const meanV = points.reduce((sum, p) => sum + p.mb, 0) / n;
  const sxx = points.reduce((sum, p) => sum + (p.at_s - meanT) ** 2, 0);
  const slopePerS = sxx === 0 ? 0 : points.reduce((sum, p) => sum + (p.at_s - meanT) * (p.mb - meanV), 0) / sxx;
  const span = (points.at(-1)?.at_s ?? 0) - (points[0]?.at_s ?? 0);
  return {
    first_mb: points[0]?.mb ?? 0,
    last_mb: points.at(-1)?.mb ?? 0,
    mb_per_min: round(slopePerS * 60, 2),
    fitted_mb: round(slopePerS * span, 1),
  };
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const { ratePerS, warmupS, measureS, sampleEveryS, drainS = 60, log = () => undefined } = options;
  const sink = await startSink();
  // V8 drops the bytecode of functions that have not run for a while: the start-up code's, 3 to 5 MB a
  // thread, went at some point in the first minutes, and a window that held the drop hid as much growth.
  // Kept, a heap grows only by what the code holds (and the code first run in the window, a few hundred KB).
  const gateway = await startChildGateway({}, ['--no-flush-bytecode']).catch(async (error: unknown) => {
    await sink.close();
    throw error;
  });
  try {
    const account = await setupAccount(apiClient(gateway.url));
    await account.route({ destination_id: await account.destination(`${sink.url}/hooks`, BURST_MAX_IN_FLIGHT) });
    const ingestUrl = `${gateway.url}/ingest/${account.token}`;
    const accepted = new Set<number>();
    const refusals: Record<string, number> = {};
    const inFlight = new Set<Promise<void>>();
    const samples: SoakSample[] = [];
    const delivered = () => new Set(sink.delivered().map((a) => a.seq)).size;

    const total = Math.round(ratePerS * (warmupS + measureS));
    const started = Date.now();
    let sent = 0;
    const sample = async (): Promise<void> => {
      const at = (Date.now() - started) / 1000;
      gateway.send({ type: 'memory' });
      const { memory } = (await gateway.expect('memory')) as unknown as { memory: GatewayMemory };
      const reading: SoakSample = {
        at_s: round(at, 1),
        sent,
        delivered: delivered(),
        rss_mb: mb(memory.rss),
        rss_anon_mb: mbOrNull(memory.rss_anon),
        rss_file_mb: mbOrNull(memory.rss_file),
        heap_used_mb: Object.fromEntries(Object.entries(memory.threads).map(([name, heap]) => [name, mb(heap.heap_used)])),
        heap_physical_mb: Object.fromEntries(Object.entries(memory.threads).map(([name, heap]) => [name, mb(heap.heap_physical)])),
      };
      samples.push(reading);
      log(`soak: ${JSON.stringify(reading)}`);
    };
    // Beside the load, not in its way: a reading (three full collections) must not hold up the requests due meanwhile.
    const sampler = (async () => {
      for (let next = 0; next < warmupS + measureS; next += sampleEveryS) {
        const wait = started + next * 1000 - Date.now();
        if (wait > 0) await sleep(wait);
        await sample();
      }
    })();
    for (; sent < total; sent++) {
      const wait = started + (sent * 1000) / ratePerS - Date.now();
      if (wait > 0) await sleep(wait);
      const seq = sent;
      const body = webhookBody(seq, Date.now());
      const post = request(ingestUrl, { method: 'POST', headers: providerHeaders(body), body })
        .then(
          (reply) => (reply.status === 202 ? undefined : `HTTP ${reply.status}`),
          (error: unknown) => String((error as { code?: unknown }).code ?? error),
        )
        .then((refusal) => {
          if (refusal === undefined) accepted.add(seq);
          else refusals[refusal] = (refusals[refusal] ?? 0) + 1;
        });
      inFlight.add(post);
      void post.finally(() => inFlight.delete(post));
    }
    await sampler;
    await sample();
    await Promise.all(inFlight);
    const isDelivered = () => new Set(sink.delivered().filter((a) => accepted.has(a.seq)).map((a) => a.seq)).size >= accepted.size;
    const drained = await waitUntil(isDelivered, drainS * 1000, 100);

    const window = samples.filter((s) => s.at_s >= warmupS);
    const windowStart = started + warmupS * 1000;
    const first = new Map<number, number>();
    for (const a of sink.delivered()) if (a.sentAt >= windowStart && !first.has(a.seq)) first.set(a.seq, a.at - a.sentAt);
    const latencies = [...first.values()];
    const deliveredAccepted = new Set(sink.delivered().filter((a) => accepted.has(a.seq)).map((a) => a.seq)).size;
    return {
      rate_per_s: ratePerS,
      warmup_s: warmupS,
      measured_s: round((window.at(-1)?.at_s ?? 0) - (window[0]?.at_s ?? 0), 1),
      accepted: accepted.size,
      refused: Object.values(refusals).reduce((sum, n) => sum + n, 0),
      refusals: Object.entries(refusals).map(([reason, count]) => ({ reason, count })),
      delivered: deliveredAccepted,
      drained,
      undelivered: accepted.size - deliveredAccepted,
      p50_ms: percentile(latencies, 50),
      p99_ms: percentile(latencies, 99),
      rss: growthOf(window.map((s) => ({ at_s: s.at_s, mb: s.rss_mb }))),
      rss_anon: window.every((s) => s.rss_anon_mb !== null) ? growthOf(window.map((s) => ({ at_s: s.at_s, mb: s.rss_anon_mb ?? 0 }))) : null,
      heap_used: Object.fromEntries(
        Object.keys(window[0]?.heap_used_mb ?? {}).map((name) => [name, growthOf(window.map((s) => ({ at_s: s.at_s, mb: s.heap_used_mb[name] ?? 0 })))]),
      ),
      samples,
    };
  } finally {
    await gateway.stop();
    await sink.close();
  }
}
