import { describe, expect, it } from 'vitest';
import { eventItemKind, eventPartition, readEventPartition } from '../../lambdas/events/record';
import { PARTITION_LOAD_ENV, readPartitionLoad } from '../../local/partition-load';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';

// What a delivery writes (issue 37): a destination that has answered, and answers fast, takes no
// lease under its cap and no claim; its event's only delivery settles the event in the status item
// with the try's outcome, one write. A try that runs slow puts the destination back under its cap.

// A try counts as slow after SLOW_TRY_MS (1 s) in AWS; here after 4 s, so a fast try on a busy machine
// is never taken for a slow one, and the slow try below is slow by a margin.
const SLOW_TRY_MS = 4000;
// The deliver function reads the breaker through its routing cache, whose stamp it reuses for up to a
// second: the next delivery could still see the destination unproven and take leases (it did once on a
// starved machine). Read fresh, the next delivery is the one that follows what the breaker says; the
// writes counted are the same either way.
const { call, sink } = gatewayWithSinkForFile({ [PARTITION_LOAD_ENV]: '1', HOOKGATE_SLOW_TRY_MS: String(SLOW_TRY_MS), HOOKGATE_ROUTE_CACHE_SECONDS: '0' });

/** A reading counts whole seconds: one that starts on a fresh second leaves out what came before. */
async function freshSecond(): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
  return Date.now();
}

/** Write units the functions charged since `since`: on the event's own partition, and on any lease map. */
async function writesSince(since: number, accountId: string, eventId: string) {
  const load = await readPartitionLoad(['main'], { since });
  const own = load.partitions.filter((p) => p.index === undefined && p.pk === eventPartition(accountId, eventId));
  const leases = load.partitions.filter((p) => p.pk.includes('#LEASES#') || p.pk.includes('#SHARE#'));
  return { event: own.reduce((sum, p) => sum + p.wcu, 0), leases: leases.reduce((sum, p) => sum + p.wcu, 0) };
}

describe('the happy path of a delivery', () => {
  it('at a destination that answers fast: no lease, no claim, the outcome settles the event in one write; a slow try brings the leases back', async () => {
    let delayMs = 0;
    sink.respondWith((_request, res) => {
      setTimeout(() => res.writeHead(200).end('ok'), delayMs);
    });
    const { key, accountId, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/fast` });
    await addRoute(call, key, { destination_id: dest.id });
    const deliver = async (n: number) => {
      const id = (await ingest(call, source.path_token, JSON.stringify({ n }))).json.data.id as string;
      await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered', 20_000);
      return id;
    };

    // Its first try: a destination that has never answered takes leases.
    let since = await freshSecond();
    const first = await deliver(1);
    expect((await writesSince(since, accountId, first)).leases).toBeGreaterThan(0);

    // Proven once its breaker records the success (written after the outcome the event shows): the
    // next event's body, status item and outcome are all it writes (a body under 1 KB).
    await eventually(() => call('GET', `/v1/destinations/${dest.id}`, { key }), (r) => r.json.data.health.last_success_at !== null, 10_000);
    since = await freshSecond();
    const second = await deliver(2);
    expect(await writesSince(since, accountId, second)).toEqual({ event: 3, leases: 0 });
    const items = await readEventPartition(accountId, second);
    expect(items.map(eventItemKind).sort()).toEqual(['body', 'status']);
    const detail = await eventDetail(call, key, second);
    expect(detail.event.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(detail.attempts).toMatchObject([{ attempt_number: 1, outcome: 'success', response_status: 200, response_body: 'ok' }]);

    // A try still in flight after SLOW_TRY_MS marks the destination: the next try takes leases again.
    delayMs = SLOW_TRY_MS + 1000;
    await deliver(3);
    delayMs = 0;
    since = await freshSecond();
    const fourth = await deliver(4);
    expect((await writesSince(since, accountId, fourth)).leases).toBeGreaterThan(0);
  }, 60_000);
});
