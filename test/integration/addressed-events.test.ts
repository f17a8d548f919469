import { describe, expect, it } from 'vitest';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { createAccount, typedClient } from '../fixtures/http-client';
import { addEventTypes, openPortalSession } from '../fixtures/portal';
import { addDestination, addRoute, eventDetail, proveOwnership } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';

/**
 * Who an outbound event is for (issue 20): a customer's endpoints, however they subscribe, receive
 * only the events addressed to that customer, and its portal shows only those.
 */
const { call, sink } = gatewayWithSinkForFile();

const portal = (secret: string) => ({ headers: { authorization: `Bearer ${secret}` } });
const settled = (status: string) => ['delivered', 'dead_letter', 'accepted'].includes(status);

async function publish(key: string, body: Record<string, unknown>) {
  const res = await call('POST', '/v1/outbound-events', { key, body: { event_type: 'invoice.paid', ...body } });
  expect(res.status, res.text).toBe(201);
  const id = res.json.data.id as string;
  await eventually(() => eventDetail(call, key, id, '/v1/outbound-events'), (d) => settled(d.event.status));
  return id;
}

/** An account with two customers, each subscribed in its own portal to `invoice.paid`. */
async function twoCustomers(label: string) {
  const { key } = await createAccount(call, { name: label });
  await addEventTypes(call, key, 'invoice.paid');
  const customers: Record<string, { secret: string; endpoint: string; path: string }> = {};
  for (const customer of ['cus_A', 'cus_B']) {
    const { secret } = await openPortalSession(call, key, customer);
    const path = `/${label}/${customer}`;
    const res = await call('POST', '/v1/portal/endpoints', { ...portal(secret), body: { url: `${sink.url}${path}`, event_types: ['invoice.paid'] } });
    expect(res.status, res.text).toBe(201);
    await proveOwnership(call, key, sink, res.json.data.id, path);
    customers[customer] = { secret, endpoint: res.json.data.id, path };
  }
  return { key, A: customers.cus_A!, B: customers.cus_B! };
}

/** What the endpoint was delivered: its ownership challenge aside. */
const receivedBy = (path: string) =>
  sink.received
    .filter((r) => r.path === path)
    .map((r) => JSON.parse(r.body.toString('utf8')) as Record<string, string>)
    .filter((body) => body.type !== 'hookgate.endpoint.verification');

async function portalLog(secret: string): Promise<string[]> {
  const res = await call('GET', '/v1/portal/events', portal(secret));
  expect(res.status).toBe(200);
  return (res.json.data as Array<{ id: string }>).map((e) => e.id);
}

