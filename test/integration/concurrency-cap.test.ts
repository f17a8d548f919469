import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ENV } from '../../lambdas/shared/resource-definitions';
import { takeLease } from '../../lambdas/store/leases';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';

// A destination's `max_in_flight` bounds its tries in flight across every deliver worker: the sink
// counts the requests it holds open at once. Deliveries over the cap wait in the queue (no try spent)
// and go as leases are let go, each exactly once.

const THRESHOLD = 5;
// Longer than any test here: an open breaker lets no probe through, so a try it let go would be a fault, not a probe.
const COOLDOWN_SECONDS = 120;
const { call, sink } = gatewayWithSinkForFile({ [ENV.breakerThreshold]: String(THRESHOLD), [ENV.breakerCooldownSeconds]: String(COOLDOWN_SECONDS) });

describe('the concurrency cap', () => {
  it('never lets more tries than max_in_flight reach the endpoint at once, and the rest wait until a lease is let go', async () => {
    let open = 0;
    let most = 0;
    sink.respondWith((request, res) => {
      if (request.path !== '/capped') return res.writeHead(200).end('ok');
      open++;
      most = Math.max(most, open);
      setTimeout(() => {
        open--;
        res.writeHead(200).end('ok');
      }, 700);
    });
    const { key, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/capped`, max_in_flight: 2 });
    await addRoute(call, key, { destination_id: dest.id });
    const ids: string[] = [];
    for (let n = 0; n < 12; n++) ids.push((await ingest(call, source.path_token, JSON.stringify({ n }))).json.data.id as string);

    // While the endpoint holds two, others wait and say why.
    const waiting = await eventually(
      async () => {
        for (const id of ids) {
          const delivery = (await eventDetail(call, key, id)).event.deliveries[0]!;
          if (delivery.waiting?.reason === 'concurrency') return delivery;
        }
        return undefined;
      },
      (delivery) => delivery !== undefined,
      20_000,
    );
    expect(waiting).toMatchObject({ status: 'queued', attempts: 0, waiting: { reason: 'concurrency', until: null } });

    for (const id of ids) await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered', 30_000);
    const bodies = sink.received.filter((r) => r.path === '/capped').map((r) => r.body.toString());
    expect(bodies).toHaveLength(12);
    expect(new Set(bodies).size).toBe(12);
    expect(most).toBe(2);
    const detail = await eventDetail(call, key, ids[11]!);
    expect(detail.event.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 1, waiting: null });
    const health = (await call('GET', `/v1/destinations/${dest.id}`, { key })).json.data.health as { held: number };
    expect(health.held).toBe(0);
  });

  // The guarantee, three runs: a burst that arrives at once, each delivery exactly once, and never more tries open than the cap.
  it.each([
    { cap: 1, events: 6 },
    { cap: 3, events: 15 },
    { cap: 5, events: 20 },
  ])('a burst of $events to a cap of $cap: never more than $cap open at once, each delivered once', async ({ cap, events }) => {
    const path = `/burst-${cap}`;
    let open = 0;
    let most = 0;
    sink.respondWith((request, res) => {
      if (request.path !== path) return res.writeHead(200).end('ok');
      open++;
      most = Math.max(most, open);
      setTimeout(() => {
        open--;
        res.writeHead(200).end('ok');
      }, 400);
    });
    const { key, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}${path}`, max_in_flight: cap });
    await addRoute(call, key, { destination_id: dest.id });
    const ids = await Promise.all(Array.from({ length: events }, async (_, n) => (await ingest(call, source.path_token, JSON.stringify({ n }))).json.data.id as string));
    for (const id of ids) await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered', 60_000);
    const bodies = sink.received.filter((r) => r.path === path).map((r) => r.body.toString());
    expect(new Set(bodies).size).toBe(events);
    expect(bodies).toHaveLength(events);
    expect(most).toBeLessThanOrEqual(cap);
    expect(most).toBeGreaterThan(0);
  });

  it('a failing endpoint gets no more tries once its breaker opens: a failed try is settled before its lease lets a waiting delivery go', async () => {
    // The endpoint holds every try open until the test answers it: which tries are out when the
    // breaker opens is then the test's doing, not the machine's speed.
    const unanswered: ServerResponse[] = [];
    sink.respondWith((request, res) => {
      if (request.path !== '/failing') return res.writeHead(200).end('ok');
      unanswered.push(res);
    });
    const fail = (tries: ServerResponse[]) => {
      for (const res of tries) res.writeHead(500).end('down');
    };
    const { key, source } = await accountWithSource(call);
    // More tries in flight than the breaker's threshold, so that some fail together with the one that opens it.
    const cap = THRESHOLD + 3;
    const events = 20;
    const dest = await addDestination(call, key, { url: `${sink.url}/failing`, max_in_flight: cap });
    await addRoute(call, key, { destination_id: dest.id });
    const ids: string[] = [];
    for (let n = 0; n < events; n++) ids.push((await ingest(call, source.path_token, JSON.stringify({ n }))).json.data.id as string);
    const health = async () => (await call('GET', `/v1/destinations/${dest.id}`, { key })).json.data.health as { state: string; held: number };
    const tries = () => sink.received.filter((r) => r.path === '/failing').length;
    const overCap = async () => {
      let waiting = 0;
      for (const id of ids) if ((await eventDetail(call, key, id)).event.deliveries[0]!.waiting?.reason === 'concurrency') waiting++;
      return waiting;
    };

    // Every event in: `cap` tries at the endpoint, the rest waiting for the cap.
    await sink.waitForPath('/failing', cap, 20_000);
    await eventually(overCap, (n) => n === events - cap, 20_000);
    expect(tries()).toBe(cap);
    const firstTries = unanswered.splice(0);

    // While the breaker is closed each failure's lease lets one waiting delivery go (held open in turn).
    for (let n = 1; n < THRESHOLD; n++) {
      fail(firstTries.splice(0, 1));
      await sink.waitForPath('/failing', cap + n, 20_000);
    }
    // The rest fail together: one of them opens the breaker, and since each is settled before its
    // lease is let go, and a delivery that takes a failing destination's lease reads its breaker
    // again, none of their leases lets a waiting delivery through.
    fail(firstTries.splice(0));
    await eventually(health, (h) => h.state === 'open', 20_000);
    sink.respondWith((_request, res) => res.writeHead(500).end('down'));
    fail(unanswered.splice(0));

    // Then every delivery is parked on the open breaker (those that were tried once their retry
    // comes, the others when they come back from waiting for the cap), nothing is in flight, and
    // nothing may go before the cooldown ends: the count is final.
    const parked = await eventually(health, (h) => h.held === events, 20_000);
    expect(parked.state).toBe('open');
    expect(tries()).toBe(cap + THRESHOLD - 1);
  });

  it('lets a delivery waiting for the cap go when the worker holding the lease died (it lapses, no release comes)', async () => {
    sink.respondWith((_request, res) => res.writeHead(200).end('ok'));
    const { key, accountId, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/orphaned`, max_in_flight: 1 });
    await addRoute(call, key, { destination_id: dest.id });
    // The destination's one lease, taken by a worker that then died: it runs 3 s more.
    const leaseUntil = Date.now() + 3_000;
    expect(await takeLease({ accountId, destinationId: dest.id }, 'dead-worker', 1, new Date(), leaseUntil)).toMatchObject({ kind: 'taken' });

    const id = (await ingest(call, source.path_token, '{"orphaned":true}')).json.data.id as string;
    const parked = await eventually(() => eventDetail(call, key, id), (d) => d.event.deliveries[0]!.waiting?.reason === 'concurrency', 10_000);
    expect(parked.event.deliveries[0]).toMatchObject({ status: 'queued', attempts: 0 });
    const delivered = await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered', 15_000);
    expect(Date.now()).toBeGreaterThanOrEqual(leaseUntil);
    expect(delivered.event.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 1, waiting: null });
    expect(sink.received.filter((r) => r.path === '/orphaned')).toHaveLength(1);
  });
});
