/**
 * Section 8: the storm (issue 24). Account A's destination never answers (`timeout_ms` 5000) and is
 * sent 40 events a second for 40 s, each published when its time comes whatever the earlier ones are
 * doing; account B's healthy destination is sent 2 a second over the same 40 s. The gateway runs in a
 * process of its own (bench/e2e-gateway.ts) with the retry schedule 0,3,600 and a 1 s route cache.
 *
 * Measured: B's delivery latency alone, then during the storm for its events published after the
 * storm's first 10 s; the requests A's hanging endpoint received (and most held open at once); and
 * the DynamoDB and SQS requests A's held deliveries cost, counted inside the gateway by the account
 * each request is about (local/call-counts.ts): during the storm, and over 10 s after it while nothing
 * new arrives, which is what holding costs by the second. Held deliveries are A's that were never
 * tried; the deliver side's requests for A also include its few tries (counted in `hang_requests`).
 */
import { DEFAULT_BREAKER } from '../lambdas/domain/breaker';
import { CALL_COUNTS_ENV, type CallCount } from '../local/call-counts';
import { writeResult } from './lib/child';
import { startChildGateway } from './lib/child-gateway';
import { apiClient, providerHeaders, request, setupAccount, startSink, webhookBody } from './lib/http';
import { percentile, progress, round, sleep, waitUntil } from './lib/stats';

const HANG_TIMEOUT_MS = 5000;
const STORM_S = 40;
const HANGING_PER_S = 40;
const HEALTHY_PER_S = 2;
/** B's storm latency counts its events published after this many seconds of the storm. */
const SETTLE_S = 10;
/** B alone: as many events as it gets in the part of the storm that counts, at the same rate. */
const ALONE_S = STORM_S - SETTLE_S;
const QUIET_S = 10;
const ENV = {
  HOOKGATE_RETRY_SCHEDULE: '0,3,600',
  HOOKGATE_ROUTE_CACHE_SECONDS: '1',
  [CALL_COUNTS_ENV]: '1',
};
/** Sequence numbers (in each body, matched by the sink): B's warm-up and alone phase from 1, the storm's apart. */
const HANGING_SEQ = 1_000_000;
const HEALTHY_STORM_SEQ = 2_000_000;

const sink = await startSink(({ path }) => (path === '/hang' ? 'hang' : { status: 200 }));
const gateway = await startChildGateway(ENV).catch(async (error: unknown) => {
  await sink.close();
  throw error;
});

interface Published {
  seq: number;
  at: number;
}

/** Each seq's first delivery: its latency from the moment it was published. */
function latencies(path: string, published: Published[]) {
  const wanted = new Map(published.map((p) => [p.seq, p.at]));
  const first = new Map<number, number>();
  for (const a of sink.arrivals) if (a.path === path && wanted.has(a.seq) && !first.has(a.seq)) first.set(a.seq, a.at - (wanted.get(a.seq) ?? a.at));
  const values = [...first.values()];
  return { deliveries: values.length, p50_ms: percentile(values, 50), p99_ms: percentile(values, 99), max_ms: percentile(values, 100) };
}

async function readCalls(): Promise<CallCount[]> {
  gateway.send({ type: 'calls' });
  const answer = (await gateway.expect('calls', 15_000)) as unknown as { calls?: CallCount[]; error?: string };
  if (!answer.calls) throw new Error(`the gateway could not count its calls: ${answer.error}`);
  return answer.calls;
}

/** The requests of one thread about one account between two readings, by service and by operation. */
function requestsBetween(before: CallCount[], after: CallCount[], thread: string, account: string) {
  const byOp = new Map<string, number>();
  for (const [list, sign] of [[after, 1], [before, -1]] as const) {
    for (const c of list) {
      if (c.thread !== thread || c.account !== account) continue;
      const key = `${c.service} ${c.op}`;
      byOp.set(key, (byOp.get(key) ?? 0) + sign * c.requests);
    }
  }
  const total = (service: string) => round([...byOp].filter(([k]) => k.startsWith(`${service} `)).reduce((sum, [, n]) => sum + n, 0), 0);
  const byOperation = Object.fromEntries([...byOp].filter(([, n]) => Math.round(n) > 0).sort((x, y) => y[1] - x[1]).map(([k, n]) => [k, round(n, 0)]));
  return { sqs: total('sqs'), dynamodb: total('dynamodb'), by_operation: byOperation };
}

