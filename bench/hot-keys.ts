/**
 * Section 9: hot keys (issue 36). DynamoDB serves one partition key at most ~1,000 write and ~3,000
 * read units a second, in the table and in each index alike, so 1,000 events a second to one
 * destination or one account fit only if no key takes more than 1 write and 3 read units per event.
 * The local gateway runs in this process (emulators and the deliver function on threads of their
 * own) with its partition-load meter on (local/partition-load.ts): every request its functions send
 * is charged, by DynamoDB's unit rules, to each partition key it touches.
 *
 * Six scenarios, each through real HTTP at a fixed rate for a bounded number of events, each with an
 * account of its own: the happy path, fan-out to 10 destinations, a destination over its
 * `max_in_flight` (deliveries held, then released), a destination whose breaker is open, a paused
 * destination, and an account of 10,000 destinations whose routing changes every 3 s while events
 * flow (its destinations written through the store, as the API's per-create cap check reads them all
 * each time). Per scenario: the key that took the most write units and the one that took the most read
 * units over the scenario (its events and what follows them: deliveries, holds, releases), each one's
 * units divided by the events sent, and its busiest second. Reads that recur with time rather than
 * with events (the routing table, re-read every 5 s by each warm function) are divided by the same
 * events: at this rate they weigh more per event than at 1,000 a second.
 *
 * Keys of one event (its own partition, its de-duplication claim) are left out of the ranking: they
 * take that event's units however many others arrive, so they cannot grow hot with the rate, while a
 * key every event shares takes its units per event a thousand times a second at 1,000 events/s. (An
 * event fanned out to 10 destinations takes ~44 write units on its own partition, more than 100 events
 * put on a list index shard.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { partitionCategory } from '../local/ddb-units';
import { startGateway } from '../local/gateway';
import { hottest, PARTITION_LOAD_ENV, readPartitionLoad, type PartitionLoad } from '../local/partition-load';
import { writeResult } from './lib/child';
import { apiClient, BURST_MAX_IN_FLIGHT, providerHeaders, request, setupAccount, startSink, webhookBody } from './lib/http';
import { pool, progress, round, sleep } from './lib/stats';

const THREADS = ['main', 'deliver'];
const FANOUT = 10;
const IDLE_DESTINATIONS = 9_999;
const CHURN_EVERY_MS = 3000;
/** The concurrency cap of the over-cap scenario, and how long its endpoint takes: about 20 tries a second at most. */
const OVER_CAP = { max_in_flight: 2, delayMs: 100 };

export interface HotKeys {
  /** Units on the scenario's hottest write key, and on its hottest read key, per event sent. */
  wcu_per_event: number;
  rcu_per_event: number;
  hottest_write_key_kind: string;
  hottest_read_key_kind: string;
  /** Events sent and accepted; the refused (a 5xx, an ingest timed out) are not counted in them. */
  events: number;
  events_refused: number;
  events_per_s: number;
  /** The busiest second of each of those keys. */
  hottest_write_key_peak_wcu_per_s: number;
  hottest_read_key_peak_rcu_per_s: number;
  seconds: number;
}

const dataDir = await mkdtemp(join(tmpdir(), 'hookgate-bench-hot-keys-'));
const gateway = await startGateway({
  port: 0,
  dataDir,
  log: () => undefined,
  env: { HOOKGATE_ALLOW_PRIVATE_DESTINATIONS: 'true', HOOKGATE_LOG_LEVEL: 'warn', [PARTITION_LOAD_ENV]: '1' },
});
const sink = await startSink(({ path }) => {
  if (path === '/failing') return { status: 500 };
  if (path === '/capped') return { status: 200, delayMs: OVER_CAP.delayMs };
  return { status: 200 };
});
const api = apiClient(gateway.url);
// Imported once the gateway has set the environment the store reads.
const { findDestination, insertDestination } = await import('../lambdas/destinations/record');
const { newId, newSigningSecret } = await import('../lambdas/shared/secrets');

type Account = Awaited<ReturnType<typeof setupAccount>>;
let scenarioIndex = 0;
let refused = 0;

