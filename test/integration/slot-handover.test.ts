import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeAccountSlot, takeFlightSlot } from '../../lambdas/store/flight-slots';
import { heldPage, unparkDeliveries } from '../../lambdas/store/held-deliveries';
import { createLocalClients } from '../../local/aws-clients';
import { PARTITION_LOAD_ENV, readPartitionLoad } from '../../local/partition-load';
import { bootGatewayWithSink } from '../fixtures/gateway';
import type { Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually, type Sink } from '../fixtures/sink';

/**
 * A try at a destination over its cap that ends hands its slot, and its account share place, on to
 * the held delivery it lets go, re-leased in one write each (issue 36: a destination over its cap
 * put two writes per try and a failed take per waiting delivery on its slots' keys). A duplicate of
 * the released delivery's task holds the same places and must not let them go while the other copy
 * tries with them.
 */

let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let sink: Sink;

beforeAll(async () => {
  env = await bootGatewayWithSink({ [PARTITION_LOAD_ENV]: '1' });
  ({ call, sink } = env);
});
afterAll(() => env?.stop());

/** The sink's requests to `path` held open at once, most of all so far. */
function countOpen(path: string, holdMs: () => number) {
  const seen = { open: 0, most: 0 };
  sink.respondWith((request, res) => {
    if (request.path !== path) return res.writeHead(200).end('ok');
    seen.open++;
    seen.most = Math.max(seen.most, seen.open);
    setTimeout(() => {
      seen.open--;
      res.writeHead(200).end('ok');
    }, holdMs());
  });
  return seen;
}

/** Write units charged since `since` to the keys of one kind of the account: its destination's slots (`#FLIGHT#`), its share places (`#TRIES#`). */
async function writesOn(kind: '#FLIGHT#' | '#TRIES#', accountId: string, since: number): Promise<number> {
  const load = await readPartitionLoad(['main'], { since });
  return load.partitions.filter((p) => p.pk.startsWith(`ACCT#${accountId}${kind}`)).reduce((sum, p) => sum + p.wcu, 0);
}

