import { describe, expect, it } from 'vitest';
import type { DestinationAuth } from '../../clients/typescript/src/index';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { createAccount, typedClient } from '../fixtures/http-client';
import { addEventTypes, openPortalSession } from '../fixtures/portal';
import { addDestination, eventDetail, proveOwnership } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';

/**
 * Destination changes behave the same whoever makes them (issue 20, item 4): the portal's re-enable
 * starts the breaker afresh as the API's does, a customer's new URL does not inherit the account's
 * auth, and endpoints are capped per customer and per account (small caps here: 2 and 5).
 */
const { call, sink } = gatewayWithSinkForFile({
  HOOKGATE_BREAKER_THRESHOLD: '2',
  HOOKGATE_MAX_ENDPOINTS_PER_CUSTOMER: '2',
  HOOKGATE_MAX_ENDPOINTS_PER_ACCOUNT: '5',
});

const portal = (secret: string) => ({ headers: { authorization: `Bearer ${secret}` } });
const requestsTo = (path: string) => sink.received.filter((r) => r.path === path);

/** An account with the `invoice.paid` type and a portal link for `customer`. */
async function accountWithPortal(label: string, customer = 'cus_a') {
  const { key } = await createAccount(call, { name: label });
  await addEventTypes(call, key, 'invoice.paid');
  const { secret } = await openPortalSession(call, key, customer);
  return { key, secret, customer };
}

async function publish(key: string, customer: string) {
  const res = await call('POST', '/v1/outbound-events', { key, body: { event_type: 'invoice.paid', payload: '{"n":1}', customer } });
  expect(res.status, res.text).toBe(201);
  return res.json.data.id as string;
}

async function patchEndpoint(secret: string, id: string, body: Record<string, unknown>) {
  const res = await call('PATCH', `/v1/portal/endpoints/${id}`, { ...portal(secret), body });
  expect(res.status, res.text).toBe(200);
  return res.json.data as { active: boolean; disabled_reason: string | null; health: { state: string; consecutive_failures: number; open_until: string | null } };
}

async function health(secret: string, id: string) {
  const res = await call('GET', `/v1/portal/endpoints/${id}`, portal(secret));
  expect(res.status).toBe(200);
  return res.json.data as { active: boolean; disabled_reason: string | null; health: { state: string; consecutive_failures: number } };
}

describe('a new URL drops the auth the account set', () => {
  it.each<[string, DestinationAuth, string, string]>([
    ['bearer', { type: 'bearer', token: 'account-token' }, 'authorization', 'Bearer account-token'],
    ['header', { type: 'header', name: 'X-Api-Key', value: 'account-key' }, 'x-api-key', 'account-key'],
  ])('when the customer changes the URL in its portal (%s auth)', async (label, auth, header, value) => {
    const { key, secret, customer } = await accountWithPortal(`auth-${label}`);
    const before = `/auth-${label}/before`;
    const after = `/auth-${label}/after`;
    const endpoint = await addDestination(call, key, { url: `${sink.url}${before}`, customer, auth });
    await patchEndpoint(secret, endpoint.id, { event_types: ['invoice.paid'] });

    await publish(key, customer);
    const [first] = await sink.waitForPath(before, 1);
    expect(first!.headers[header]).toBe(value);

    // The URL is the customer's word: its endpoint proves it (the challenge, then the event).
    await patchEndpoint(secret, endpoint.id, { url: `${sink.url}${after}` });
    await proveOwnership(call, key, sink, endpoint.id, after);
    await publish(key, customer);
    const second = (await sink.waitForPath(after, 2)).at(-1);
    expect(second!.headers.authorization).toBeUndefined();
    expect(second!.headers['x-api-key']).toBeUndefined();
    expect((await typedClient(call, key).destinations.get(endpoint.id)).auth).toBeNull();
  });

  it('but not when the customer only renames it, nor when the account changes the URL', async () => {
    const { key, secret, customer } = await accountWithPortal('auth-kept');
    const endpoint = await addDestination(call, key, { url: `${sink.url}/auth-kept/before`, customer, auth: { type: 'bearer', token: 't0k' } });
    await patchEndpoint(secret, endpoint.id, { name: 'renamed', event_types: ['invoice.paid'] });
    const moved = await typedClient(call, key).destinations.update(endpoint.id, { url: `${sink.url}/auth-kept/after` });
    expect(moved.auth).toEqual({ type: 'bearer' });
    await publish(key, customer);
    const [received] = await sink.waitForPath('/auth-kept/after', 1);
    expect(received!.headers.authorization).toBe('Bearer t0k');
  });
});

