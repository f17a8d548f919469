import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bootGateway } from '../fixtures/gateway';
import { createAccount, typedClient, type Call } from '../fixtures/http-client';
import { ingest } from '../fixtures/setup';

let env: Awaited<ReturnType<typeof bootGateway>>;
let call: Call;
let key: string;

beforeAll(async () => {
  env = await bootGateway();
  call = env.call;
  ({ key } = await createAccount(call));
});
afterAll(() => env?.stop());

async function sourceWith(verification: Record<string, unknown> | undefined) {
  const res = await call('POST', '/v1/sources', { key, body: { name: 'verified', ...(verification ? { verification } : {}) } });
  expect(res.status).toBe(201);
  return res.json.data as { id: string; path_token: string; verification: unknown };
}

const now = () => Math.floor(Date.now() / 1000);
const hmac = (secret: string | Buffer, content: string | Buffer, encoding: 'hex' | 'base64') =>
  createHmac('sha256', secret).update(content).digest(encoding);
const stripeHeader = (payload: string, secret: string, timestamp = now()) =>
  new Stripe('sk_test_unused').webhooks.generateTestHeaderString({ payload, secret, timestamp });

async function expectRejected(token: string, body: string | Buffer, headers: Record<string, string>) {
  const res = await ingest(call, token, body, headers);
  expect(res.status).toBe(401);
  expect(res.json).toEqual({ error: 'invalid signature', duration_ms: expect.any(Number) });
}

describe('stripe', () => {
  const secret = 'whsec_stripe_test_secret_value';
  it('accepts what Stripe signs and refuses anything else, storing only the accepted', async () => {
    const source = await sourceWith({ provider: 'stripe', secret });
    expect(source.verification).toEqual({ provider: 'stripe', configured: true });
    const payload = JSON.stringify({ id: 'evt_123', type: 'charge.succeeded' });

    const ok = await ingest(call, source.path_token, payload, { 'stripe-signature': stripeHeader(payload, secret) });
    expect(ok.status).toBe(202);

    await expectRejected(source.path_token, payload.replace('123', '124'), { 'stripe-signature': stripeHeader(payload, secret) });
    await expectRejected(source.path_token, payload, { 'stripe-signature': stripeHeader(payload, secret, now() - 600) });
    await expectRejected(source.path_token, payload, { 'stripe-signature': stripeHeader(payload, secret, now() + 600) });
    await expectRejected(source.path_token, payload, { 'stripe-signature': `t=${now()},v1=abcd` });
    await expectRejected(source.path_token, payload, {});

    const t = now();
    const second = await ingest(call, source.path_token, JSON.stringify({ id: 'evt_2' }), {
      'stripe-signature': `t=${t},v1=${'0'.repeat(64)},v1=${hmac(secret, `${t}.${JSON.stringify({ id: 'evt_2' })}`, 'hex')}`,
    });
    expect(second.status).toBe(202);

    const events = await typedClient(call, key).events.list({ source_id: source.id });
    expect(events.data).toHaveLength(2);
  });
});