/** Each event published at its due time, whatever the earlier ones are doing; resolves with those accepted. */
async function publish(account: Account, count: number, perSecond: number, seqBase: number): Promise<number> {
  let accepted = 0;
  const start = Date.now();
  const pending: Array<Promise<void>> = [];
  for (let i = 0; i < count; i++) {
    const wait = start + (i * 1000) / perSecond - Date.now();
    if (wait > 0) await sleep(wait);
    const body = webhookBody(seqBase + i, Date.now());
    pending.push(
      request(`${gateway.url}/ingest/${account.token}`, { method: 'POST', headers: providerHeaders(body), body }).then((reply) => {
        if (reply.status === 202) accepted++;
        else refused++;
      }),
    );
  }
  await Promise.all(pending);
  return accepted;
}

const deliveredTo = (pathPrefix: string, seqBase: number) =>
  new Set(sink.delivered().filter((a) => a.path.startsWith(pathPrefix) && a.seq >= seqBase && a.seq < seqBase + 100_000).map((a) => `${a.seq} ${a.path}`)).size;

async function health(account: Account, destinationId: string): Promise<{ state: string; held: number }> {
  return (await api('GET', `/v1/destinations/${destinationId}`, { key: account.key })).json.data.health;
}

async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

/** Keys of other accounts are other scenarios' (their late deliveries, probes, releases); keys of no account are everyone's. */
const concerns = (accountId: string) => (p: PartitionLoad) => !p.pk.startsWith('ACCT#') || p.pk.startsWith(`ACCT#${accountId}`);
const ONE_EVENT_KINDS = new Set(['event partition', 'dedupe claim']);
const sharedByEvents = (p: PartitionLoad) => !ONE_EVENT_KINDS.has(partitionCategory(p.index, p.pk));

/**
 * Runs one scenario: `events` published at `perSecond` by `run` (which also waits for what follows
 * them), the load read over those seconds.
 */
async function scenario(name: string, account: Account, perSecond: number, run: (seqBase: number) => Promise<number>): Promise<HotKeys> {
  const seqBase = ++scenarioIndex * 100_000;
  progress(`hot keys: ${name}...`);
  // A reading counts whole seconds: the scenario starts on a fresh one, its account's setup in the seconds before.
  await sleep(1000 - (Date.now() % 1000));
  const started = Date.now();
  const refusedBefore = refused;
  const events = await run(seqBase);
  const ended = Date.now();
  const { partitions, unmetered } = await readPartitionLoad(THREADS, { since: started, until: ended });
  if (unmetered > 0) throw new Error(`${unmetered} requests could not be metered: the figures would be short`);
  const mine = partitions.filter(concerns(account.accountId)).filter(sharedByEvents);
  const write = hottest(mine, 'wcu');
  const read = hottest(mine, 'rcu');
  if (!write || !read || events === 0) throw new Error(`${name}: nothing was metered`);
  const result: HotKeys = {
    wcu_per_event: round(write.wcu / events, 2),
    rcu_per_event: round(read.rcu / events, 2),
    hottest_write_key_kind: partitionCategory(write.index, write.pk),
    hottest_read_key_kind: partitionCategory(read.index, read.pk),
    events,
    events_refused: refused - refusedBefore,
    events_per_s: perSecond,
    hottest_write_key_peak_wcu_per_s: write.peakWcuPerSecond,
    hottest_read_key_peak_rcu_per_s: read.peakRcuPerSecond,
    seconds: round((ended - started) / 1000, 1),
  };
  progress(
    `hot keys: ${name}: ${result.wcu_per_event} WCU/event on ${result.hottest_write_key_kind}, ${result.rcu_per_event} RCU/event on ${result.hottest_read_key_kind} (${events} events in ${result.seconds} s, ${result.events_refused} refused)`,
  );
  return result;
}

/** Deliveries made and their outcomes written: a POST answered is followed by the settlement writes. */
const SETTLE_MS = 2000;

/** A scenario that sends `count` events at `perSecond` and ends once `perEvent` deliveries of each reached `path`. */
function deliveredScenario(
  name: string,
  account: Account,
  load: { count: number; perSecond: number },
  arrival: { path: string; perEvent: number; timeoutMs: number; what?: string },
): Promise<HotKeys> {
  return scenario(name, account, load.perSecond, async (seqBase) => {
    const events = await publish(account, load.count, load.perSecond, seqBase);
    await until(arrival.what ?? 'every delivery', () => deliveredTo(arrival.path, seqBase) >= events * arrival.perEvent, arrival.timeoutMs);
    await sleep(SETTLE_MS);
    return events;
  });
}

