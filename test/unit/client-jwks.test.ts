import type * as nodeCrypto from 'node:crypto';
import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { verifyWebhook, verifyWebhookWithJwks } from '../../clients/typescript/src/index';

/** Every Ed25519 verification the client makes, counted: what a hostile header costs a receiver. */
const verifications = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:crypto', async (original) => {
  const crypto = await original<typeof nodeCrypto>();
  return {
    ...crypto,
    verify: (...args: Parameters<typeof nodeCrypto.verify>) => {
      verifications.count++;
      return crypto.verify(...args);
    },
  };
});

/** A key pair as the gateway keeps one: its JWK, and a signer of Standard Webhooks' v1a form. */
function keyPair(kid: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const { x } = publicKey.export({ format: 'jwk' });
  return { jwk: { kty: 'OKP', crv: 'Ed25519', x, kid, use: 'sig', alg: 'EdDSA' }, sign: (message: string) => `v1a,${sign(null, Buffer.from(message), privateKey).toString('base64')}` };
}

const NOW = new Date('2026-06-01T12:00:00Z');
const T = Math.floor(NOW.getTime() / 1000);
const BODY = '{"n":1}';
const [k1, k2] = [keyPair('k1'), keyPair('k2')];

/** A JWKS endpoint: what it serves now, its Cache-Control, and how often it was fetched. */
function endpoint(keys: Array<ReturnType<typeof keyPair>>, cacheControl = 'public, max-age=300') {
  const served = { keys, fetches: 0 };
  const fetch = async (_url: string) => {
    served.fetches++;
    return { ok: true, status: 200, headers: { get: (name: string) => (name === 'cache-control' ? cacheControl : null) }, json: async () => ({ keys: served.keys.map((k) => k.jwk) }) };
  };
  return { served, fetch };
}

let urls = 0;
const uniqueUrl = () => `https://gateway.example/.well-known/jwks/${++urls}.json`;
const delivery = (signers: Array<ReturnType<typeof keyPair>>, kids = signers.map((s) => s.jwk.kid), t = T, body = BODY) => ({
  'webhook-id': 'msg_1',
  'webhook-timestamp': String(t),
  'webhook-signature': signers.map((s) => s.sign(`msg_1.${t}.${body}`)).join(' '),
  'webhook-key-id': kids.join(' '),
});

describe('verifyWebhookWithJwks', () => {
  it('verifies with the named key and fetches the JWKS once while it is fresh', async () => {
    const { served, fetch } = endpoint([k1]);
    const url = uniqueUrl();
    expect(await verifyWebhookWithJwks(BODY, delivery([k1]), url, { now: NOW, fetch })).toBe(true);
    expect(await verifyWebhookWithJwks(BODY, delivery([k1]), url, { now: NOW, fetch })).toBe(true);
    expect(served.fetches).toBe(1);
  });

  it('fetches again on a kid it lacks (a rotation), and when the JWKS’s max-age has passed', async () => {
    const { served, fetch } = endpoint([k1]);
    const url = uniqueUrl();
    expect(await verifyWebhookWithJwks(BODY, delivery([k1]), url, { now: NOW, fetch })).toBe(true);
    served.keys = [k2, k1];
    expect(await verifyWebhookWithJwks(BODY, delivery([k2, k1]), url, { now: NOW, fetch })).toBe(true);
    expect(served.fetches).toBe(2);

    const stale = endpoint([k1], 'public, max-age=0');
    const staleUrl = uniqueUrl();
    await verifyWebhookWithJwks(BODY, delivery([k1]), staleUrl, { now: NOW, fetch: stale.fetch });
    await verifyWebhookWithJwks(BODY, delivery([k1]), staleUrl, { now: NOW, fetch: stale.fetch });
    expect(stale.served.fetches).toBe(2);
  });

  it('made-up kids fetch the JWKS again at most once in 5 seconds', async () => {
    const { served, fetch } = endpoint([k1]);
    const url = uniqueUrl();
    await verifyWebhookWithJwks(BODY, delivery([k1]), url, { now: NOW, fetch });
    for (const kid of ['x1', 'x2', 'x3']) expect(await verifyWebhookWithJwks(BODY, delivery([k1], [kid]), url, { now: NOW, fetch })).toBe(false);
    expect(served.fetches).toBe(2);
  });

  it.each([
    { name: 'another body', headers: delivery([k1]), body: `${BODY} ` },
    { name: 'the wrong kid', headers: delivery([k1], ['k2']), body: BODY },
    { name: 'a key the JWKS does not list', headers: delivery([k2], ['k9']), body: BODY },
    { name: 'an old timestamp', headers: delivery([k1], ['k1'], T - 301), body: BODY },
    { name: 'an HMAC v1 signature', headers: { ...delivery([k1]), 'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=' }, body: BODY },
    { name: 'no webhook-id', headers: { ...delivery([k1]), 'webhook-id': '' }, body: BODY },
  ])('refuses $name', async ({ headers, body }) => {
    const { fetch } = endpoint([k1, k2]);
    expect(await verifyWebhookWithJwks(body, headers, uniqueUrl(), { now: NOW, fetch })).toBe(false);
  });

  it('without webhook-key-id tries every listed key; a Fetch Headers works as well as a plain object', async () => {
    const { fetch } = endpoint([k1, k2]);
    const { 'webhook-key-id': _kid, ...headers } = delivery([k2]);
    expect(await verifyWebhookWithJwks(BODY, new Headers(headers), uniqueUrl(), { now: NOW, fetch })).toBe(true);
  });

  it('throws a TypeError for programming errors, and verifyWebhook points ed25519 at it', async () => {
    await expect(verifyWebhookWithJwks(BODY, 'v1a,xyz' as never, uniqueUrl())).rejects.toThrow(TypeError);
    expect(() => verifyWebhook(BODY, delivery([k1]), 'whsec_x', { scheme: 'ed25519' })).toThrow(/verifyWebhookWithJwks/);
  });
});