describe('addressed outbound events', () => {
  it('reach only the addressed customer’s endpoint and portal log; an unaddressed event neither', async () => {
    const { key, A, B } = await twoCustomers('two');
    const forA = await publish(key, { payload: '{"invoice":"in_A"}', customer: 'cus_A' });
    const forB = await publish(key, { payload: '{"invoice":"in_secret_B"}', customer: 'cus_B' });
    const nobody = await publish(key, { payload: '{"invoice":"in_account"}' });

    await eventually(async () => receivedBy(A.path).length + receivedBy(B.path).length, (n) => n >= 2);
    expect(receivedBy(A.path)).toEqual([{ invoice: 'in_A' }]);
    expect(receivedBy(B.path)).toEqual([{ invoice: 'in_secret_B' }]);
    expect(await portalLog(A.secret)).toEqual([forA]);
    expect(await portalLog(B.secret)).toEqual([forB]);

    // The unaddressed event was planned for no customer's endpoint.
    const unaddressed = await eventDetail(call, key, nobody, '/v1/outbound-events');
    expect(unaddressed.event.customer).toBeNull();
    expect(unaddressed.event.deliveries).toEqual([]);

    // B cannot open A's event by id, nor resend it to its own endpoint.
    expect((await call('GET', `/v1/portal/events/${forA}`, portal(B.secret))).status).toBe(404);
    expect((await call('POST', `/v1/portal/events/${forA}/resend`, { ...portal(B.secret), body: { endpoint_id: B.endpoint } })).status).toBe(404);
    expect((await call('GET', `/v1/portal/events/${forA}`, portal(A.secret))).status).toBe(200);

    // The account sees the address on the list and the detail, and filters by it.
    const detail = await eventDetail(call, key, forB, '/v1/outbound-events');
    expect(detail.event.customer).toBe('cus_B');
    const listed = await call('GET', '/v1/outbound-events?customer=cus_A', { key });
    expect(listed.status).toBe(200);
    expect((listed.json.data as Array<{ id: string; customer: string }>).map((e) => [e.id, e.customer])).toEqual([[forA, 'cus_A']]);
    const all = await typedClient(call, key).outboundEvents.list();
    expect(all.data.map((e) => e.customer)).toEqual([null, 'cus_B', 'cus_A']);
    expect((await call('GET', '/v1/outbound-events?customer=has%20space', { key })).status).toBe(400);
  });

  it('a portal subscription does not widen the account’s filtered route to the same endpoint', async () => {
    const { key } = await createAccount(call, { name: 'filtered' });
    await addEventTypes(call, key, 'invoice.paid');
    // The account's own endpoint for cus_B, fed by a route with a filter; B's portal then subscribes it.
    const endpoint = await addDestination(call, key, { url: `${sink.url}/filtered/cus_B`, customer: 'cus_B' });
    await addRoute(call, key, { destination_id: endpoint.id, filter: { tier: 'gold' } });
    const { secret } = await openPortalSession(call, key, 'cus_B');
    const patched = await call('PATCH', `/v1/portal/endpoints/${endpoint.id}`, { ...portal(secret), body: { event_types: ['invoice.paid'] } });
    expect(patched.status, patched.text).toBe(200);

    await publish(key, { payload: '{"tier":"gold","n":1}', customer: 'cus_B' });
    await publish(key, { payload: '{"tier":"gold","n":2}', customer: 'cus_A' });
    await publish(key, { payload: '{"tier":"gold","n":3}' });
    await eventually(async () => receivedBy('/filtered/cus_B').length, (n) => n >= 1);
    // The portal route takes the silver one too (it has no filter), but only events addressed to cus_B.
    await publish(key, { payload: '{"tier":"silver","n":4}', customer: 'cus_B' });
    await eventually(async () => receivedBy('/filtered/cus_B').length, (n) => n >= 2);
    expect(receivedBy('/filtered/cus_B').map((b) => b.n)).toEqual([1, 4]);
  });

  it('a replay, single or bulk, keeps the address; a replay to another customer’s endpoint delivers nothing', async () => {
    const { key, A, B } = await twoCustomers('replay');
    const original = await publish(key, { payload: '{"invoice":"in_r"}', customer: 'cus_A' });

    const single = await call('POST', `/v1/outbound-events/${original}/replay`, { key });
    expect(single.status, single.text).toBe(202);
    const copy = await eventually(() => eventDetail(call, key, single.json.data.replay_event_id, '/v1/outbound-events'), (d) => settled(d.event.status));
    expect(copy.event.customer).toBe('cus_A');
    expect((copy.event.deliveries as Array<{ destination_id: string }>).map((d) => d.destination_id)).toEqual([A.endpoint]);

    const elsewhere = await call('POST', `/v1/outbound-events/${single.json.data.replay_event_id}/replay`, { key, body: { destination_id: B.endpoint } });
    expect(elsewhere.status, elsewhere.text).toBe(202);
    const refused = await eventDetail(call, key, elsewhere.json.data.replay_event_id, '/v1/outbound-events');
    expect(refused.event.customer).toBe('cus_A');
    expect(refused.event.deliveries).toEqual([]);

    // The original and the first copy are `replayed` now: a bulk replay sends both again, to A only.
    const bulk = await call('POST', '/v1/replays', { key, body: { direction: 'outbound', status: ['replayed'] } });
    expect(bulk.status, bulk.text).toBe(202);
    const job = await eventually(() => call('GET', `/v1/replays/${bulk.json.data.id}`, { key }), (r) => r.json.data.status === 'done');
    expect(job.json.data.replayed).toBe(2);
    await eventually(async () => receivedBy(A.path).length, (n) => n >= 4);
    expect(receivedBy(A.path)).toEqual(Array(4).fill({ invoice: 'in_r' }));
    expect(receivedBy(B.path)).toEqual([]);
    const hookgate = typedClient(call, key);
    expect((await hookgate.outboundEvents.list({ customer: 'cus_A' })).data.length).toBe(5);
    expect((await hookgate.outboundEvents.list({ customer: 'cus_B' })).data).toEqual([]);
  });

  it('the publish refuses a customer that is not a customer id, singly and in a batch', async () => {
    const { key } = await createAccount(call, { name: 'bad customer' });
    const message = 'customer must be 1 to 128 letters, digits or . _ : @ + - (starting with a letter or digit)';
    for (const customer of ['', 'has space', 'x'.repeat(129), 42, null]) {
      const res = await call('POST', '/v1/outbound-events', { key, body: { payload: '{}', customer } });
      expect(res.status, JSON.stringify(customer)).toBe(400);
    }
    const batch = await call('POST', '/v1/outbound-events/batch', { key, body: { events: [{ payload: '{}', customer: 'cus_ok' }, { payload: '{}', customer: 'no way' }] } });
    expect(batch.status).toBe(200);
    expect(batch.json.data[0].status).toBe(201);
    expect(batch.json.data[1]).toEqual({ status: 400, error: message });
  });

  it('the portal shows the headers a delivery carried, with the credential hidden and per-try values described', async () => {
    const { key } = await createAccount(call, { name: 'shown-headers' });
    await addEventTypes(call, key, 'invoice.paid');
    const path = '/shown-headers/cus_H';
    const endpoint = await addDestination(call, key, {
      url: `${sink.url}${path}`,
      customer: 'cus_H',
      signature_scheme: 'standard_webhooks',
      auth: { type: 'bearer', token: 'tok_never_shown' },
    });
    await addRoute(call, key, { destination_id: endpoint.id });
    const id = await publish(key, { customer: 'cus_H', payload: { invoice: 'in_H' } });
    const received = sink.received.find((r) => r.path === path);
    expect(received).toBeDefined();

    const { secret } = await openPortalSession(call, key, 'cus_H');
    const res = await call('GET', `/v1/portal/events/${id}`, portal(secret));
    expect(res.status, res.text).toBe(200);
    const [delivery] = res.json.data.event.deliveries as { request_headers: Record<string, string> }[];
    const shown = delivery!.request_headers;
    for (const name of Object.keys(shown)) expect(received!.headers[name], `${name} was sent`).toBeDefined();
    for (const name of ['content-type', 'user-agent', 'x-webhook-id', 'x-hookgate-event-id', 'x-event-type', 'webhook-id']) expect(shown[name], name).toBe(received!.headers[name]);
    expect(shown.authorization).toBe('<hidden>');
    expect(shown['webhook-signature']).toBe('<computed for each try>');
    expect(res.text).not.toContain('tok_never_shown');
  });
});