try {
  const results: Record<string, HotKeys> = {};

  const happy = await setupAccount(api);
  await happy.route({ destination_id: await happy.destination(`${sink.url}/happy`, BURST_MAX_IN_FLIGHT) });
  results.happy_path = await deliveredScenario('happy_path', happy, { count: 200, perSecond: 20 }, { path: '/happy', perEvent: 1, timeoutMs: 60_000 });

  const fan = await setupAccount(api);
  for (let i = 0; i < FANOUT; i++) await fan.route({ destination_id: await fan.destination(`${sink.url}/fan/${i}`, BURST_MAX_IN_FLIGHT) });
  results.fanout_10 = await deliveredScenario('fanout_10', fan, { count: 100, perSecond: 10 }, { path: '/fan/', perEvent: FANOUT, timeoutMs: 90_000 });

  const capped = await setupAccount(api);
  await capped.route({ destination_id: await capped.destination(`${sink.url}/capped`, { max_in_flight: OVER_CAP.max_in_flight }) });
  results.over_cap = await deliveredScenario(
    'over_cap',
    capped,
    { count: 100, perSecond: 20 },
    { path: '/capped', perEvent: 1, timeoutMs: 90_000, what: 'every delivery (held ones released)' },
  );

  const failing = await setupAccount(api);
  const failingId = await failing.destination(`${sink.url}/failing`);
  await failing.route({ destination_id: failingId });
  progress('hot keys: breaker_open: failing a destination until its breaker opens');
  await publish(failing, 5, 10, 0);
  await until('the breaker opening', async () => (await health(failing, failingId)).state === 'open', 30_000);
  results.breaker_open = await scenario('breaker_open', failing, 20, async (seqBase) => {
    const events = await publish(failing, 150, 20, seqBase);
    await until('every event held', async () => (await health(failing, failingId)).held >= events, 60_000);
    await sleep(SETTLE_MS);
    return events;
  });

  const paused = await setupAccount(api);
  const pausedId = await paused.destination(`${sink.url}/paused`);
  await paused.route({ destination_id: pausedId });
  const off = await api('PATCH', `/v1/destinations/${pausedId}`, { key: paused.key, body: { active: false } });
  if (off.status !== 200) throw new Error(`pausing: HTTP ${off.status} ${off.text}`);
  results.paused = await scenario('paused', paused, 20, async (seqBase) => {
    const events = await publish(paused, 150, 20, seqBase);
    await until('every event held', async () => (await health(paused, pausedId)).held >= events, 60_000);
    await sleep(SETTLE_MS);
    return events;
  });

  const big = await setupAccount(api);
  const liveId = await big.destination(`${sink.url}/churn`, BURST_MAX_IN_FLIGHT);
  await big.route({ destination_id: liveId });
  const template = await findDestination(big.accountId, liveId);
  if (!template) throw new Error('the routed destination is not in the table');
  progress(`hot keys: routing_churn_10k: writing ${IDLE_DESTINATIONS} more destinations through the store...`);
  const idle: string[] = [];
  await pool(IDLE_DESTINATIONS, 16, async (i) => {
    const at = new Date().toISOString();
    const id = newId();
    await insertDestination({ ...template, id, name: `idle ${i}`, url: `${sink.url}/idle/${i}`, signing_secret: newSigningSecret(), created_at: at, updated_at: at });
    idle.push(id);
  });
  results.routing_churn_10k = await scenario('routing_churn_10k', big, 3, async (seqBase) => {
    let churning = true;
    let changes = 0;
    const churn = (async () => {
      while (churning) {
        const changed = await api('PATCH', `/v1/destinations/${idle[changes % idle.length]}`, { key: big.key, body: { name: `renamed ${changes}` } });
        if (changed.status !== 200) throw new Error(`a routing change: HTTP ${changed.status} ${changed.text}`);
        changes++;
        await sleep(CHURN_EVERY_MS);
      }
    })();
    const events = await publish(big, 45, 3, seqBase);
    await until('every delivery', () => deliveredTo('/churn', seqBase) >= events, 90_000);
    churning = false;
    await churn;
    await sleep(SETTLE_MS);
    progress(`hot keys: routing_churn_10k: ${changes} routing changes`);
    return events;
  });

  writeResult(results);
} finally {
  await sink.close();
  await gateway.close();
  await rm(dataDir, { recursive: true, force: true });
}