describe('hostile headers cost a receiver at most one check per listed key', () => {
  const bogus = (i: number) => `v1a,${Buffer.alloc(64, i).toString('base64')}`;

  it('150 bogus signatures naming a listed key: refused after as many checks as the JWKS has keys', async () => {
    const { fetch } = endpoint([k1, k2]);
    const signatures = Array.from({ length: 150 }, (_, i) => bogus(i));
    const headers = { ...delivery([k1]), 'webhook-signature': signatures.join(' '), 'webhook-key-id': Array(150).fill('k1').join(' ') };
    // Past 2048 characters the header is refused unread: not even the JWKS is fetched.
    verifications.count = 0;
    const { served: unread, fetch: unreadFetch } = endpoint([k1, k2]);
    expect(await verifyWebhookWithJwks(BODY, headers, uniqueUrl(), { now: NOW, fetch: unreadFetch })).toBe(false);
    expect({ checks: verifications.count, fetches: unread.fetches }).toEqual({ checks: 0, fetches: 0 });

    // Under the size cap, and without kids (every key a candidate for each): still two checks.
    const short = { ...delivery([k1]), 'webhook-signature': signatures.slice(0, 20).join(' '), 'webhook-key-id': '' };
    verifications.count = 0;
    expect(await verifyWebhookWithJwks(BODY, short, uniqueUrl(), { now: NOW, fetch })).toBe(false);
    expect(verifications.count).toBe(2);
  });

  it('a repeated signature is checked once; a rotation’s two still verify', async () => {
    const { fetch } = endpoint([k1, k2]);
    const genuine = delivery([k1]);
    const repeated = { ...genuine, 'webhook-signature': Array(20).fill(genuine['webhook-signature']).join(' '), 'webhook-key-id': Array(20).fill('k1').join(' ') };
    verifications.count = 0;
    expect(await verifyWebhookWithJwks(`${BODY} `, repeated, uniqueUrl(), { now: NOW, fetch })).toBe(false);
    expect(verifications.count).toBe(1);
    expect(await verifyWebhookWithJwks(BODY, repeated, uniqueUrl(), { now: NOW, fetch })).toBe(true);
    expect(await verifyWebhookWithJwks(BODY, delivery([k2, k1]), uniqueUrl(), { now: NOW, fetch })).toBe(true);
    // After the old key retired from the JWKS, the old signature costs nothing and the new one verifies.
    expect(await verifyWebhookWithJwks(BODY, delivery([k2, k1]), uniqueUrl(), { now: NOW, fetch: endpoint([k2]).fetch })).toBe(true);
  });

  it('answers a boolean, never throws, for any headers and body', async () => {
    const { fetch } = endpoint([k1, k2]);
    const url = uniqueUrl();
    const value = fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }), fc.constant(undefined), fc.integer() as fc.Arbitrary<unknown>);
    const name = fc.constantFrom('webhook-id', 'webhook-timestamp', 'webhook-signature', 'webhook-key-id', 'Webhook-Signature', '__proto__', 'x');
    const genuine = delivery([k1]);
    await fc.assert(
      fc.asyncProperty(fc.dictionary(name, value), fc.oneof(fc.string(), fc.uint8Array(), fc.constant(42 as unknown)), async (extra, body) => {
        const answer = await verifyWebhookWithJwks(body as string, { ...genuine, ...extra } as never, url, { now: NOW, fetch });
        expect(typeof answer).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });
});