describe('a slot handed on', () => {
  it('costs one write per try on the slots and share places of a destination over its cap, none per delivery that waits', async () => {
    const seen = countOpen('/over', () => 100);
    const { key, accountId, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/over`, max_in_flight: 2 });
    await addRoute(call, key, { destination_id: dest.id });
    const since = Date.now() - (Date.now() % 1000);
    const events = 30;
    // Steady traffic at about what the endpoint can take (two at a time, 100 ms each): from the third
    // event on, most find both slots held and wait parked.
    const ids: string[] = [];
    for (let n = 0; n < events; n++) {
      ids.push((await ingest(call, source.path_token, JSON.stringify({ n }))).json.data.id as string);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (const id of ids) await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered', 30_000);

    expect(seen.most).toBeLessThanOrEqual(2);
    expect(sink.received.filter((r) => r.path === '/over')).toHaveLength(events);
    // Each try's slot and share place are handed on in a write each, and a chain's start (its take) and
    // end (its release) add two per slot: about one write per event on each kind of key. Taking and
    // letting go at every try, with a failed take by each delivery that found the slots held, was
    // over 2.5 per event on the slots. How many chains start and end varies with when the events
    // arrive (1.57 an event on the slots in one loaded run): the bound keeps that old cost caught
    // without counting the machine's speed. The cost itself is the bench's (issue 48 replaces this).
    const perEvent = 2;
    expect(await writesOn('#FLIGHT#', accountId, since)).toBeLessThanOrEqual(events * perEvent);
    expect(await writesOn('#TRIES#', accountId, since)).toBeLessThanOrEqual(events * perEvent);
  });

  it('is kept by the copy of a released task that tries it: a duplicate that finds the delivery in flight lets nothing go', async () => {
    let holdMs = 4_000;
    const seen = countOpen('/one', () => holdMs);
    const { key, accountId, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/one`, max_in_flight: 1 });
    await addRoute(call, key, { destination_id: dest.id });
    // As a release hands them: the destination's one slot and a place in the account's share, leased to the released delivery's task.
    const holder = 'handed-holder';
    const leaseUntil = Date.now() + 60_000;
    expect(await takeFlightSlot(accountId, dest.id, 0, holder, new Date(), leaseUntil)).toBe(true);
    expect(await takeAccountSlot(accountId, 0, holder, new Date(), leaseUntil)).toBe(true);
    const first = (await ingest(call, source.path_token, '{"n":1}')).json.data.id as string;
    await eventually(() => eventDetail(call, key, first), (d) => d.event.deliveries[0]!.waiting?.reason === 'concurrency', 10_000);

    // The released task, twice (SQS delivers at least once): one copy tries, the other finds it in flight
    // and ends within a few reads, well inside the try's 4 s (on a machine too busy for that, the second
    // event below finds the slot held either way).
    const clients = createLocalClients(env.gateway.endpoints);
    const task = JSON.stringify({ v: 1, account_id: accountId, event_id: first, destination_id: dest.id, flight_slot: 0, handed: { holder, lease_until: leaseUntil, share: { slot: 0, holder } } });
    for (let copy = 0; copy < 2; copy++) await clients.sqs.send(new SendMessageCommand({ QueueUrl: env.gateway.resources.deliveryQueueUrl, MessageBody: task }));
    await eventually(() => Promise.resolve(seen.open), (open) => open === 1, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    // The slot is still the trying copy's: an event now waits for it rather than going beside it.
    holdMs = 100;
    const second = (await ingest(call, source.path_token, '{"n":2}')).json.data.id as string;
    for (const id of [first, second]) await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered', 20_000);
    expect(seen.most).toBe(1);
    expect(sink.received.filter((r) => r.path === '/one').map((r) => r.body.toString())).toEqual(['{"n":1}', '{"n":2}']);
  });

  it('is not brought back by the retry of a try that handed it on: the retry waits for the slot like any delivery', async () => {
    const seen = { open: 0, most: 0, bodies: [] as string[] };
    sink.respondWith((request, res) => {
      if (request.path !== '/retry') return res.writeHead(200).end('ok');
      const body = request.body.toString();
      seen.bodies.push(body);
      // The first event's first try fails at once; every other try holds the slot 3 s.
      if (body === '{"n":1}' && seen.bodies.filter((b) => b === body).length === 1) return res.writeHead(500).end('no');
      seen.open++;
      seen.most = Math.max(seen.most, seen.open);
      setTimeout(() => {
        seen.open--;
        res.writeHead(200).end('ok');
      }, 3_000);
    });
    const { key, accountId, source } = await accountWithSource(call);
    // Retried 1 s after a failure: well within the 60 s lease the slot was handed with.
    const dest = await addDestination(call, key, { url: `${sink.url}/retry`, max_in_flight: 1, retry_schedule: [0, 1, 1] });
    await addRoute(call, key, { destination_id: dest.id });
    const holder = 'handed-holder';
    const leaseUntil = Date.now() + 60_000;
    expect(await takeFlightSlot(accountId, dest.id, 0, holder, new Date(), leaseUntil)).toBe(true);
    expect(await takeAccountSlot(accountId, 0, holder, new Date(), leaseUntil)).toBe(true);
    const ids: string[] = [];
    for (const n of [1, 2]) {
      const id = (await ingest(call, source.path_token, JSON.stringify({ n }))).json.data.id as string;
      await eventually(() => eventDetail(call, key, id), (d) => d.event.deliveries[0]!.waiting?.reason === 'concurrency', 10_000);
      ids.push(id);
    }

    // The first event's task, handed the slot (its held item gone, as a release leaves it): its try
    // fails and hands the slot on to the second event, whose try holds it while the first one's retry
    // comes due.
    const first = (await heldPage(accountId, dest.id, 10)).filter((held) => held.event_id === ids[0]);
    expect(first).toHaveLength(1);
    await unparkDeliveries(accountId, dest.id, first);
    const clients = createLocalClients(env.gateway.endpoints);
    const task = JSON.stringify({ v: 1, account_id: accountId, event_id: ids[0], destination_id: dest.id, flight_slot: 0, handed: { holder, lease_until: leaseUntil, share: { slot: 0, holder } } });
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: env.gateway.resources.deliveryQueueUrl, MessageBody: task }));
    for (const id of ids) await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered', 30_000);
    expect(seen.most).toBe(1);
    expect(seen.bodies).toEqual(['{"n":1}', '{"n":2}', '{"n":1}']);
  });
});
