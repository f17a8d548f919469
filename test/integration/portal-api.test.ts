import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway } from '../fixtures/gateway';
import { createAccount, typedClient, type Call } from '../fixtures/http-client';
import { addEventTypes, openPortalSession } from '../fixtures/portal';
import { eventually } from '../fixtures/sink';

/**
 * The portal API through real HTTP, without a browser: sessions, the catalog, and every scoping
 * rule (issue 16). Private destinations stay refused here, as in AWS, so the SSRF check is the real one.
 */
let env: Awaited<ReturnType<typeof bootGateway>>;
let call: Call;
let key: string;
let otherKey: string;
let dnsDir: string;
let dnsFile: string;

beforeAll(async () => {
  dnsDir = await mkdtemp(join(tmpdir(), 'hookgate-portal-dns-'));
  dnsFile = join(dnsDir, 'txt.json');
  await writeFile(dnsFile, '{}');
  env = await bootGateway({ HOOKGATE_DNS_TXT_OVERRIDES: dnsFile });
  call = env.call;
  key = (await createAccount(call, { name: 'Acme' })).key;
  otherKey = (await createAccount(call, { name: 'Globex' })).key;
  await addEventTypes(call, key, 'invoice.paid', 'invoice.created');
});
afterAll(async () => {
  await env?.stop();
  if (dnsDir) await rm(dnsDir, { recursive: true, force: true });
});

const portal = (secret: string) => ({ key: undefined, headers: { authorization: `Bearer ${secret}` } });

