import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portalApiRoutes } from '../../lambdas/api/routes/portal';
import { CUSTOMER_MESSAGE } from '../../lambdas/api-kit/schemas';
import { bootGateway } from '../fixtures/gateway';
import { createAccount, type Call } from '../fixtures/http-client';
import { openPortalSession } from '../fixtures/portal';

/**
 * Ending portal links (issue 20) through real HTTP: a link dies with the API key that made it, and
 * `POST /v1/portal-sessions/revoke` ends every link of one customer, and only those.
 */
let env: Awaited<ReturnType<typeof bootGateway>>;
let call: Call;
let key: string;
let otherAccountKey: string;

beforeAll(async () => {
  env = await bootGateway();
  call = env.call;
  key = (await createAccount(call, { name: 'Acme' })).key;
  otherAccountKey = (await createAccount(call, { name: 'Globex' })).key;
});
afterAll(async () => {
  await env?.stop();
});

const portal = (secret: string) => ({ headers: { authorization: `Bearer ${secret}` } });

/** The customer a link opens, or the status it is refused with. */
async function customerOf(secret: string): Promise<string | number> {
  const res = await call('GET', '/v1/portal/session', portal(secret));
  return res.status === 200 ? (res.json.data.customer as string) : res.status;
}

/** The portal API routes that do not refuse the link with the 401 every failure gets (none, once it is ended). */
async function routesNotRefusing(secret: string): Promise<string[]> {
  // Any id does: the link is checked before a route looks at anything else.
  const id = randomUUID();
  const answers: string[] = [];
  for (const route of portalApiRoutes) {
    const path = route.path.replace(/:[a-z_]+/g, id);
    const res = await call(route.method, path, { ...portal(secret), body: route.method === 'GET' ? undefined : { endpoint_id: id } });
    if (res.status !== 401 || res.json?.error !== 'Unauthorized') answers.push(`${route.method} ${route.path} ${res.status}`);
  }
  return answers;
}

async function newApiKey(): Promise<{ id: string; key: string }> {
  const res = await call('POST', '/v1/api-keys', { key, body: { name: 'portal links' } });
  expect(res.status).toBe(201);
  return { id: res.json.data.id, key: res.json.data.key };
}

describe('a link ends with its API key', () => {
  it('answers 401 on every portal route once the key that made it is revoked; links of other keys keep working', async () => {
    const made = await newApiKey();
    const doomed = await openPortalSession(call, made.key, 'cus_key');
    const kept = await openPortalSession(call, key, 'cus_key');
    expect(await customerOf(doomed.secret)).toBe('cus_key');

    expect((await call('DELETE', `/v1/api-keys/${made.id}`, { key })).status).toBe(204);
    expect(portalApiRoutes.length).toBeGreaterThanOrEqual(12);
    expect(await routesNotRefusing(doomed.secret)).toEqual([]);
    expect(await customerOf(kept.secret)).toBe('cus_key');
  });

  it('a key that revokes itself ends its own links too', async () => {
    const made = await newApiKey();
    const link = await openPortalSession(call, made.key, 'cus_self');
    expect((await call('DELETE', `/v1/api-keys/${made.id}`, { key: made.key })).status).toBe(204);
    expect(await customerOf(link.secret)).toBe(401);
  });
});

describe('POST /v1/portal-sessions/revoke', () => {
  it('ends every link of that customer, whichever key made it; other customers and accounts keep theirs; a later link works', async () => {
    const second = await newApiKey();
    const first = await openPortalSession(call, key, 'cus_r');
    const fromSecondKey = await openPortalSession(call, second.key, 'cus_r');
    const otherCustomer = await openPortalSession(call, key, 'cus_r2');
    const otherAccount = await openPortalSession(call, otherAccountKey, 'cus_r');
    expect(await customerOf(first.secret)).toBe('cus_r');
    expect(await customerOf(fromSecondKey.secret)).toBe('cus_r');

    const revoked = await call('POST', '/v1/portal-sessions/revoke', { key, body: { customer: 'cus_r' } });
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');

    expect(await routesNotRefusing(first.secret)).toEqual([]);
    expect(await customerOf(fromSecondKey.secret)).toBe(401);
    expect(await customerOf(otherCustomer.secret)).toBe('cus_r2');
    expect(await customerOf(otherAccount.secret)).toBe('cus_r');

    // A link made after the revoke works, until the next revoke.
    const later = await openPortalSession(call, key, 'cus_r');
    expect(await customerOf(later.secret)).toBe('cus_r');
    const endpoint = await call('POST', '/v1/portal/endpoints', { ...portal(later.secret), body: { url: 'https://consumer.example.com/r' } });
    expect(endpoint.status).toBe(201);
    expect((await call('POST', '/v1/portal-sessions/revoke', { key: second.key, body: { customer: 'cus_r' } })).status).toBe(204);
    expect(await customerOf(later.secret)).toBe(401);
    expect(await customerOf((await openPortalSession(call, key, 'cus_r')).secret)).toBe('cus_r');
    // Ending the links leaves the customer's endpoints alone.
    const listed = await call('GET', '/v1/destinations?customer=cus_r', { key });
    expect(listed.json.data.map((d: { id: string }) => d.id)).toEqual([endpoint.json.data.id]);
  });

  it('answers 204 for a customer that never had a link', async () => {
    expect((await call('POST', '/v1/portal-sessions/revoke', { key, body: { customer: 'cus_never' } })).status).toBe(204);
    expect(await customerOf((await openPortalSession(call, key, 'cus_never')).secret)).toBe('cus_never');
  });

  it.each([
    [{}, 'customer is required'],
    [{ customer: 'has space' }, CUSTOMER_MESSAGE],
    [{ customer: 42 }, 'customer must be a string'],
    [{ customer: 'c', scope: 'all' }, 'unknown field: scope'],
    [['cus_1'], 'request body must be a JSON object'],
  ])('refuses %j: %s', async (body, message) => {
    const res = await call('POST', '/v1/portal-sessions/revoke', { key, body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(message);
  });

  it('refuses bytes that are not JSON, and takes an API key only', async () => {
    const notJson = await call('POST', '/v1/portal-sessions/revoke', { key, rawBody: '{customer', headers: { 'content-type': 'application/json' } });
    expect([notJson.status, notJson.json.error]).toEqual([400, 'invalid JSON body']);
    const link = await openPortalSession(call, key, 'cus_auth');
    expect((await call('POST', '/v1/portal-sessions/revoke', { body: { customer: 'cus_auth' } })).status).toBe(401);
    expect((await call('POST', '/v1/portal-sessions/revoke', { ...portal(link.secret), body: { customer: 'cus_auth' } })).status).toBe(401);
    expect(await customerOf(link.secret)).toBe('cus_auth');
  });
});
