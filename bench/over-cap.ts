/**
 * Section 11: a delivery over its destination's cap (issue 48). Two tries hold a cap of 2 (the
 * endpoint answers them after 20 s) while 40 more deliveries to it wait in the queue and look again;
 * over 12 s in which nothing but those looks happens, every DynamoDB unit and SQS request of the
 * account is a wait's. A look that finds the cap full is one refused conditional write on the
 * destination's one lease map, so the map's write units in the window are the looks; the figures are
 * the account's units and requests divided by them. The local gateway runs in this process with its
 * partition-load meter and call counts on.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CALL_COUNTS_ENV, readCallCounts, type CallCount } from '../local/call-counts';
import { partitionCategory } from '../local/ddb-units';
import { startGateway } from '../local/gateway';
import { PARTITION_LOAD_ENV, readPartitionLoad } from '../local/partition-load';
import { writeResult } from './lib/child';
import { apiClient, providerHeaders, request, setupAccount, startSink, webhookBody } from './lib/http';
import { progress, round, sleep, waitUntil } from './lib/stats';

const CAP = 2;
const HOLD_MS = 20_000;
const WAITING = 40;
/** After the waiting deliveries are accepted: their first looks (and the first wait each writes) are over. */
const SETTLE_MS = 3_000;
const WINDOW_MS = 12_000;
const THREADS = ['main', 'deliver'];
const LEASE_MAP = partitionCategory(undefined, 'ACCT#a#LEASES#d#0');

export interface OverCapResult {
  cap: number;
  waiting: number;
  window_s: number;
  looks: number;
  wru_per_wait: number;
  rru_per_wait: number;
  /** SQS requests the deliver side made for the account, per wait (receive, wait, delete shares). */
  sqs_requests_per_wait: number;
  /** Messages each wait puts back: SendMessage and SendMessageBatch entries, and ChangeMessageVisibility. */
  messages_per_wait: number;
  sqs_by_operation: Record<string, number>;
  all_delivered_once: boolean;
}

const dataDir = await mkdtemp(join(tmpdir(), 'hookgate-bench-over-cap-'));
const gateway = await startGateway({
  port: 0,
  dataDir,
  log: () => undefined,
  env: { HOOKGATE_ALLOW_PRIVATE_DESTINATIONS: 'true', HOOKGATE_LOG_LEVEL: 'warn', [PARTITION_LOAD_ENV]: '1', [CALL_COUNTS_ENV]: '1' },
});
let holdMs = HOLD_MS;
const sink = await startSink(() => ({ status: 200, delayMs: holdMs }));

/** One account's deliver-side SQS requests between two readings, by operation. */
function sqsBetween(before: CallCount[], after: CallCount[], account: string): Map<string, number> {
  const byOp = new Map<string, number>();
  for (const [list, sign] of [[after, 1], [before, -1]] as const) {
    for (const c of list) if (c.thread === 'deliver' && c.account === account && c.service === 'sqs') byOp.set(c.op, (byOp.get(c.op) ?? 0) + sign * c.requests);
  }
  return byOp;
}

try {
  const api = apiClient(gateway.url);
  const account = await setupAccount(api);
  await account.route({ destination_id: await account.destination(`${sink.url}/capped`, { max_in_flight: CAP, timeout_ms: 30_000 }) });
  const publish = async (seq: number) => {
    const body = webhookBody(seq, Date.now());
    const reply = await request(`${gateway.url}/ingest/${account.token}`, { method: 'POST', headers: providerHeaders(body), body });
    if (reply.status !== 202) throw new Error(`ingest: HTTP ${reply.status}`);
  };

  progress(`over cap: ${CAP} tries hold the cap for ${HOLD_MS / 1000} s`);
  await Promise.all(Array.from({ length: CAP }, (_, i) => publish(i)));
  if (!(await waitUntil(() => sink.arrivals.length >= CAP, 30_000))) throw new Error('the tries that hold the cap never arrived');
  const held = Date.now();
  progress(`over cap: ${WAITING} more wait over it`);
  await Promise.all(Array.from({ length: WAITING }, (_, i) => publish(CAP + i)));
  await sleep(SETTLE_MS);
  const since = Date.now();
  const callsBefore = await readCallCounts(THREADS);
  await sleep(WINDOW_MS);
  const until = Date.now();
  const callsAfter = await readCallCounts(THREADS);
  if (sink.arrivals.length > CAP || until > held + HOLD_MS) throw new Error('a try ended within the window: it measured more than waits (a machine too busy?)');
  const { partitions, unmetered } = await readPartitionLoad(THREADS, { since, until });
  if (unmetered > 0) throw new Error(`${unmetered} requests could not be metered`);
  const mine = partitions.filter((p) => p.pk.startsWith(`ACCT#${account.accountId}`));
  const looks = mine.filter((p) => partitionCategory(p.index, p.pk) === LEASE_MAP).reduce((sum, p) => sum + p.wcu, 0);
  if (looks === 0) throw new Error('no delivery looked at the cap within the window');
  const wcu = mine.reduce((sum, p) => sum + p.wcu, 0);
  const rcu = mine.reduce((sum, p) => sum + p.rcu, 0);
  const sqs = sqsBetween(callsBefore, callsAfter, account.accountId);
  const sqsTotal = [...sqs.values()].reduce((sum, n) => sum + n, 0);
  const messages = (sqs.get('SendMessage') ?? 0) + (sqs.get('SendMessageBatch') ?? 0) + (sqs.get('ChangeMessageVisibility') ?? 0) + (sqs.get('ChangeMessageVisibilityBatch') ?? 0);

  progress('over cap: the endpoint answers at once now; every delivery to arrive...');
  holdMs = 0;
  const total = CAP + WAITING;
  await waitUntil(() => new Set(sink.delivered().map((a) => a.seq)).size >= total, 180_000, 200);
  const seqs = sink.delivered().map((a) => a.seq);

  const result: OverCapResult = {
    cap: CAP,
    waiting: WAITING,
    window_s: round((until - since) / 1000, 1),
    looks: round(looks, 0),
    wru_per_wait: round(wcu / looks, 2),
    rru_per_wait: round(rcu / looks, 2),
    sqs_requests_per_wait: round(sqsTotal / looks, 2),
    messages_per_wait: round(messages / looks, 2),
    sqs_by_operation: Object.fromEntries([...sqs].filter(([, n]) => Math.round(n) > 0).map(([op, n]) => [op, round(n, 0)])),
    all_delivered_once: seqs.length === total && new Set(seqs).size === total,
  };
  progress(`over cap: ${result.looks} looks in ${result.window_s} s: ${result.wru_per_wait} WRU, ${result.rru_per_wait} RRU, ${result.messages_per_wait} messages a wait`);
  writeResult(result);
} finally {
  await sink.close();
  await gateway.close();
  await rm(dataDir, { recursive: true, force: true });
}
