import { describe, expect, it } from 'vitest';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { typedClient } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';

const { call, sink } = gatewayWithSinkForFile();

const settled = (status: string) => ['delivered', 'dead_letter', 'accepted'].includes(status);

describe('payload filters on routes', () => {
  it('routes each event to the destinations whose filter its JSON body satisfies', async () => {
    const { key, source } = await accountWithSource(call);
    const routes = {
      big: { amount: { $gte: 1000 } },
      eu: { customer: { country: { $in: ['FR', 'DE'] } } },
      not_test: { $not: { livemode: false } },
      vip_or_refund: { $or: [{ customer: { tier: 'vip' } }, { type: { $startsWith: 'refund.' } }] },
      plain: null,
    };
    const destinations: Record<string, string> = {};
    for (const [name, filter] of Object.entries(routes)) {
      const dest = await addDestination(call, key, { url: `${sink.url}/${name}` });
      destinations[dest.id] = name;
      const route = await call('POST', '/v1/routes', { key, body: { destination_id: dest.id, filter } });
      expect(route.status).toBe(201);
      expect(route.json.data.filter).toEqual(filter);
    }
    const table: Array<[string, string[]]> = [
      [JSON.stringify({ type: 'charge.ok', amount: 4200, customer: { country: 'FR', tier: 'std' }, livemode: true }), ['big', 'eu', 'not_test', 'plain']],
      [JSON.stringify({ type: 'refund.made', amount: 10, customer: { country: 'US' }, livemode: false }), ['plain', 'vip_or_refund']],
      [JSON.stringify({ type: 'charge.ok', amount: 999, customer: { country: 'DE', tier: 'vip' }, livemode: false }), ['eu', 'plain', 'vip_or_refund']],
      ['amount=5000', ['plain']],
    ];
    for (const [body, expected] of table) {
      const id = (await ingest(call, source.path_token, body)).json.data.id as string;
      const detail = await eventually(() => eventDetail(call, key, id), (d) => settled(d.event.status));
      const routed = (detail.event.deliveries as Array<{ destination_id: string }>).map((d) => destinations[d.destination_id]).sort();
      expect(routed, body).toEqual(expected);
    }
    await sink.waitFor(10);
    const first = JSON.parse(sink.received.find((r) => r.path === '/big')!.body.toString('utf8'));
    expect(first.amount).toBe(4200);
  });

  it('PATCH sets and clears a filter, and an invalid one is a 400 naming the operator', async () => {
    const { key } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/patched` });
    const route = await addRoute(call, key, { destination_id: dest.id });
    const hookgate = typedClient(call, key);
    const set = await hookgate.routes.update(route.id, { filter: { amount: { $lt: 5 } } });
    expect(set.filter).toEqual({ amount: { $lt: 5 } });
    const cleared = await hookgate.routes.update(route.id, { filter: null });
    expect(cleared.filter).toBeNull();

    for (const [filter, message] of [
      [{ amount: { $regex: '^4' } }, 'filter: unknown operator $regex'],
      [{ amount: { $in: 4 } }, 'filter: $in needs an array'],
      [[1], 'filter must be a JSON object'],
      [{ big: 'x'.repeat(5000) }, 'filter must be at most 4096 bytes'],
      [{ ' ': -9007199254740992 }, 'filter: numbers must be between -9007199254740991 and 9007199254740991'],
    ] as const) {
      const res = await call('POST', '/v1/routes', { key, body: { destination_id: dest.id, filter } });
      expect(res.status).toBe(400);
      expect(res.json.error).toBe(message);
      // PATCH too: the bad-input fuzzer once got a 500 here (DynamoDB refused the number).
      const patched = await call('PATCH', `/v1/routes/${route.id}`, { key, body: { filter } });
      expect(patched.status).toBe(400);
    }
  });

  it('numbers DynamoDB cannot hold are stored and matched exactly, on create and PATCH (filters are kept as JSON text)', async () => {
    const { key, source } = await accountWithSource(call);
    const bounds = [-5e-324, 5e-324, 1e-130, -1e-130, 1e-131, 1e-200, -0, 0.1 + 0.2, Number.MAX_SAFE_INTEGER];
    const filters = [
      { ' ': [-5e-324] }, // the fuzzer's shrunk counterexample (seed 371160236)
      { amount: { $gte: 1e-131 } },
      ...bounds.map((n) => ({ amount: n })),
      { amount: { $in: bounds } },
    ];
    const dest = await addDestination(call, key, { url: `${sink.url}/bounds` });
    const patchedRoute = await addRoute(call, key, { destination_id: dest.id, active: false });
    for (const filter of filters) {
      const created = await call('POST', '/v1/routes', { key, body: { destination_id: dest.id, filter, active: false } });
      expect(created.status, JSON.stringify(filter)).toBe(201);
      expect(created.json.data.filter).toEqual(JSON.parse(JSON.stringify(filter)));
      expect((await typedClient(call, key).routes.get(created.json.data.id)).filter).toEqual(created.json.data.filter);
      const patched = await call('PATCH', `/v1/routes/${patchedRoute.id}`, { key, body: { filter } });
      expect(patched.status, JSON.stringify(filter)).toBe(200);
      expect(patched.json.data.filter).toEqual(created.json.data.filter);
    }

    // Past 2^53 a payload's numbers parse inexactly, so such filters stay a clear 400 (DynamoDB's 9.99e125 too).
    for (const n of [9.99e125, -9.99e125, 1e126, Number.MAX_SAFE_INTEGER + 1]) {
      for (const [method, path] of [['POST', '/v1/routes'], ['PATCH', `/v1/routes/${patchedRoute.id}`]] as const) {
        const res = await call(method, path, { key, body: { destination_id: dest.id, filter: { amount: { $lt: n } } } });
        expect(res.status).toBe(400);
        expect(res.json.error).toBe('filter: numbers must be between -9007199254740991 and 9007199254740991');
      }
    }

    // Matching sees the exact number: 5e-324 is not 0, 1e-131 is at least 1e-131.
    const tiny = await addDestination(call, key, { url: `${sink.url}/tiny` });
    await addRoute(call, key, { destination_id: tiny.id, filter: { amount: { $gte: 1e-131 } } });
    const denormal = await addDestination(call, key, { url: `${sink.url}/denormal` });
    await addRoute(call, key, { destination_id: denormal.id, filter: { amount: 5e-324 } });
    const routedTo = async (body: string) => {
      const id = (await ingest(call, source.path_token, body)).json.data.id as string;
      const detail = await eventually(() => eventDetail(call, key, id), (d) => settled(d.event.status));
      const names = { [tiny.id]: 'tiny', [denormal.id]: 'denormal' };
      return (detail.event.deliveries as Array<{ destination_id: string }>).map((d) => names[d.destination_id]).sort();
    };
    expect(await routedTo('{"amount":5e-324}')).toEqual(['denormal']);
    expect(await routedTo('{"amount":1e-131}')).toEqual(['tiny']);
    expect(await routedTo('{"amount":0}')).toEqual([]);
  });
});