describe('the JWKS host', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    // A stalled answer holds its connection open: end those, or close() waits for them.
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve).closeAllConnections())));
  });

  /** A JWKS host on this machine that answers as `respond` says: or never. */
  async function host(respond: (res: ServerResponse) => void): Promise<string> {
    const server = createServer((_req, res) => respond(res));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/.well-known/jwks/${++urls}.json`;
  }

  it('that never answers: the verification rejects once the timeout passes, naming it', async () => {
    const url = await host(() => undefined);
    await expect(verifyWebhookWithJwks(BODY, delivery([k1]), url, { now: NOW, jwksTimeoutMs: 300 })).rejects.toThrow(`GET ${url} gave no answer within 300 ms`);
  });

  it('that sends its headers and stalls the body: rejects as well', async () => {
    const url = await host((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"keys": [');
    });
    await expect(verifyWebhookWithJwks(BODY, delivery([k1]), url, { now: NOW, jwksTimeoutMs: 300 })).rejects.toThrow(/gave no answer within 300 ms/);
  });

  it('a fetch function that ignores the abort signal still ends at the timeout, and is sent the signal', async () => {
    let signal: AbortSignal | undefined;
    const fetch = (_url: string, init: { signal: AbortSignal }) => {
      signal = init.signal;
      return new Promise<never>(() => undefined);
    };
    await expect(verifyWebhookWithJwks(BODY, delivery([k1]), uniqueUrl(), { now: NOW, fetch, jwksTimeoutMs: 200 })).rejects.toThrow(/gave no answer within 200 ms/);
    expect(signal?.aborted).toBe(true);
  });

  it('stalling after it served keys once: the keys it served keep verifying', async () => {
    let stalled = false;
    const url = await host((res) => {
      if (stalled) return;
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=0' });
      res.end(JSON.stringify({ keys: [k1.jwk] }));
    });
    expect(await verifyWebhookWithJwks(BODY, delivery([k1]), url, { now: NOW, jwksTimeoutMs: 300 })).toBe(true);
    stalled = true;
    // Stale (max-age 0): fetched again, which stalls; the last keys answer.
    expect(await verifyWebhookWithJwks(BODY, delivery([k1]), url, { now: NOW, jwksTimeoutMs: 300 })).toBe(true);
    expect(await verifyWebhookWithJwks(`${BODY} `, delivery([k1]), url, { now: NOW, jwksTimeoutMs: 300 })).toBe(false);
  });

  it('a malformed key in the set is skipped: the others verify, and a delivery naming it is refused, not thrown', async () => {
    const malformed = [
      { kty: 'OKP', crv: 'Ed25519', x: 'not-32-bytes', kid: 'short', use: 'sig', alg: 'EdDSA' },
      { kty: 'OKP', crv: 'Ed25519', x: '!!!!', kid: 'bad' },
      { kty: 'OKP', crv: 'Ed25519', kid: 'no-x' },
      null,
      'a string',
      { kty: 'RSA', n: 'x', e: 'AQAB', kid: 'rsa' },
    ];
    const fetch = async () => ({ ok: true, status: 200, headers: { get: () => null }, json: async () => ({ keys: [...malformed, k1.jwk] }) });
    const url = uniqueUrl();
    expect(await verifyWebhookWithJwks(BODY, delivery([k1]), url, { now: NOW, fetch })).toBe(true);
    expect(await verifyWebhookWithJwks(BODY, delivery([k1], ['short']), url, { now: NOW, fetch })).toBe(false);
    expect(await verifyWebhookWithJwks(BODY, delivery([k1], ['bad']), url, { now: NOW, fetch })).toBe(false);
    // A document that is no key set at all cannot verify anything: that rejects, as an unreachable one does.
    const notASet = async () => ({ ok: true, status: 200, headers: { get: () => null }, json: async () => ({ keys: 'none' }) });
    await expect(verifyWebhookWithJwks(BODY, delivery([k1]), uniqueUrl(), { now: NOW, fetch: notASet })).rejects.toThrow(/no keys array/);
  });
});