describe('github, shopify, slack, standard webhooks and generic HMAC', () => {
  it('github: GitHub’s documented test vector is accepted; one byte changed is not', async () => {
    const source = await sourceWith({ provider: 'github', secret: "It's a Secret to Everybody" });
    const signature = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect((await ingest(call, source.path_token, 'Hello, World!', { 'x-hub-signature-256': signature, 'content-type': 'text/plain' })).status).toBe(202);
    await expectRejected(source.path_token, 'Hello, World?', { 'x-hub-signature-256': signature });
    await expectRejected(source.path_token, 'Hello, World!', { 'x-hub-signature-256': 'sha256=757107' });
  });

  it('shopify: base64 HMAC of the raw body', async () => {
    const secret = 'shpss_shopify_secret';
    const source = await sourceWith({ provider: 'shopify', secret });
    const body = '{"id":820982911946154508,"email":"jon@example.com"}';
    expect((await ingest(call, source.path_token, body, { 'x-shopify-hmac-sha256': hmac(secret, body, 'base64') })).status).toBe(202);
    await expectRejected(source.path_token, `${body} `, { 'x-shopify-hmac-sha256': hmac(secret, body, 'base64') });
  });

  it('slack: v0 over v0:timestamp:body, five minutes of tolerance', async () => {
    const secret = '8f742231b10e8888abcd99yyyzzz85a5';
    const source = await sourceWith({ provider: 'slack', secret });
    const body = 'token=xyz&team_id=T1&command=%2Fhook&text=hi';
    const sign = (t: number) => ({ 'x-slack-request-timestamp': String(t), 'x-slack-signature': `v0=${hmac(secret, `v0:${t}:${body}`, 'hex')}`, 'content-type': 'application/x-www-form-urlencoded' });
    expect((await ingest(call, source.path_token, body, sign(now()))).status).toBe(202);
    await expectRejected(source.path_token, body, sign(now() - 301 - 5));
    await expectRejected(source.path_token, `${body}&x=1`, sign(now()));
  });

  it('standard webhooks: signed by the standardwebhooks library; the second of two signatures may be the valid one', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const source = await sourceWith({ provider: 'standard_webhooks', secret });
    const body = '{"test": 2432232314}';
    const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
    const date = new Date();
    const signature = new Webhook(secret).sign(id, date, body);
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(date.getTime() / 1000)), 'webhook-signature': signature };
    expect((await ingest(call, source.path_token, body, headers)).status).toBe(202);
    const both = { ...headers, 'webhook-id': 'msg_2', 'webhook-signature': `v1,${'A'.repeat(44)} ${new Webhook(secret).sign('msg_2', date, body)}` };
    expect((await ingest(call, source.path_token, body, both)).status).toBe(202);
    await expectRejected(source.path_token, body, { ...headers, 'webhook-timestamp': String(Math.floor(date.getTime() / 1000) - 600) });
    await expectRejected(source.path_token, body, { ...headers, 'webhook-signature': 'v1,short' });
  });

  it('generic hmac_sha256: configured header, encoding and prefix', async () => {
    const secret = 'generic-secret';
    const source = await sourceWith({ provider: 'hmac_sha256', secret, header: 'X-Signature', encoding: 'base64', prefix: 'sha256=' });
    const body = '{"generic":true}';
    expect((await ingest(call, source.path_token, body, { 'x-signature': `sha256=${hmac(secret, body, 'base64')}` })).status).toBe(202);
    await expectRejected(source.path_token, body, { 'x-signature': hmac(secret, body, 'base64') });
    await expectRejected(source.path_token, body, { 'x-signature': `sha256=${hmac(secret, body, 'hex')}` });
  });
});