describe('portal sessions', () => {
  it('answers a link on the gateway with a ps_ secret and the expiry (default one hour)', async () => {
    const before = Date.now();
    const res = await call('POST', '/v1/portal-sessions', { key, body: { customer: 'cus_1' } });
    expect(res.status).toBe(201);
    expect(res.json.data.url).toMatch(new RegExp(`^${env.gateway.url}/portal#ps_[A-Za-z0-9_-]{43}$`));
    const expires = Date.parse(res.json.data.expires_at);
    expect(expires - before).toBeGreaterThanOrEqual(3_600_000 - 1000);
    expect(expires - before).toBeLessThanOrEqual(3_600_000 + 5000);
  });

  it.each([
    [{}, 'customer is required'],
    [{ customer: 'has space' }, 'customer must be 1 to 128 letters, digits or . _ : @ + - (starting with a letter or digit)'],
    [{ customer: 'c', expires_in_seconds: 0 }, 'expires_in_seconds must be at least 1'],
    [{ customer: 'c', expires_in_seconds: 86_401 }, 'expires_in_seconds must be at most 86400'],
    [{ customer: 'c', scope: 'all' }, 'unknown field: scope'],
  ])('refuses %j: %s', async (body, message) => {
    const res = await call('POST', '/v1/portal-sessions', { key, body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(message);
  });

  it('puts the link on the account’s verified custom domain', async () => {
    const domain = await call('POST', '/v1/custom-domains', { key, body: { domain: 'hooks.acme-portal.test' } });
    expect(domain.status).toBe(201);
    await writeFile(dnsFile, JSON.stringify({ [domain.json.data.verification_record.name]: domain.json.data.verification_record.value }));
    const verified = await typedClient(call, key).customDomains.verify(domain.json.data.id);
    expect(verified.status).toBe('verified');
    const { url } = await openPortalSession(call, key, 'cus_1');
    expect(url).toMatch(/^https:\/\/hooks\.acme-portal\.test\/portal#ps_/);
    // Another account's links stay on the gateway.
    const other = await openPortalSession(call, otherKey, 'cus_1');
    expect(other.url.startsWith(`${env.gateway.url}/portal#`)).toBe(true);
  });

  it('a session secret is no API key, and an API key opens no portal', async () => {
    const { secret } = await openPortalSession(call, key, 'cus_1');
    for (const [method, path] of [
      ['POST', '/v1/portal-sessions'],
      ['GET', '/v1/brand-settings'],
      ['POST', '/v1/brand-settings'],
      ['GET', '/v1/destinations'],
      ['GET', '/v1/account'],
      ['POST', '/v1/event-types'],
    ] as const) {
      const res = await call(method, path, { ...portal(secret), body: method === 'GET' ? undefined : { customer: 'cus_2' } });
      expect([method, path, res.status]).toEqual([method, path, 401]);
    }
    expect((await call('GET', '/v1/portal/endpoints', { key })).status).toBe(401);
    expect((await call('GET', '/v1/portal/endpoints', portal(`ps_${'A'.repeat(43)}`))).status).toBe(401);
  });

  it('an expired link is refused', async () => {
    const { secret } = await openPortalSession(call, key, 'cus_1', 1);
    expect((await call('GET', '/v1/portal/session', portal(secret))).status).toBe(200);
    // Read until its second has passed, however late this machine gets there; a link that never expires fails here.
    const res = await eventually(() => call('GET', '/v1/portal/session', portal(secret)), (r) => r.status !== 200, 10_000);
    expect(res.status).toBe(401);
    expect(res.json.error).toBe('Unauthorized');
  });
});

describe('event type catalog', () => {
  it('creates, replaces, lists by name and deletes', async () => {
    const created = await call('POST', '/v1/event-types', { key: otherKey, body: { name: 'order.shipped', schema: { type: 'object' } } });
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ name: 'order.shipped', description: null, schema: { type: 'object' } });
    const replaced = await call('POST', '/v1/event-types', { key: otherKey, body: { name: 'order.shipped', description: 'Shipped.' } });
    expect(replaced.status).toBe(200);
    expect(replaced.json.data).toMatchObject({ description: 'Shipped.', schema: null, created_at: created.json.data.created_at });
    await call('POST', '/v1/event-types', { key: otherKey, body: { name: 'order.created' } });
    const listed = await call('GET', '/v1/event-types', { key: otherKey });
    expect(listed.json.data.map((t: { name: string }) => t.name)).toEqual(['order.created', 'order.shipped']);
    expect((await call('DELETE', '/v1/event-types/order.shipped', { key: otherKey })).status).toBe(204);
    expect((await call('DELETE', '/v1/event-types/order.shipped', { key: otherKey })).status).toBe(404);
    // The other account's catalog is its own.
    expect((await call('GET', '/v1/event-types', { key })).json.data.map((t: { name: string }) => t.name)).toEqual(['invoice.created', 'invoice.paid']);
  });

  it.each([
    [{ name: 'invoice.*' }, 'name must be 1 to 200 letters, digits or . _ : / - (starting with a letter or digit)'],
    [{ name: 'a b' }, 'name must be 1 to 200 letters, digits or . _ : / - (starting with a letter or digit)'],
    [{}, 'name is required'],
  ])('refuses %j', async (body, message) => {
    const res = await call('POST', '/v1/event-types', { key, body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(message);
  });
});

describe('scoping', () => {
  it('lists only the customer’s endpoints; another customer’s endpoint and event are a 404', async () => {
    const mine = await openPortalSession(call, key, 'cus_a');
    const theirs = await openPortalSession(call, key, 'cus_b');
    const created = await call('POST', '/v1/portal/endpoints', {
      ...portal(mine.secret),
      body: { url: 'https://consumer.example.com/a', event_types: ['invoice.paid'] },
    });
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ url: 'https://consumer.example.com/a', event_types: ['invoice.paid'], active: true });
    expect(created.json.data.signing_secret).toMatch(/^whsec_/);
    const id = created.json.data.id as string;

    // The account sees it as a destination of that customer, with a route the portal manages.
    const byCustomer = await call('GET', '/v1/destinations?customer=cus_a', { key });
    expect(byCustomer.json.data.map((d: { id: string }) => d.id)).toEqual([id]);
    expect((await call('GET', '/v1/destinations?customer=cus_b', { key })).json.data).toEqual([]);
    expect((await call('GET', '/v1/destinations?customer=bad%20id', { key })).status).toBe(400);

    // Published and delivered (attempted) to cus_a's endpoint: in cus_a's log only.
    const { id: eventId } = await typedClient(call, key).outboundEvents.publish({ event_type: 'invoice.paid', payload: '{"n":1}', customer: 'cus_a' });
    const log = await eventually(
      async () => (await call('GET', '/v1/portal/events', portal(mine.secret))).json.data as Array<{ id: string }>,
      (items) => items.some((e) => e.id === eventId),
    );
    expect(log.map((e) => e.id)).toContain(eventId);
    expect((await call('GET', '/v1/portal/events', portal(theirs.secret))).json.data).toEqual([]);
    expect((await call('GET', '/v1/portal/endpoints', portal(theirs.secret))).json.data).toEqual([]);

    for (const [method, path, body] of [
      ['GET', `/v1/portal/endpoints/${id}`, undefined],
      ['PATCH', `/v1/portal/endpoints/${id}`, { active: false }],
      ['DELETE', `/v1/portal/endpoints/${id}`, undefined],
      ['POST', `/v1/portal/endpoints/${id}/rotate-secret`, undefined],
      ['POST', `/v1/portal/endpoints/${id}/test`, undefined],
      ['GET', `/v1/portal/events/${eventId}`, undefined],
      ['POST', `/v1/portal/events/${eventId}/resend`, { endpoint_id: id }],
    ] as const) {
      const res = await call(method, path, { ...portal(theirs.secret), body });
      expect([method, path, res.status, res.json?.error]).toEqual([method, path, 404, 'Not found']);
    }
    // The endpoint is untouched by all that.
    const still = await call('GET', `/v1/portal/endpoints/${id}`, portal(mine.secret));
    expect(still.json.data).toMatchObject({ active: true, signing_secret: created.json.data.signing_secret });
  });

  it('an account’s own destination without a customer is no customer’s', async () => {
    const own = await typedClient(call, key).destinations.create({ name: 'own', url: 'https://own.example.com/h' });
    expect(own.customer).toBeNull();
    const { secret } = await openPortalSession(call, key, 'cus_a');
    expect((await call('GET', `/v1/portal/endpoints/${own.id}`, portal(secret))).status).toBe(404);
  });

  it('endpoints added in the portal pass the same URL and SSRF checks; types must be in the catalog', async () => {
    const { secret } = await openPortalSession(call, key, 'cus_c');
    for (const [url, message] of [
      ['http://127.0.0.1:9/x', 'url must not point to a private or reserved address'],
      ['http://169.254.169.254/latest', 'url must not point to a private or reserved address'],
      ['https://user:pw@consumer.example.com/x', 'url must not contain credentials'],
      ['ftp://consumer.example.com/x', 'url must be an http or https URL'],
    ]) {
      const res = await call('POST', '/v1/portal/endpoints', { ...portal(secret), body: { url } });
      expect([url, res.status, res.json.error]).toEqual([url, 400, message]);
    }
    const unknownType = await call('POST', '/v1/portal/endpoints', {
      ...portal(secret),
      body: { url: 'https://consumer.example.com/c', event_types: ['payroll.run'] },
    });
    expect(unknownType.json.error).toBe('event_types must name event types of the catalog');
    expect((await call('GET', '/v1/portal/endpoints', portal(secret))).json.data).toEqual([]);
  });

  it('portal routes take outbound events only: an inbound webhook of a subscribed type is not sent to the customer', async () => {
    const { secret } = await openPortalSession(call, key, 'cus_d');
    const endpoint = await call('POST', '/v1/portal/endpoints', {
      ...portal(secret),
      body: { url: 'https://consumer.example.com/d', event_types: ['invoice.created'] },
    });
    const hookgate = typedClient(call, key);
    const source = await hookgate.sources.create({ name: 'billing' });
    const ingested = await call('POST', `/ingest/${source.path_token}`, {
      rawBody: '{}',
      headers: { 'content-type': 'application/json', 'x-event-type': 'invoice.created' },
    });
    const detail = await hookgate.events.get(ingested.json.data.id);
    expect(detail.event.deliveries.map((d) => d.destination_id)).not.toContain(endpoint.json.data.id);
  });
});
