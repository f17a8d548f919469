import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, verifyWebhookWithJwks } from '../../clients/typescript/src/index';

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