try {
  const api = apiClient(gateway.url);
  const hanging = await setupAccount(api);
  const hangId = await hanging.destination(`${sink.url}/hang`, { timeout_ms: HANG_TIMEOUT_MS });
  await hanging.route({ destination_id: hangId });
  const healthy = await setupAccount(api);
  await healthy.route({ destination_id: await healthy.destination(`${sink.url}/healthy`) });
  const destination = async () => (await api('GET', `/v1/destinations/${hangId}`, { key: hanging.key })).json.data;
  const maxInFlight = Number((await destination()).max_in_flight ?? 10);

  let rejected = 0;
  const publish = async (token: string, seq: number, into: Published[]) => {
    const at = Date.now();
    const body = webhookBody(seq, at);
    const reply = await request(`${gateway.url}/ingest/${token}`, { method: 'POST', headers: providerHeaders(body), body });
    if (reply.status === 202) into.push({ seq, at });
    else rejected++;
  };
  /** Publishes each item at its due time (ms after `start`), without waiting for the ones before. */
  const publishPaced = async (start: number, items: Array<{ due: number; token: string; seq: number; into: Published[] }>) => {
    const pending: Array<Promise<void>> = [];
    for (const item of items.sort((x, y) => x.due - y.due)) {
      const wait = start + item.due - Date.now();
      if (wait > 0) await sleep(wait);
      pending.push(publish(item.token, item.seq, item.into));
    }
    await Promise.all(pending);
  };
  const healthyPaced = (count: number, firstSeq: number, into: Published[]) =>
    Array.from({ length: count }, (_, i) => ({ due: (i * 1000) / HEALTHY_PER_S, token: healthy.token, seq: firstSeq + i, into }));
  const allDelivered = (path: string, published: Published[]) => () => latencies(path, published).deliveries >= published.length;

  progress('storm: warm-up (10 events to the healthy destination)');
  const warm: Published[] = [];
  await publishPaced(Date.now(), healthyPaced(10, 1, warm).map((item) => ({ ...item, due: item.due / 5 })));
  await waitUntil(allDelivered('/healthy', warm), 30_000);

  progress(`storm: the healthy destination alone, ${HEALTHY_PER_S}/s for ${ALONE_S} s`);
  const alonePublished: Published[] = [];
  await publishPaced(Date.now(), healthyPaced(HEALTHY_PER_S * ALONE_S, 100, alonePublished));
  await waitUntil(allDelivered('/healthy', alonePublished), 30_000);
  const alone = latencies('/healthy', alonePublished);
  progress(`storm: alone p50 ${alone.p50_ms} ms, p99 ${alone.p99_ms} ms`);

  progress(`storm: ${HANGING_PER_S}/s to the hanging destination (timeout ${HANG_TIMEOUT_MS} ms) and ${HEALTHY_PER_S}/s to the healthy one, for ${STORM_S} s`);
  const hangPublished: Published[] = [];
  const healthyPublished: Published[] = [];
  const items = [
    ...Array.from({ length: HANGING_PER_S * STORM_S }, (_, i) => ({ due: (i * 1000) / HANGING_PER_S, token: hanging.token, seq: HANGING_SEQ + i, into: hangPublished })),
    ...healthyPaced(HEALTHY_PER_S * STORM_S, HEALTHY_STORM_SEQ, healthyPublished),
  ];

  // What the breaker and the hanging endpoint go through, sampled for the whole storm and the quiet after.
  let watching = true;
  const openUntils = new Set<string>();
  let openedAt: number | undefined;
  let peakHanging = 0;
  const watchBreaker = (async () => {
    while (watching) {
      const health = (await destination()).health as { state: string; open_until: string | null };
      if (health.state === 'open') openedAt ??= Date.now();
      if (health.open_until) openUntils.add(health.open_until);
      await sleep(500);
    }
  })();
  const watchSink = (async () => {
    while (watching) {
      peakHanging = Math.max(peakHanging, sink.hangingNow());
      await sleep(100);
    }
  })();

  const before = await readCalls();
  const stormStart = Date.now();
  await publishPaced(stormStart, items);
  const publishedFor = round((Date.now() - stormStart) / 1000, 1);
  await waitUntil(allDelivered('/healthy', healthyPublished), 60_000);
  const stormEnd = Date.now();
  const afterStorm = await readCalls();
  progress(`storm: published in ${publishedFor} s, the healthy destination's last delivery ${round((stormEnd - stormStart) / 1000 - STORM_S, 1)} s after; ${QUIET_S} s with nothing new...`);
  await sleep(QUIET_S * 1000);
  const quietEnd = Date.now();
  const afterQuiet = await readCalls();
  watching = false;
  await Promise.all([watchBreaker, watchSink]);

  const hangArrivals = sink.arrivals.filter((a) => a.path === '/hang' && a.at >= stormStart && a.at <= quietEnd);
  const tried = new Set(hangArrivals.map((a) => a.seq));
  const held = hangPublished.filter((p) => !tried.has(p.seq));
  // Each time the breaker's cooldown ends one probe may go: one per distinct `open_until` that passed.
  const probes = [...openUntils].filter((at) => Date.parse(at) <= quietEnd).length;
  const heldOps = requestsBetween(before, afterStorm, 'deliver', hanging.accountId);
  const quietOps = requestsBetween(afterStorm, afterQuiet, 'deliver', hanging.accountId);
  const afterSettle = healthyPublished.filter((p) => p.at >= stormStart + SETTLE_S * 1000);
  const stormAfterSettle = latencies('/healthy', afterSettle);

  writeResult({
    hang_timeout_ms: HANG_TIMEOUT_MS,
    seconds: STORM_S,
    hanging_per_s: HANGING_PER_S,
    healthy_per_s: HEALTHY_PER_S,
    env: { HOOKGATE_RETRY_SCHEDULE: ENV.HOOKGATE_RETRY_SCHEDULE, HOOKGATE_ROUTE_CACHE_SECONDS: ENV.HOOKGATE_ROUTE_CACHE_SECONDS },
    events_published: { hanging: hangPublished.length, healthy: healthyPublished.length, refused: rejected },
    published_in_s: publishedFor,
    healthy_alone: alone,
    healthy_during_storm: latencies('/healthy', healthyPublished),
    healthy_during_storm_after_10s: stormAfterSettle,
    healthy_p99_ratio_after_10s: alone.p99_ms > 0 ? round(stormAfterSettle.p99_ms / alone.p99_ms, 2) : null,
    max_in_flight: maxInFlight,
    breaker_threshold: DEFAULT_BREAKER.threshold,
    breaker_opened_after_s: openedAt === undefined ? null : round((openedAt - stormStart) / 1000, 1),
    probes_allowed: probes,
    hang_requests: hangArrivals.length,
    hang_peak_in_flight: peakHanging,
    held_deliveries: held.length,
    held_delivery_seconds: round(held.reduce((sum, p) => sum + (stormEnd - p.at), 0) / 1000, 0),
    held_ops: { ...heldOps, per_held_delivery: held.length > 0 ? round((heldOps.sqs + heldOps.dynamodb) / held.length, 2) : null },
    held_ops_after_publishing: { seconds: round((quietEnd - stormEnd) / 1000, 1), ...quietOps, per_s: round((quietOps.sqs + quietOps.dynamodb) / ((quietEnd - stormEnd) / 1000), 1) },
    // Ingest accepting A's events, and the API answering this section's reads of A's destination.
    main_thread_ops: requestsBetween(before, afterStorm, 'main', hanging.accountId),
    // What the deliver side sent about no account during the storm (empty receives): were a delivery's
    // requests to land here, held_ops would miss them.
    deliver_ops_of_no_account: requestsBetween(before, afterStorm, 'deliver', ''),
  });
} finally {
  await gateway.stop();
  await sink.close();
}
