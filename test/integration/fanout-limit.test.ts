import { describe, expect, it } from 'vitest';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';

// One event may reach at most HOOKGATE_MAX_FANOUT destinations (3 here, 1,000 by default).

const { call, sink } = gatewayWithSinkForFile({ HOOKGATE_MAX_FANOUT: '3' });

/** An account whose five destinations all take every event (oldest route first), and an ops endpoint for Hookgate's notices. */
async function fannedOutAccount(prefix: string) {
  const account = await accountWithSource(call);
  const destinations: string[] = [];
  for (let n = 1; n <= 5; n++) {
    const destination = await addDestination(call, account.key, { url: `${sink.url}/${prefix}-${n}` });
    await addRoute(call, account.key, { destination_id: destination.id });
    destinations.push(destination.id);
  }
  const ops = await addDestination(call, account.key, { url: `${sink.url}/${prefix}-ops` });
  await addRoute(call, account.key, { destination_id: ops.id, event_type_pattern: 'hookgate.*' });
  return { ...account, destinations };
}

describe('fan-out limit', () => {
  it('refuses a publish over the limit with a 400 naming it, and stores and sends nothing', async () => {
    const { key } = await fannedOutAccount('pub');
    const res = await call('POST', '/v1/outbound-events', { key, body: { payload: '{"too":"many"}' } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: 'the event reaches 5 destinations; one event may reach at most 3', duration_ms: expect.any(Number) });
    expect((await call('GET', '/v1/outbound-events', { key })).json.data).toEqual([]);

    // In a batch only that event is refused; one addressed to a customer with one endpoint is published.
    const narrow = await addDestination(call, key, { url: `${sink.url}/pub-narrow`, customer: 'cus_1' });
    await addRoute(call, key, { destination_id: narrow.id });
    const batch = await call('POST', '/v1/outbound-events/batch', {
      key,
      body: { events: [{ payload: '{"too":"many"}' }, { payload: '{"fine":1}', customer: 'cus_1' }] },
    });
    expect(batch.status).toBe(200);
    expect(batch.json.data[0]).toEqual({ status: 400, error: 'the event reaches 5 destinations; one event may reach at most 3' });
    expect(batch.json.data[1]).toMatchObject({ status: 201 });
    await sink.waitForPath('/pub-narrow', 1);
    for (let n = 1; n <= 5; n++) expect(sink.received.filter((r) => r.path === `/pub-${n}`)).toHaveLength(0);
  });

  it('delivers an inbound webhook over the limit to the oldest routes’ destinations and tells the account, never a 5xx', async () => {
    const { key, source, destinations } = await fannedOutAccount('in');
    const res = await ingest(call, source.path_token, '{"wide":true}');
    expect(res.status).toBe(202);
    const id = res.json.data.id as string;
    const detail = await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered');
    expect(detail.event.deliveries.map((d: { destination_id: string }) => d.destination_id).sort()).toEqual(destinations.slice(0, 3).sort());
    for (const n of [1, 2, 3]) expect(sink.received.filter((r) => r.path === `/in-${n}`)).toHaveLength(1);
    for (const n of [4, 5]) expect(sink.received.filter((r) => r.path === `/in-${n}`)).toHaveLength(0);

    const [notice] = await sink.waitForPath('/in-ops', 1);
    expect(JSON.parse(notice!.body.toString('utf8'))).toMatchObject({
      type: 'hookgate.event.fanout_limited',
      data: { event_id: id, direction: 'inbound', limit: 3, destinations_not_reached: 2, destination_ids_not_reached: destinations.slice(3) },
    });
  });
});
