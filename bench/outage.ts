/**
 * Section 7: the bad day, through the local gateway with the real handlers and poller.
 * - A healthy destination's delivery latency alone, then beside a destination that hangs (until its
 *   2 s timeout) with ten times its traffic: before the hanging one's breaker opens, and after.
 * - Peak in-flight messages while many retries wait: every delivery to a destination answering 503
 *   waits for its next try as a delayed message, so in flight are only the tries running.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { createLocalClients } from '../local/aws-clients';
import { startGateway } from '../local/gateway';
import { writeResult } from './lib/child';
import { apiClient, providerHeaders, request, setupAccount, startSink, webhookBody } from './lib/http';
import { percentile, progress, round, sleep, waitUntil } from './lib/stats';

const HANG_TIMEOUT_MS = 2000;
const HEALTHY_PER_S = 10;
const RETRIES_WAITING = 500;

const sink = await startSink(({ path }) => (path === '/hang' ? 'hang' : path === '/down' ? { status: 503 } : { status: 200 }));
const dataDir = await mkdtemp(join(tmpdir(), 'hookgate-bench-outage-'));
const gateway = await startGateway({
  port: 0,
  dataDir,
  log: (line) => progress(line),
  env: {
    HOOKGATE_ALLOW_PRIVATE_DESTINATIONS: 'true',
    HOOKGATE_LOG_LEVEL: 'error',
    HOOKGATE_METRICS: 'off',
    // Long enough that the retries of the in-flight part are all waiting while it samples.
    HOOKGATE_RETRY_SCHEDULE: '0,20,20,20,20',
  },
});
const api = apiClient(gateway.url);
const clients = createLocalClients(gateway.endpoints);

try {
  const account = await setupAccount(api);
  const healthy = await account.destination(`${sink.url}/healthy`);
  const hang = await account.destination(`${sink.url}/hang`, { timeout_ms: HANG_TIMEOUT_MS });
  const down = await account.destination(`${sink.url}/down`);
  await account.route({ destination_id: healthy, event_type_pattern: 'healthy.*' });
  await account.route({ destination_id: hang, event_type_pattern: 'hang.*' });
  await account.route({ destination_id: down, event_type_pattern: 'down.*' });

  let seq = 0;
  const ingest = async (type: string) => {
    const body = webhookBody(++seq, Date.now());
    const reply = await request(`${gateway.url}/ingest/${account.token}`, { method: 'POST', headers: { ...providerHeaders(body), 'x-event-type': type }, body });
    if (reply.status !== 202) throw new Error(`ingest answered ${reply.status}`);
  };
  const breakerState = async (id: string) => (await api('GET', `/v1/destinations/${id}`, { key: account.key })).json.data.health.state as string;

  /** Sends to the healthy destination at HEALTHY_PER_S (and `besideEach` hanging events per healthy one) for `seconds`. */
  async function phase(seconds: number, besideEach: number) {
    const firstSeq = seq + 1;
    const until = Date.now() + seconds * 1000;
    while (Date.now() < until) {
      const tick = Date.now();
      await Promise.all([ingest('healthy.x'), ...Array.from({ length: besideEach }, () => ingest('hang.x'))]);
      await sleep(Math.max(0, 1000 / HEALTHY_PER_S - (Date.now() - tick)));
    }
    const lastSeq = seq;
    await waitUntil(() => sink.arrivals.filter((a) => a.path === '/healthy' && a.seq >= firstSeq && a.seq <= lastSeq).length >= (lastSeq - firstSeq + 1) / (besideEach + 1) - 0.5, 30_000);
    const latencies = sink.arrivals.filter((a) => a.path === '/healthy' && a.seq >= firstSeq && a.seq <= lastSeq).map((a) => a.at - a.sentAt);
    return { deliveries: latencies.length, p50_ms: round(percentile(latencies, 50), 0), p99_ms: round(percentile(latencies, 99), 0) };
  }

  progress('outage: healthy destination alone');
  const alone = await phase(8, 0);
  progress('outage: beside a hanging destination with 10x the traffic, breaker closed');
  const hangStart = Date.now();
  const beforeOpen = await phase(4, 10);
  let opened = false;
  for (let i = 0; i < 100 && !opened; i++) {
    opened = (await breakerState(hang)) === 'open';
    if (!opened) await sleep(200);
  }
  const openAfterS = round((Date.now() - hangStart) / 1000, 1);
  await sleep(HANG_TIMEOUT_MS + 500); // the tries that were already hanging end at their timeout
  progress('outage: beside the hanging destination, breaker open');
  const afterOpen = await phase(8, 10);
  const hangTries = sink.arrivals.filter((a) => a.path === '/hang').length;

  progress(`outage: ${RETRIES_WAITING} retries waiting`);
  const counts = async () => {
    const { Attributes } = await clients.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: gateway.resources.deliveryQueueUrl,
        AttributeNames: ['ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
      }),
    );
    return { inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible), delayed: Number(Attributes?.ApproximateNumberOfMessagesDelayed) };
  };
  for (let i = 0; i < RETRIES_WAITING; i += 25) await Promise.all(Array.from({ length: 25 }, () => ingest('down.x')));
  await waitUntil(() => sink.arrivals.filter((a) => a.path === '/down').length >= RETRIES_WAITING, 60_000);
  const samples: Array<{ inFlight: number; delayed: number }> = [];
  for (let i = 0; i < 50; i++) {
    samples.push(await counts());
    await sleep(200);
  }

  writeResult({
    hang_timeout_ms: HANG_TIMEOUT_MS,
    healthy_per_s: HEALTHY_PER_S,
    healthy_alone: alone,
    healthy_beside_hanging_breaker_closed: beforeOpen,
    healthy_beside_hanging_breaker_open: afterOpen,
    breaker_opened: opened,
    breaker_open_after_s: openAfterS,
    hanging_tries_total: hangTries,
    hanging_events_sent: (beforeOpen.deliveries + afterOpen.deliveries) * 10,
    retries_waiting: RETRIES_WAITING,
    peak_in_flight_while_waiting: Math.max(...samples.map((s) => s.inFlight)),
    peak_delayed_while_waiting: Math.max(...samples.map((s) => s.delayed)),
  });
} finally {
  clients.destroy();
  await sink.close();
  await gateway.close();
  await rm(dataDir, { recursive: true, force: true });
}