describe('re-enabling from the portal', () => {
  it('starts the breaker afresh, as PATCH /v1/destinations does', async () => {
    sink.respondWith((req, res) => res.writeHead(req.path.startsWith('/down') ? 503 : 200).end());
    const { key, secret, customer } = await accountWithPortal('breaker');
    const created = await call('POST', '/v1/portal/endpoints', { ...portal(secret), body: { url: `${sink.url}/down/breaker`, event_types: ['invoice.paid'] } });
    expect(created.status, created.text).toBe(201);
    const id = created.json.data.id as string;
    await proveOwnership(call, key, sink, id, '/down/breaker');
    const events = [await publish(key, customer), await publish(key, customer)];
    const opened = await eventually(() => health(secret, id), (e) => e.health.state === 'open');
    expect(opened.health.consecutive_failures).toBeGreaterThanOrEqual(2);

    expect((await patchEndpoint(secret, id, { active: false })).health.state).toBe('disabled');
    // The paused endpoint's deliveries wait for it, parked; meanwhile its owner fixes it.
    for (const event of events) await eventually(() => eventDetail(call, key, event, '/v1/outbound-events'), (d) => d.event.deliveries[0]!.waiting?.reason === 'paused', 20_000);
    sink.respondWith((_req, res) => res.writeHead(200).end());

    const resumed = await patchEndpoint(secret, id, { active: true });
    expect(resumed).toMatchObject({ active: true, disabled_reason: null, health: { state: 'healthy', consecutive_failures: 0, open_until: null } });
    for (const event of events) await eventually(() => eventDetail(call, key, event, '/v1/outbound-events'), (d) => d.event.status === 'delivered', 20_000);
    const api = await typedClient(call, key).destinations.get(id);
    expect(api.health).toMatchObject({ state: 'healthy', consecutive_failures: 0, open_until: null });
  });

  it('after an auto-disable, so the next failure does not disable it again at once', async () => {
    sink.respondWith((req, res) => res.writeHead(req.path.startsWith('/down') ? 503 : 200).end());
    const { key, secret, customer } = await accountWithPortal('auto-disable');
    const created = await call('POST', '/v1/portal/endpoints', { ...portal(secret), body: { url: `${sink.url}/down/auto`, event_types: ['invoice.paid'] } });
    const id = created.json.data.id as string;
    await proveOwnership(call, key, sink, id, '/down/auto');
    // A value too small for DynamoDB to store is refused (it was a 500), and nothing changes.
    const tiny = await call('PATCH', `/v1/destinations/${id}`, { key, body: { auto_disable_after_hours: 5e-324 } });
    expect([tiny.status, tiny.json.error]).toEqual([400, 'auto_disable_after_hours must be 0 (never) or at least 0.0001']);
    // 3.6 seconds of nothing but failures disable it.
    expect((await call('PATCH', `/v1/destinations/${id}`, { key, body: { auto_disable_after_hours: 0.001 } })).status).toBe(200);
    const first = await publish(key, customer);
    const disabled = await eventually(() => health(secret, id), (e) => !e.active, 30_000);
    expect(disabled.disabled_reason).toMatch(/^every delivery failed for 0\.001 hours/);
    await eventually(() => eventDetail(call, key, first, '/v1/outbound-events'), (d) => d.event.deliveries[0]!.waiting?.reason === 'paused', 20_000);

    expect(await patchEndpoint(secret, id, { active: true })).toMatchObject({ active: true, disabled_reason: null, health: { state: 'healthy' } });
    const tries = requestsTo('/down/auto').length;
    const next = await publish(key, customer);
    await eventually(() => eventDetail(call, key, next, '/v1/outbound-events'), (d) => d.attempts.length >= 1);
    expect(requestsTo('/down/auto').length).toBeGreaterThan(tries);
    // A failure after a fresh start leaves a failing endpoint, not a disabled one.
    const failing = await health(secret, id);
    expect(failing).toMatchObject({ active: true, disabled_reason: null });
    expect(failing.health.consecutive_failures).toBeGreaterThanOrEqual(1);
  });
});

describe('endpoint caps', () => {
  const customerFull = (customer: string) => `customer ${customer} has reached its limit of 2 endpoints`;
  const accountFull = 'the account has reached its limit of 5 endpoints';

  async function expectRefused(res: { status: number; json: { error: string } }, message: string) {
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(message);
  }

  it('per customer and per account, on the API and in the portal, creating or moving', async () => {
    const { key, secret } = await accountWithPortal('caps', 'cus_x');
    const create = (body: Record<string, unknown>) => call('POST', '/v1/destinations', { key, body: { name: 'd', url: `${sink.url}/caps`, ...body } });
    const createInPortal = (sessionSecret: string) =>
      call('POST', '/v1/portal/endpoints', { ...portal(sessionSecret), body: { url: `${sink.url}/caps`, event_types: ['invoice.paid'] } });

    // cus_x: one from the account, one from its portal; a third is refused on either side.
    expect((await create({ customer: 'cus_x' })).status).toBe(201);
    expect((await createInPortal(secret)).status).toBe(201);
    await expectRefused(await create({ customer: 'cus_x' }), customerFull('cus_x'));
    await expectRefused(await createInPortal(secret), customerFull('cus_x'));

    // Other customers and the account's own still fit, up to the account's 5.
    const y = await openPortalSession(call, key, 'cus_y');
    expect((await createInPortal(y.secret)).status).toBe(201);
    const own = (await create({})).json.data.id as string;
    const spare = (await create({})).json.data.id as string;
    await expectRefused(await create({}), accountFull);
    await expectRefused(await create({ customer: 'cus_z' }), accountFull);
    const z = await openPortalSession(call, key, 'cus_z');
    await expectRefused(await createInPortal(z.secret), accountFull);

    // Moving one of the account's own to a customer counts against that customer only.
    await expectRefused(await call('PATCH', `/v1/destinations/${own}`, { key, body: { customer: 'cus_x' } }), customerFull('cus_x'));
    expect((await call('PATCH', `/v1/destinations/${own}`, { key, body: { customer: 'cus_y' } })).status).toBe(200);
    await expectRefused(await call('PATCH', `/v1/destinations/${spare}`, { key, body: { customer: 'cus_y' } }), customerFull('cus_y'));
    // A refused request changed nothing.
    const listed = await typedClient(call, key).destinations.list();
    expect(listed.map((d) => d.customer).sort()).toEqual(['cus_x', 'cus_x', 'cus_y', 'cus_y', null]);

    // A delete makes room again; another account has its own count.
    expect((await call('DELETE', `/v1/destinations/${spare}`, { key })).status).toBe(204);
    expect((await createInPortal(z.secret)).status).toBe(201);
    const other = await createAccount(call, { name: 'caps-other' });
    expect((await call('POST', '/v1/destinations', { key: other.key, body: { name: 'd', url: `${sink.url}/caps`, customer: 'cus_x' } })).status).toBe(201);
  });
});
