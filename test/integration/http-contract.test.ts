import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway } from '../fixtures/gateway';
import { createAccount, type Call, type CallResult } from '../fixtures/http-client';
import { openPortalSession } from '../fixtures/portal';

let env: Awaited<ReturnType<typeof bootGateway>>;
let call: Call;
let key: string;

beforeAll(async () => {
  env = await bootGateway();
  call = env.call;
  ({ key } = await createAccount(call, { name: 'Contract' }));
});
afterAll(() => env?.stop());

describe('envelope and probes', () => {
  it('answers the probes without credentials, in the envelope', async () => {
    const health = await call('GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.json).toEqual({ data: { status: 'ok' }, duration_ms: expect.any(Number) });
    const ready = await call('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(Number.isInteger(ready.json.duration_ms)).toBe(true);
    expect(ready.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers unknown routes and wrong methods with 404 Not found', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['GET', '/v1/unknown'],
      ['DELETE', '/v1/sources'],
      ['PUT', '/v1/account'],
      ['GET', '/v1/accounts'],
      ['GET', '/v1/sources/%E0%A4%A'],
    ] as const) {
      const res = await call(method, path, { key });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json).toEqual({ error: 'Not found', duration_ms: expect.any(Number) });
    }
  });

  it('refuses a body over 5 MB with 413 and a JSON error', async () => {
    const res = await call('POST', '/v1/sources', {
      key,
      rawBody: JSON.stringify({ name: 'x'.repeat(5 * 1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.json).toEqual({ error: 'request body too large', duration_ms: expect.any(Number) });
  });

  it('accepts a body of exactly 5 MB past the size check (then validates it)', async () => {
    const filler = 5 * 1024 * 1024 - JSON.stringify({ name: '' }).length;
    const res = await call('POST', '/v1/sources', {
      key,
      rawBody: JSON.stringify({ name: 'x'.repeat(filler) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('name must be at most 200 characters');
  });
});

describe('bad input never gives a 5xx', () => {
  const cases: Array<[string, string | Buffer, string]> = [
    ['malformed JSON', '{"name": ', 'invalid JSON body'],
    ['not JSON at all', 'hello', 'invalid JSON body'],
    ['a JSON array', '[1,2]', 'request body must be a JSON object'],
    ['a JSON string', '"name"', 'request body must be a JSON object'],
    ['JSON null', 'null', 'request body must be a JSON object'],
    ['a wrong type', '{"name": 42}', 'name must be a string'],
    ['an oversized field', JSON.stringify({ name: 'n'.repeat(100_000) }), 'name must be at most 200 characters'],
    ['a null byte', JSON.stringify({ name: 'a\u0000b' }), 'name must not contain control characters'],
    ['an unknown field', '{"name": "a", "nmae": "b"}', 'unknown field: nmae'],
    ['binary garbage', Buffer.from([0xff, 0xfe, 0x00, 0x01]), 'invalid JSON body'],
  ];
  it.each(cases)('%s → 400 naming the problem', async (_label, rawBody, message) => {
    const res = await call('POST', '/v1/sources', { key, rawBody, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: message, duration_ms: expect.any(Number) });
  });

  it('answers invalid ids in paths with 400 invalid id', async () => {
    for (const path of [
      '/v1/sources/not-a-uuid',
      '/v1/destinations/123',
      '/v1/routes/..%2F..%2Fetc',
      "/v1/sources/'%20OR%201=1",
      '/v1/destinations/00000000-0000-0000-0000-00000000000g',
    ]) {
      const res = await call('GET', path, { key });
      expect(res.status, path).toBe(400);
      expect(res.json.error).toBe('invalid id');
    }
  });

  it('is still healthy afterwards', async () => {
    expect((await call('GET', '/readyz')).status).toBe(200);
  });
});

describe('authentication', () => {
  it.each([
    ['no header', undefined],
    ['not Bearer', 'Basic abc'],
    ['malformed key', 'Bearer hk_short'],
    ['unknown key', `Bearer hk_${'A'.repeat(43)}`],
    ['wrong prefix', `Bearer sk_${'A'.repeat(43)}`],
  ])('%s → 401 Unauthorized', async (_label, authorization) => {
    const res = await call('GET', '/v1/sources', { headers: authorization ? { authorization } : {} });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: 'Unauthorized', duration_ms: expect.any(Number) });
  });
});

describe('Cache-Control: no-store', () => {
  it('is on every answer of /v1 and of the portal API, errors and 204s included', async () => {
    const portal = { headers: { authorization: `Bearer ${(await openPortalSession(call, key, 'cus_cache')).secret}` } };
    const created = await call('POST', '/v1/sources', { key, body: { name: 'cached?' } });
    const answers: Array<[string, CallResult, number]> = [
      ['GET /v1/account', await call('GET', '/v1/account', { key }), 200],
      ['POST /v1/sources', created, 201],
      ['DELETE /v1/sources/{id}', await call('DELETE', `/v1/sources/${created.json.data.id}`, { key }), 204],
      ['POST /v1/sources without a name', await call('POST', '/v1/sources', { key, body: {} }), 400],
      ['GET /v1/sources without a key', await call('GET', '/v1/sources'), 401],
      ['GET /v1/unknown', await call('GET', '/v1/unknown', { key }), 404],
      ['GET /v1/portal/session', await call('GET', '/v1/portal/session', portal), 200],
      ['POST /v1/portal/endpoints without a url', await call('POST', '/v1/portal/endpoints', { ...portal, body: {} }), 400],
      ['GET /v1/portal/endpoints/{unknown}', await call('GET', '/v1/portal/endpoints/0191a5e4-0000-7000-8000-000000000000', portal), 404],
      ['GET /v1/portal/endpoints with an unknown secret', await call('GET', '/v1/portal/endpoints', { headers: { authorization: `Bearer ps_${'A'.repeat(43)}` } }), 401],
    ];
    for (const [what, res, status] of answers) {
      expect(res.status, what).toBe(status);
      expect(res.headers.get('cache-control'), what).toBe('no-store');
    }
  });
});