describe('the idempotency key of a verified source is what the signature covers', () => {
  const externalId = async (id: string) => (await typedClient(call, key).events.get(id)).event.external_event_id;

  it('stripe: the same signed body under two Idempotency-Keys is one event, keyed by the body’s id', async () => {
    const secret = 'whsec_stripe_dedupe_secret';
    const source = await sourceWith({ provider: 'stripe', secret });
    const payload = JSON.stringify({ id: 'evt_dedupe_1', type: 'invoice.paid' });
    const first = await ingest(call, source.path_token, payload, { 'stripe-signature': stripeHeader(payload, secret), 'idempotency-key': 'idem-a' });
    const again = await ingest(call, source.path_token, payload, { 'stripe-signature': stripeHeader(payload, secret), 'idempotency-key': 'idem-b' });
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(again.json.data.id).toBe(first.json.data.id);
    expect(await externalId(first.json.data.id)).toBe('evt_dedupe_1');
  });

  it('github: a forged X-GitHub-Delivery on a replayed body cannot make the genuine next delivery a duplicate', async () => {
    const secret = 'gh-dedupe-secret';
    const source = await sourceWith({ provider: 'github', secret });
    const signed = (body: string, delivery: string) => ({ 'x-hub-signature-256': `sha256=${hmac(secret, body, 'hex')}`, 'x-github-delivery': delivery });
    const captured = '{"action":"opened","number":1}';
    const first = await ingest(call, source.path_token, captured, signed(captured, 'gh-1'));
    // An attacker with the URL replays the captured request under the id GitHub will give its next delivery.
    const replayed = await ingest(call, source.path_token, captured, signed(captured, 'gh-2'));
    expect(replayed.json.data.id).toBe(first.json.data.id);
    const genuine = '{"action":"closed","number":1}';
    const next = await ingest(call, source.path_token, genuine, signed(genuine, 'gh-2'));
    expect(next.status).toBe(202);
    expect(next.json.data.id).not.toBe(first.json.data.id);
    expect((await typedClient(call, key).events.list({ source_id: source.id })).data).toHaveLength(2);
    expect(await externalId(next.json.data.id)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('standard webhooks: the signed webhook-id decides, not an Idempotency-Key', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const source = await sourceWith({ provider: 'standard_webhooks', secret });
    const body = '{"n":1}';
    const signed = (id: string, extra: Record<string, string>) => {
      const date = new Date();
      return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(date.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign(id, date, body), ...extra };
    };
    const first = await ingest(call, source.path_token, body, signed('msg_dedupe_1', { 'idempotency-key': 'same' }));
    const retry = await ingest(call, source.path_token, body, signed('msg_dedupe_1', { 'idempotency-key': 'other' }));
    const distinct = await ingest(call, source.path_token, body, signed('msg_dedupe_2', { 'idempotency-key': 'same' }));
    expect(retry.json.data.id).toBe(first.json.data.id);
    expect(distinct.json.data.id).not.toBe(first.json.data.id);
    expect(await externalId(distinct.json.data.id)).toBe('msg_dedupe_2');
  });
});

describe('configuring verification', () => {
  it('never shows the secret, and PATCH turns the check on and off', async () => {
    const source = await sourceWith(undefined);
    expect(source.verification).toBeNull();
    expect((await ingest(call, source.path_token, 'unsigned')).status).toBe(202);

    const on = await call('PATCH', `/v1/sources/${source.id}`, { key, body: { verification: { provider: 'github', secret: 'gh-secret-123' } } });
    expect(on.status).toBe(200);
    expect(on.json.data.verification).toEqual({ provider: 'github', configured: true });
    for (const text of [on.text, (await call('GET', `/v1/sources/${source.id}`, { key })).text, (await call('GET', '/v1/sources', { key })).text]) {
      expect(text).not.toContain('gh-secret-123');
    }
    await expectRejected(source.path_token, 'unsigned', {});
    expect((await ingest(call, source.path_token, 'signed', { 'x-hub-signature-256': `sha256=${hmac('gh-secret-123', 'signed', 'hex')}` })).status).toBe(202);

    const off = await typedClient(call, key).sources.update(source.id, { verification: null, name: 'renamed' });
    expect(off).toMatchObject({ verification: null, name: 'renamed' });
    expect((await ingest(call, source.path_token, 'unsigned again')).status).toBe(202);
  });

  it('counts rejected requests as a metric', async () => {
    const source = await sourceWith({ provider: 'shopify', secret: 'metric-secret' });
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    // The local runtime prints metric lines only when asked.
    vi.stubEnv('HOOKGATE_LOG_LEVEL', 'debug');
    try {
      await expectRejected(source.path_token, '{}', { 'x-shopify-hmac-sha256': 'bm9wZQ==' });
    } finally {
      spy.mockRestore();
      vi.unstubAllEnvs();
    }
    const metric = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => 'VerificationRejected' in l);
    expect(metric).toMatchObject({ provider: 'shopify', VerificationRejected: 1, _aws: { CloudWatchMetrics: [{ Namespace: 'Hookgate' }] } });
  });

  it.each([
    [{ provider: 'paypal', secret: 'x' }, 'verification.provider must be one of: stripe, github, shopify, slack, standard_webhooks, hmac_sha256'],
    [{ provider: 'github' }, 'verification.secret is required'],
    [{ provider: 'github', secret: '' }, 'verification.secret is required'],
    [{ provider: 'standard_webhooks', secret: 'not-whsec' }, 'verification.secret must be whsec_ followed by base64 of 24 to 64 bytes'],
    [{ provider: 'hmac_sha256', secret: 's' }, 'verification.header is required'],
    [{ provider: 'hmac_sha256', secret: 's', header: 'bad header' }, 'verification.header must be a valid HTTP header name'],
    [{ provider: 'hmac_sha256', secret: 's', header: 'x-sig', encoding: 'base32' }, 'verification.encoding must be one of: hex, base64'],
    [{ provider: 'github', secret: 's', header: 'x' }, 'unknown field: verification.header'],
  ])('refuses %j with 400', async (verification, message) => {
    const res = await call('POST', '/v1/sources', { key, body: { name: 'v', verification } });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(message);
  });
});
