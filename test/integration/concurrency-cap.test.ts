import { describe, expect, it } from 'vitest';
import { takeFlightSlot } from '../../lambdas/store/flight-slots';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';

// A destination's `max_in_flight` bounds its tries in flight across every deliver worker: the sink
// counts the requests it holds open at once. Deliveries over the cap wait parked (no try spent) and
// go as slots are let go, each exactly once.

const { call, sink } = gatewayWithSinkForFile();

describe('the concurrency cap', () => {
  it('never lets more tries than max_in_flight reach the endpoint at once, and parks the rest until a slot is let go', async () => {
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

    // While the endpoint holds two, others wait parked and say why.
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

  it('a failing endpoint gets no more tries once its breaker opens: a failed try is settled before its slot lets a held delivery go', async () => {
    sink.respondWith((request, res) => {
      if (request.path !== '/failing') return res.writeHead(200).end('ok');
      // Slow enough that every event is in (its task parked) before the first failure.
      setTimeout(() => res.writeHead(500).end('down'), 3000);
    });
    const { key, source } = await accountWithSource(call);
    const cap = 5;
    const dest = await addDestination(call, key, { url: `${sink.url}/failing`, max_in_flight: cap });
    await addRoute(call, key, { destination_id: dest.id });
    for (let n = 0; n < 20; n++) await ingest(call, source.path_token, JSON.stringify({ n }));
    await eventually(async () => (await call('GET', `/v1/destinations/${dest.id}`, { key })).json.data.health.held, (held) => held === 20 - cap, 10_000);
    await eventually(async () => (await call('GET', `/v1/destinations/${dest.id}`, { key })).json.data.health.state, (state) => state === 'open', 20_000);
    // Whatever was let go before the breaker opened has had time to reach the endpoint.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const tries = sink.received.filter((r) => r.path === '/failing').length;
    // The first `cap` fail together; each of the four failures before the fifth (which opens the
    // breaker) may let one held delivery go, and none after it. Retries wait 30 s, the cooldown 30 s.
    expect(tries).toBeGreaterThanOrEqual(5);
    expect(tries).toBeLessThanOrEqual(cap + 5 - 1);
    const health = (await call('GET', `/v1/destinations/${dest.id}`, { key })).json.data.health as { held: number };
    expect(health.held).toBeGreaterThanOrEqual(20 - tries);
  }, 40_000);

  it('lets a delivery waiting on a slot go when the worker holding the slot died (its lease ends, no release comes)', async () => {
    sink.respondWith((_request, res) => res.writeHead(200).end('ok'));
    const { key, accountId, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/orphaned`, max_in_flight: 1 });
    await addRoute(call, key, { destination_id: dest.id });
    // The destination's one slot, taken by a worker that then died: its lease runs 3 s more.
    const leaseUntil = Date.now() + 3_000;
    expect(await takeFlightSlot(accountId, dest.id, 0, 'dead-worker', new Date(), leaseUntil)).toBe(true);

    const id = (await ingest(call, source.path_token, '{"orphaned":true}')).json.data.id as string;
    const parked = await eventually(() => eventDetail(call, key, id), (d) => d.event.deliveries[0]!.waiting?.reason === 'concurrency', 10_000);
    expect(parked.event.deliveries[0]).toMatchObject({ status: 'queued', attempts: 0 });
    const delivered = await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered', 15_000);
    expect(Date.now()).toBeGreaterThanOrEqual(leaseUntil);
    expect(delivered.event.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 1, waiting: null });
    expect(sink.received.filter((r) => r.path === '/orphaned')).toHaveLength(1);
  });
});
