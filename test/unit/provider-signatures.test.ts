import { createHash, createHmac } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TOLERANCE_SECONDS, VERIFY_FAILURE_REASONS, deliveryIdFor, verifySignature, type VerificationConfig, type VerifyResult } from '../../lambdas/domain/provider-signatures';
import { PROVIDERS, type Provider } from '../../lambdas/domain/vocabulary';

type Headers = Record<string, string>;

// ── reference signers: independent formulas straight from each provider's docs ─────────────────

const hmac = (key: string | Buffer, ...parts: (string | Buffer)[]): Buffer => {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
};
const at = (seconds: number): Date => new Date(seconds * 1000);
const identity = (sig: string): string => sig;

const NOW_S = 1_772_366_400; // 2026-03-01T12:00:00Z
const NOW = at(NOW_S);
const BODY = Buffer.from('{"id":"evt_1NZ","object":"event","type":"thing.happened","data":{"amount":1999,"note":"caf\u00e9 \u2603"}}');

const STRIPE_SECRET = 'whsec_test_8f7d6c5b4a39281706f5e4d3c2b1a098';
const SW_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const SW_KEY = Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64');
const PLAIN_SECRET = 'It\u2019s a shared secret \u00e0 la carte';

type Sign = (body: Buffer, timestamp: string, mangle?: (sig: string) => string, secretKind?: 'right' | 'wrong') => Headers;

interface Fixture {
  name: string;
  config: VerificationConfig;
  sign: Sign;
  /** Headers whose absence must fail the request. */
  required: string[];
  timestamped: boolean;
  /** Headers with two signatures of which only the SECOND is valid (only for list schemes). */
  secondOfTwo?: (body: Buffer, timestamp: string) => Headers;
}

const stripeSign: Sign = (body, t, mangle = identity, kind = 'right') => {
  const sig = hmac(kind === 'right' ? STRIPE_SECRET : `${STRIPE_SECRET}x`, `${t}.`, body).toString('hex');
  return { 'stripe-signature': `t=${t},v1=${mangle(sig)}` };
};
const swSign: Sign = (body, t, mangle = identity, kind = 'right') => {
  const key = kind === 'right' ? SW_KEY : Buffer.from('bm90IHRoZSByaWdodCBrZXk=', 'base64');
  const sig = hmac(key, `msg_2Lh9KqQvXb.${t}.`, body).toString('base64');
  return { 'webhook-id': 'msg_2Lh9KqQvXb', 'webhook-timestamp': t, 'webhook-signature': `v1,${mangle(sig)}` };
};
const plainKey = (kind: 'right' | 'wrong'): string => (kind === 'right' ? PLAIN_SECRET : `${PLAIN_SECRET}!`);

const FIXTURES: Fixture[] = [
  {
    name: 'stripe',
    config: { provider: 'stripe', secret: STRIPE_SECRET },
    sign: stripeSign,
    required: ['stripe-signature'],
    timestamped: true,
    secondOfTwo: (body, t) => {
      const wrong = stripeSign(body, t, identity, 'wrong')['stripe-signature']?.split('v1=')[1];
      const right = stripeSign(body, t)['stripe-signature']?.split('v1=')[1];
      return { 'stripe-signature': `t=${t},v1=${wrong},v1=${right},v0=${wrong}` };
    },
  },
  {
    name: 'github',
    config: { provider: 'github', secret: PLAIN_SECRET },
    sign: (body, _t, mangle = identity, kind = 'right') => ({
      'x-hub-signature-256': `sha256=${mangle(hmac(plainKey(kind), body).toString('hex'))}`,
    }),
    required: ['x-hub-signature-256'],
    timestamped: false,
  },
  {
    name: 'shopify',
    config: { provider: 'shopify', secret: PLAIN_SECRET },
    sign: (body, _t, mangle = identity, kind = 'right') => ({
      'x-shopify-hmac-sha256': mangle(hmac(plainKey(kind), body).toString('base64')),
    }),
    required: ['x-shopify-hmac-sha256'],
    timestamped: false,
  },
  {
    name: 'slack',
    config: { provider: 'slack', secret: PLAIN_SECRET },
    sign: (body, t, mangle = identity, kind = 'right') => ({
      'x-slack-request-timestamp': t,
      'x-slack-signature': `v0=${mangle(hmac(plainKey(kind), `v0:${t}:`, body).toString('hex'))}`,
    }),
    required: ['x-slack-signature', 'x-slack-request-timestamp'],
    timestamped: true,
  },
  {
    name: 'standard_webhooks',
    config: { provider: 'standard_webhooks', secret: SW_SECRET },
    sign: swSign,
    required: ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
    timestamped: true,
    secondOfTwo: (body, t) => {
      const wrong = swSign(body, t, identity, 'wrong')['webhook-signature'];
      const right = swSign(body, t)['webhook-signature'];
      return { ...swSign(body, t), 'webhook-signature': `${wrong} v1a,${wrong?.slice(3)} ${right}` };
    },
  },
  {
    name: 'hmac_sha256 (hex, prefix)',
    config: { provider: 'hmac_sha256', secret: PLAIN_SECRET, header: 'X-Signature', encoding: 'hex', prefix: 'sha256=' },
    sign: (body, _t, mangle = identity, kind = 'right') => ({
      'x-signature': `sha256=${mangle(hmac(plainKey(kind), body).toString('hex'))}`,
    }),
    required: ['x-signature'],
    timestamped: false,
  },
  {
    name: 'hmac_sha256 (base64, no prefix)',
    config: { provider: 'hmac_sha256', secret: PLAIN_SECRET, header: 'x-body-signature', encoding: 'base64' },
    sign: (body, _t, mangle = identity, kind = 'right') => ({
      'x-body-signature': mangle(hmac(plainKey(kind), body).toString('base64')),
    }),
    required: ['x-body-signature'],
    timestamped: false,
  },
];

function expectFailure(result: VerifyResult, reason?: string): void {
  expect(result.ok).toBe(false);
  if (!result.ok) {
    expect(VERIFY_FAILURE_REASONS).toContain(result.reason);
    if (reason !== undefined) expect(result.reason).toBe(reason);
  }
}

/** Deterministic PRNG so fuzz failures reproduce. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const ALPHABET = 'abcdefABCDEF0123456789=,.:; +/_-tvV\u00e9\u00fc\u20ac\u2603\u{1F600}\u0000\t\r\n"\\';
function randomString(rand: () => number): string {
  const length = rand() < 0.05 ? 20_000 : Math.floor(rand() * 120);
  const chars = Array.from(ALPHABET);
  let out = '';
  for (let i = 0; i < length; i += 1) out += chars[Math.floor(rand() * chars.length)] ?? '';
  return out;
}

const GARBAGE = [
  '',
  ' ',
  '\t\n',
  '=',
  ',',
  ',,,',
  '=,=,=',
  't=',
  'v1=',
  't=,v1=',
  'v1,',
  'v1, v1,',
  'sha256=',
  'v0=',
  'null',
  'undefined',
  '-1',
  '1e9',
  'NaN',
  'Infinity',
  '0x10',
  '__proto__',
  'x'.repeat(100_000),
  'a'.repeat(64),
  'A'.repeat(44),
  'ü€😀 ünïcødé',
  '\u0000\u0001\u001f',
  '\ud800', // lone surrogate
  `t=${NOW_S},v1=${'z'.repeat(64)}`,
  `v1,${'%'.repeat(44)}`,
];

// ── published vectors ─────────────────────────────────────────────────────────────────────────

describe('published vectors', () => {
  it("GitHub's documented example (Validating webhook deliveries)", () => {
    const result = verifySignature(
      { provider: 'github', secret: "It's a Secret to Everybody" },
      {
        headers: { 'x-hub-signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17' },
        body: Buffer.from('Hello, World!'),
      },
      NOW,
    );
    expect(result).toEqual({ ok: true });
  });

  it('the Standard Webhooks spec vector verifies at its own timestamp', () => {
    const request = {
      headers: {
        'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
        'webhook-timestamp': '1614265330',
        'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
      },
      body: Buffer.from('{"test": 2432232314}'),
    };
    const config: VerificationConfig = { provider: 'standard_webhooks', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };
    expect(verifySignature(config, request, at(1614265330))).toEqual({ ok: true });
    // The same secret without the whsec_ prefix is base64-decoded as is.
    expect(verifySignature({ ...config, secret: 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }, request, at(1614265330))).toEqual({ ok: true });
    expectFailure(verifySignature(config, request, at(1614265330 + TOLERANCE_SECONDS + 1)), 'timestamp_too_old');
  });

  it("Slack's documented example (Verifying requests from Slack)", () => {
    // The body exactly as in Slack's walk-through; with it the documented signature reproduces.
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V' +
      '&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=' +
      '&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN' +
      '&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    const headers = {
      'x-slack-request-timestamp': '1531420618',
      'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    };
    const config: VerificationConfig = { provider: 'slack', secret: '8f742231b10e8888abcd99yyyzzz85a5' };
    expect(verifySignature(config, { headers, body: Buffer.from(body) }, at(1531420618))).toEqual({ ok: true });

    // A variant of that body (command=/webbot, text=test) does NOT produce the documented signature:
    // it signs to v0=c09a0c17…. Kept so nobody "fixes" the vector by pasting the wrong body.
    const variant = body.replace('command=%2Fwebhook-collect&text=', 'command=%2Fwebbot&text=test');
    expect(hmac('8f742231b10e8888abcd99yyyzzz85a5', 'v0:1531420618:', variant).toString('hex')).toBe(
      'c09a0c1746fbe338b95b52bf1d187fcf555304a7b80ed3413f65a98de8afbfce',
    );
    expectFailure(verifySignature(config, { headers, body: Buffer.from(variant) }, at(1531420618)), 'signature_mismatch');
  });

  it('Shopify: base64 HMAC-SHA256 of the raw body, computed independently', () => {
    const secret = 'shpss_0123456789abcdef0123456789abcdef';
    const body = Buffer.from('{"id":820982911946154508,"email":"jon@example.com","total_price":"199.65"}');
    const reference = createHmac('sha256', secret).update(body).digest('base64');
    const config: VerificationConfig = { provider: 'shopify', secret };
    expect(verifySignature(config, { headers: { 'x-shopify-hmac-sha256': reference }, body }, NOW)).toEqual({ ok: true });
    const other = createHmac('sha256', `${secret}0`).update(body).digest('base64');
    expectFailure(verifySignature(config, { headers: { 'x-shopify-hmac-sha256': other }, body }, NOW), 'signature_mismatch');
    // Hex of the right digest is not Shopify's encoding.
    const hex = createHmac('sha256', secret).update(body).digest('hex');
    expectFailure(verifySignature(config, { headers: { 'x-shopify-hmac-sha256': hex }, body }, NOW), 'signature_mismatch');
  });
});

// ── the Stripe SDK as the reference ─────────────────────────────────────────────────────────────

describe('stripe against the Stripe SDK', () => {
  const stripe = new Stripe('sk_test_x');
  const sdkSignature = stripe.webhooks.signature;
  if (sdkSignature === null) throw new Error('the Stripe SDK exposes no signature helper');
  const payload = BODY.toString('utf8');
  const config: VerificationConfig = { provider: 'stripe', secret: STRIPE_SECRET };

  const sdkAccepts = (header: string, body: string, now: Date): boolean => {
    try {
      return sdkSignature.verifyHeader(body, header, STRIPE_SECRET, TOLERANCE_SECONDS, undefined, now.getTime());
    } catch {
      return false;
    }
  };

  it('accepts a header produced by generateTestHeaderString (key = the whole whsec_ string)', () => {
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET, timestamp: NOW_S });
    expect(header).toBe(stripeSign(BODY, String(NOW_S))['stripe-signature']);
    expect(verifySignature(config, { headers: { 'stripe-signature': header }, body: BODY }, NOW)).toEqual({ ok: true });
  });

  it('agrees with webhooks.signature.verifyHeader', () => {
    const good = stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET, timestamp: NOW_S });
    const wrongSecret = stripe.webhooks.generateTestHeaderString({ payload, secret: `${STRIPE_SECRET}x`, timestamp: NOW_S });
    const stale = stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET, timestamp: NOW_S - 301 });
    const edge = stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET, timestamp: NOW_S - 300 });
    const v1 = (h: string): string => h.split('v1=')[1] ?? '';
    const cases: [string, string, string][] = [
      ['valid', good, payload],
      ['body changed', good, payload.replace('1999', '1998')],
      ['wrong secret', wrongSecret, payload],
      ['stale by 301 s', stale, payload],
      ['exactly 300 s old', edge, payload],
      ['second of two v1 valid', `t=${NOW_S},v1=${v1(wrongSecret)},v1=${v1(good)}`, payload],
      ['first of two v1 valid', `t=${NOW_S},v1=${v1(good)},v1=${v1(wrongSecret)}`, payload],
      ['v0 only', `t=${NOW_S},v0=${v1(good)}`, payload],
      ['unknown schemes alongside', `t=${NOW_S},v1=${v1(good)},v0=abc,foo=bar`, payload],
      ['truncated v1', `t=${NOW_S},v1=${v1(good).slice(0, 63)}`, payload],
      ['no timestamp', `v1=${v1(good)}`, payload],
      ['garbage', 'whatever', payload],
    ];
    for (const [label, header, body] of cases) {
      const ours = verifySignature(config, { headers: { 'stripe-signature': header }, body: Buffer.from(body) }, NOW).ok;
      expect({ label, ours }).toEqual({ label, ours: sdkAccepts(header, body, NOW) });
    }
  });

  it('is stricter than the SDK on timestamps from the future (the SDK only bounds age)', () => {
    const future = stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET, timestamp: NOW_S + 301 });
    expect(sdkAccepts(future, payload, NOW)).toBe(true);
    expectFailure(verifySignature(config, { headers: { 'stripe-signature': future }, body: BODY }, NOW), 'timestamp_too_new');
  });

  it('refuses a repeated t= (ambiguous), which the SDK would resolve to the last one', () => {
    const good = stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET, timestamp: NOW_S });
    const header = `t=${NOW_S - 10_000},${good}`;
    expectFailure(verifySignature(config, { headers: { 'stripe-signature': header }, body: BODY }, NOW), 'malformed_header');
  });
});

// ── the standardwebhooks library as the reference ──────────────────────────────────────────────

describe('standard_webhooks against the standardwebhooks library', () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const config: VerificationConfig = { provider: 'standard_webhooks', secret: SW_SECRET };
  const lib = new StandardWebhook(SW_SECRET);

  it('accepts what Webhook.sign produces, and reproduces the spec vector with it', () => {
    const signature = lib.sign('msg_p5jXN8AQM9LWM0D4loKWxJek', at(1614265330), '{"test": 2432232314}');
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');

    const id = 'msg_31ZJ8ovJ7hVYIhYrYQfDpxeJ5Qt';
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(NOW_S), 'webhook-signature': lib.sign(id, NOW, BODY) };
    expect(verifySignature(config, { headers, body: BODY }, NOW)).toEqual({ ok: true });
    // …and the library's output equals the spec formula computed independently.
    expect(headers['webhook-signature']).toBe(`v1,${hmac(SW_KEY, `${id}.${NOW_S}.`, BODY).toString('base64')}`);
  });

  it('agrees with Webhook.verify', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
    const id = 'msg_agree';
    const sign = (seconds: number, body: Buffer = BODY): string => lib.sign(id, at(seconds), body);
    const good = sign(NOW_S);
    const wrong = new StandardWebhook('whsec_bm90IHRoZSByaWdodCBrZXk=').sign(id, NOW, BODY);
    const cases: [string, Headers, Buffer][] = [
      ['valid', { 'webhook-timestamp': String(NOW_S), 'webhook-signature': good }, BODY],
      ['body changed', { 'webhook-timestamp': String(NOW_S), 'webhook-signature': good }, Buffer.from(BODY.toString().replace('1999', '1998'))],
      ['stale', { 'webhook-timestamp': String(NOW_S - 301), 'webhook-signature': sign(NOW_S - 301) }, BODY],
      ['future', { 'webhook-timestamp': String(NOW_S + 301), 'webhook-signature': sign(NOW_S + 301) }, BODY],
      ['edge old', { 'webhook-timestamp': String(NOW_S - 300), 'webhook-signature': sign(NOW_S - 300) }, BODY],
      ['edge new', { 'webhook-timestamp': String(NOW_S + 300), 'webhook-signature': sign(NOW_S + 300) }, BODY],
      ['second of two', { 'webhook-timestamp': String(NOW_S), 'webhook-signature': `${wrong} ${good}` }, BODY],
      ['wrong key', { 'webhook-timestamp': String(NOW_S), 'webhook-signature': wrong }, BODY],
      ['v2 only', { 'webhook-timestamp': String(NOW_S), 'webhook-signature': good.replace('v1,', 'v2,') }, BODY],
      ['truncated', { 'webhook-timestamp': String(NOW_S), 'webhook-signature': good.slice(0, -2) }, BODY],
    ];
    for (const [label, partial, body] of cases) {
      const headers = { 'webhook-id': id, ...partial };
      let libOk: boolean;
      try {
        lib.verify(body, headers, { jsonParse: false });
        libOk = true;
      } catch {
        libOk = false;
      }
      const ours = verifySignature(config, { headers, body }, NOW).ok;
      expect({ label, ours }).toEqual({ label, ours: libOk });
    }
  });
});

// ── the matrix: every provider, every row ─────────────────────────────────────────────────────

describe.each(FIXTURES)('$name', (fixture) => {
  const ts = String(NOW_S);
  const run = (headers: Headers, body: Buffer = BODY, now: Date = NOW): VerifyResult =>
    verifySignature(fixture.config, { headers, body }, now);

  it('valid → ok', () => {
    expect(run(fixture.sign(BODY, ts))).toEqual({ ok: true });
  });

  it('signed with another secret → not ok', () => {
    expectFailure(run(fixture.sign(BODY, ts, identity, 'wrong')), 'signature_mismatch');
  });

  it('one byte of the body changed → not ok', () => {
    const headers = fixture.sign(BODY, ts);
    for (const index of [0, Math.floor(BODY.length / 2), BODY.length - 1]) {
      const tampered = Buffer.from(BODY);
      tampered[index] = (tampered[index] ?? 0) ^ 0x01;
      expectFailure(run(headers, tampered), 'signature_mismatch');
    }
    expectFailure(run(headers, Buffer.concat([BODY, Buffer.from('\n')])), 'signature_mismatch');
    expectFailure(run(headers, BODY.subarray(0, BODY.length - 1)), 'signature_mismatch');
  });

  it('verifies the raw bytes, not a re-serialisation', () => {
    const pretty = Buffer.from(JSON.stringify(JSON.parse(BODY.toString()), null, 2));
    expectFailure(run(fixture.sign(BODY, ts), pretty), 'signature_mismatch');
    const binary = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28]); // not UTF-8 at all
    expect(run(fixture.sign(binary, ts), binary)).toEqual({ ok: true });
  });

  if (fixture.timestamped) {
    it(`stale (> ${TOLERANCE_SECONDS} s old) → not ok; exactly ${TOLERANCE_SECONDS} s → ok`, () => {
      expectFailure(run(fixture.sign(BODY, String(NOW_S - TOLERANCE_SECONDS - 1))), 'timestamp_too_old');
      expectFailure(run(fixture.sign(BODY, String(NOW_S - 86_400))), 'timestamp_too_old');
      expectFailure(run(fixture.sign(BODY, '0')), 'timestamp_too_old');
      expect(run(fixture.sign(BODY, String(NOW_S - TOLERANCE_SECONDS)))).toEqual({ ok: true });
    });

    it(`future (> ${TOLERANCE_SECONDS} s ahead) → not ok; exactly ${TOLERANCE_SECONDS} s → ok`, () => {
      expectFailure(run(fixture.sign(BODY, String(NOW_S + TOLERANCE_SECONDS + 1))), 'timestamp_too_new');
      expectFailure(run(fixture.sign(BODY, '999999999999')), 'timestamp_too_new');
      expect(run(fixture.sign(BODY, String(NOW_S + TOLERANCE_SECONDS)))).toEqual({ ok: true });
    });

    it('sub-second clock: the window is measured in whole seconds of `now`', () => {
      const justInside = new Date((NOW_S + TOLERANCE_SECONDS) * 1000 + 999);
      expect(run(fixture.sign(BODY, ts), BODY, justInside)).toEqual({ ok: true });
    });

    it.each(['abc', '-1', '1.5', `+${NOW_S}`, `0${NOW_S}`, '1e9', `${NOW_S}abc`, '0x10', 'NaN', '1234567890123'])(
      'non-canonical timestamp %j → invalid_timestamp, even when correctly signed',
      (bad) => {
        expectFailure(run(fixture.sign(BODY, bad)), 'invalid_timestamp');
      },
    );

    it('an invalid clock → not ok', () => {
      expectFailure(run(fixture.sign(BODY, ts), BODY, new Date(Number.NaN)), 'invalid_request');
    });
  } else {
    it('has no timestamp: an old or absent clock does not matter', () => {
      expect(run(fixture.sign(BODY, ts), BODY, at(0))).toEqual({ ok: true });
      expect(run(fixture.sign(BODY, ts), BODY, new Date(Number.NaN))).toEqual({ ok: true });
    });
  }

  const { secondOfTwo } = fixture;
  if (secondOfTwo) {
    it('two signatures with only the SECOND valid → ok', () => {
      expect(run(secondOfTwo(BODY, ts))).toEqual({ ok: true });
      expectFailure(run(secondOfTwo(BODY, ts), Buffer.from('{}')), 'signature_mismatch');
    });
  }

  it.each([
    ['truncated by one char', (s: string) => s.slice(0, -1)],
    ['truncated by two chars', (s: string) => s.slice(0, -2)],
    ['extended', (s: string) => `${s}00`],
    ['doubled', (s: string) => s + s],
    ['ten chars', (s: string) => s.slice(0, 10)],
    ['empty', () => ''],
    ['same length, undecodable', (s: string) => '!'.repeat(s.length)],
    ['same length, wrong alphabet', (s: string) => `${s.slice(0, -2)}-_`],
  ])('wrong-length or undecodable signature (%s) → not ok, no throw', (_label, mangle) => {
    expectFailure(run(fixture.sign(BODY, ts, mangle)));
  });

  it.each(fixture.required)('missing header %s → not ok', (name) => {
    const headers = { ...fixture.sign(BODY, ts) };
    delete headers[name];
    expectFailure(run(headers), 'missing_header');
    expectFailure(run({ ...fixture.sign(BODY, ts), [name]: '   ' }), 'missing_header');
  });

  it('no headers at all → not ok', () => {
    expectFailure(run({}), 'missing_header');
  });

  it('header names are looked up lower-case only (they arrive lower-cased)', () => {
    const upper = Object.fromEntries(Object.entries(fixture.sign(BODY, ts)).map(([k, v]) => [k.toUpperCase(), v]));
    expectFailure(run(upper), 'missing_header');
  });

  it('garbage in any signature header → not ok, never throws', () => {
    for (const name of fixture.required) {
      for (const junk of GARBAGE) {
        const result = run({ ...fixture.sign(BODY, ts), [name]: junk });
        expectFailure(result);
      }
    }
  });

  it('random header values (seeded fuzz) → not ok, never throws', () => {
    const rand = mulberry32(0x5eed ^ fixture.name.length);
    for (let i = 0; i < 300; i += 1) {
      const headers: Headers = { ...fixture.sign(BODY, ts) };
      for (const name of fixture.required) if (rand() < 0.7) headers[name] = randomString(rand);
      if (fixture.required.every((name) => headers[name] === fixture.sign(BODY, ts)[name])) {
        const first = fixture.required[0] ?? '';
        headers[first] = randomString(rand) || 'x';
      }
      expectFailure(run(headers));
    }
  });

  it('single-character mutations of a valid header never throw', () => {
    const rand = mulberry32(0xc0ffee);
    const valid = fixture.sign(BODY, ts);
    for (let i = 0; i < 300; i += 1) {
      const name = fixture.required[Math.floor(rand() * fixture.required.length)] ?? '';
      const value = valid[name] ?? '';
      const position = Math.floor(rand() * value.length);
      const replacement = Array.from(ALPHABET)[Math.floor(rand() * Array.from(ALPHABET).length)] ?? '';
      const mutated = value.slice(0, position) + replacement + value.slice(position + 1);
      const result = run({ ...valid, [name]: mutated });
      expect(typeof result.ok).toBe('boolean');
      // A mutation that changes the signature's digest or the signed timestamp must fail.
      if (!result.ok) expect(VERIFY_FAILURE_REASONS).toContain(result.reason);
    }
  });
});

describe('standard_webhooks specifics', () => {
  const config: VerificationConfig = { provider: 'standard_webhooks', secret: SW_SECRET };
  const ts = String(NOW_S);

  it('ignores other versions and tolerates repeated spaces in the list', () => {
    const valid = swSign(BODY, ts)['webhook-signature'] ?? '';
    const headers = { ...swSign(BODY, ts), 'webhook-signature': `v1a,AAAA  v2,${valid.slice(3)}   ${valid}` };
    expect(verifySignature(config, { headers, body: BODY }, NOW)).toEqual({ ok: true });
  });

  it('a list with no v1 entry → no_supported_signature, even if another version carries the right bytes', () => {
    const valid = swSign(BODY, ts)['webhook-signature'] ?? '';
    const headers = { ...swSign(BODY, ts), 'webhook-signature': `v2,${valid.slice(3)} v1a,${valid.slice(3)}` };
    expectFailure(verifySignature(config, { headers, body: BODY }, NOW), 'no_supported_signature');
  });

  it('the webhook-id is signed', () => {
    const headers = { ...swSign(BODY, ts), 'webhook-id': 'msg_other' };
    expectFailure(verifySignature(config, { headers, body: BODY }, NOW), 'signature_mismatch');
  });

  it('a secret that is not base64 is a config error, not a throw', () => {
    for (const secret of ['whsec_', 'whsec_!!!', 'not base64 at all', 'whsec_\u00e9\u00e9']) {
      expectFailure(verifySignature({ ...config, secret }, { headers: swSign(BODY, ts), body: BODY }, NOW), 'invalid_config');
    }
  });
});

describe('stripe specifics', () => {
  const config: VerificationConfig = { provider: 'stripe', secret: STRIPE_SECRET };
  const ts = String(NOW_S);

  it('a header with only v0 → no_supported_signature', () => {
    const sig = hmac(STRIPE_SECRET, `${ts}.`, BODY).toString('hex');
    const headers = { 'stripe-signature': `t=${ts},v0=${sig}` };
    expectFailure(verifySignature(config, { headers, body: BODY }, NOW), 'no_supported_signature');
  });

  it('the key is the secret string itself, not its base64 decoding', () => {
    const decodedKey = Buffer.from(STRIPE_SECRET.slice('whsec_'.length), 'base64');
    const sig = hmac(decodedKey, `${ts}.`, BODY).toString('hex');
    expectFailure(verifySignature(config, { headers: { 'stripe-signature': `t=${ts},v1=${sig}` }, body: BODY }, NOW), 'signature_mismatch');
  });

  it('the timestamp is signed', () => {
    const sig = hmac(STRIPE_SECRET, `${ts}.`, BODY).toString('hex');
    const headers = { 'stripe-signature': `t=${NOW_S + 1},v1=${sig}` };
    expectFailure(verifySignature(config, { headers, body: BODY }, NOW), 'signature_mismatch');
  });
});

describe('slack and github specifics', () => {
  it('slack requires the v0= prefix', () => {
    const ts = String(NOW_S);
    const sig = hmac(PLAIN_SECRET, `v0:${ts}:`, BODY).toString('hex');
    const headers = { 'x-slack-request-timestamp': ts, 'x-slack-signature': sig };
    expectFailure(verifySignature({ provider: 'slack', secret: PLAIN_SECRET }, { headers, body: BODY }, NOW), 'malformed_header');
  });

  it('github requires sha256= and ignores the legacy SHA-1 header', () => {
    const config: VerificationConfig = { provider: 'github', secret: PLAIN_SECRET };
    const hex = hmac(PLAIN_SECRET, BODY).toString('hex');
    expectFailure(verifySignature(config, { headers: { 'x-hub-signature-256': hex }, body: BODY }, NOW), 'malformed_header');
    const sha1 = createHmac('sha1', PLAIN_SECRET).update(BODY).digest('hex');
    expectFailure(verifySignature(config, { headers: { 'x-hub-signature': `sha1=${sha1}` }, body: BODY }, NOW), 'missing_header');
  });
});

// ── generic hmac_sha256 ───────────────────────────────────────────────────────────────────────

describe('hmac_sha256 (generic)', () => {
  const hex = hmac(PLAIN_SECRET, BODY).toString('hex');
  const b64 = hmac(PLAIN_SECRET, BODY).toString('base64');
  const base = { provider: 'hmac_sha256', secret: PLAIN_SECRET, header: 'X-Hook-Signature' } as const;
  const check = (config: VerificationConfig, value: string): VerifyResult =>
    verifySignature(config, { headers: { 'x-hook-signature': value }, body: BODY }, NOW);

  it.each([
    ['hex, no prefix', { ...base, encoding: 'hex' as const }, hex],
    ['hex, upper-case digits', { ...base, encoding: 'hex' as const }, hex.toUpperCase()],
    ['hex, prefix', { ...base, encoding: 'hex' as const, prefix: 'sha256=' }, `sha256=${hex}`],
    ['base64, no prefix', { ...base, encoding: 'base64' as const }, b64],
    ['base64, prefix', { ...base, encoding: 'base64' as const, prefix: 'v1=' }, `v1=${b64}`],
    ['empty prefix = no prefix', { ...base, encoding: 'hex' as const, prefix: '' }, hex],
  ])('%s → ok', (_label, config, value) => {
    expect(check(config, value)).toEqual({ ok: true });
  });

  it('the configured header name is lower-cased (and trimmed)', () => {
    expect(check({ ...base, header: '  X-HOOK-SIGNATURE ', encoding: 'hex' }, hex)).toEqual({ ok: true });
  });

  it('the prefix is required when configured', () => {
    expectFailure(check({ ...base, encoding: 'hex', prefix: 'sha256=' }, hex), 'malformed_header');
    expectFailure(check({ ...base, encoding: 'hex', prefix: 'sha256=' }, `SHA256=${hex}`), 'malformed_header');
    expectFailure(check({ ...base, encoding: 'base64', prefix: 'v1=' }, b64), 'malformed_header');
  });

  it('a prefix that is not configured is not stripped', () => {
    expectFailure(check({ ...base, encoding: 'hex' }, `sha256=${hex}`), 'signature_mismatch');
  });

  it('the encoding must match the configuration', () => {
    expectFailure(check({ ...base, encoding: 'hex' }, b64), 'signature_mismatch');
    expectFailure(check({ ...base, encoding: 'base64' }, hex), 'signature_mismatch');
    expectFailure(check({ ...base, encoding: 'base64' }, b64.replace(/=$/, '')), 'signature_mismatch'); // unpadded
    // url-safe alphabet: pick a body whose digest has a '+' or '/' so the variant really differs.
    let n = 0;
    while (!/[+/]/.test(hmac(PLAIN_SECRET, `${n}`).toString('base64'))) n += 1;
    const body = Buffer.from(`${n}`);
    const standard = hmac(PLAIN_SECRET, body).toString('base64');
    const urlSafe = standard.replace(/\+/g, '-').replace(/\//g, '_');
    const config: VerificationConfig = { ...base, encoding: 'base64' };
    const headers = (value: string): Headers => ({ 'x-hook-signature': value });
    expect(verifySignature(config, { headers: headers(standard), body }, NOW)).toEqual({ ok: true });
    expectFailure(verifySignature(config, { headers: headers(urlSafe), body }, NOW), 'signature_mismatch');
  });

  it('bad configurations fail closed without throwing', () => {
    const bad = [
      { ...base, header: '', encoding: 'hex' },
      { ...base, header: '   ', encoding: 'hex' },
      { ...base, encoding: 'binary' },
      { ...base, encoding: 'hex', prefix: 42 },
      { ...base, header: undefined, encoding: 'hex' },
    ] as unknown as VerificationConfig[];
    for (const config of bad) expectFailure(check(config, hex), 'invalid_config');
  });

  it('a header name that collides with an Object.prototype member is just missing', () => {
    for (const header of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expectFailure(
        verifySignature({ ...base, header, encoding: 'hex' }, { headers: {}, body: BODY }, NOW),
        'missing_header',
      );
    }
  });
});

// ── inputs from outside the type system ─────────────────────────────────────────────────────────

describe('never throws, whatever the input', () => {
  const valid = FIXTURES[0];
  if (!valid) throw new Error('no fixtures');
  const goodHeaders = valid.sign(BODY, String(NOW_S));

  it.each([
    ['null config', null],
    ['unknown provider', { provider: 'paypal', secret: 's' }],
    ['empty secret', { provider: 'github', secret: '' }],
    ['non-string secret', { provider: 'github', secret: 42 }],
    ['missing secret', { provider: 'stripe' }],
  ])('%s → invalid_config', (_label, config) => {
    expectFailure(verifySignature(config as unknown as VerificationConfig, { headers: goodHeaders, body: BODY }, NOW), 'invalid_config');
  });

  it.each([
    ['null request', null],
    ['string body', { headers: goodHeaders, body: BODY.toString() }],
    ['null body', { headers: goodHeaders, body: null }],
    ['null headers', { headers: null, body: BODY }],
    ['string headers', { headers: 'stripe-signature', body: BODY }],
  ])('%s → invalid_request', (_label, request) => {
    expectFailure(verifySignature(valid.config, request as unknown as { headers: Headers; body: Buffer }, NOW), 'invalid_request');
  });

  it('non-string header values are treated as missing', () => {
    for (const value of [undefined, null, 42, ['a', 'b'], { t: 1 }]) {
      const headers = { 'stripe-signature': value } as unknown as Headers;
      expectFailure(verifySignature(valid.config, { headers, body: BODY }, NOW), 'missing_header');
    }
  });

  it('headers without a prototype work', () => {
    const headers = Object.assign(Object.create(null) as Headers, goodHeaders);
    expect(verifySignature(valid.config, { headers, body: BODY }, NOW)).toEqual({ ok: true });
  });

  it('a plain Uint8Array body is accepted as bytes', () => {
    const bytes = new Uint8Array(BODY);
    expect(verifySignature(valid.config, { headers: goodHeaders, body: bytes as Buffer }, NOW)).toEqual({ ok: true });
  });

  it('null / garbage clocks do not throw', () => {
    for (const now of [null, undefined, 'yesterday', 0, new Date(Number.NaN)]) {
      expectFailure(verifySignature(valid.config, { headers: goodHeaders, body: BODY }, now as unknown as Date), 'invalid_request');
    }
  });

  it('an empty body still verifies when signed', () => {
    const empty = Buffer.alloc(0);
    for (const fixture of FIXTURES) {
      expect(verifySignature(fixture.config, { headers: fixture.sign(empty, String(NOW_S)), body: empty }, NOW)).toEqual({ ok: true });
    }
  });
});

// ── delivery ids ──────────────────────────────────────────────────────────────────────────────

describe('deliveryIdFor: the idempotency key is what the signature covers', () => {
  const uuid = '72d3162e-cc78-11e3-81ab-4c9367dc0958';
  const hash = (body: Buffer) => `sha256:${createHash('sha256').update(body).digest('hex')}`;
  /** Every conventional delivery-id header, none of them signed by the providers below but standard_webhooks. */
  const unsigned = { 'idempotency-key': 'idem-1', 'x-github-delivery': uuid, 'x-shopify-webhook-id': uuid, 'stripe-signature': 't=1,v1=00' };
  const slackEvent = Buffer.from('{"token":"x","team_id":"T1","event_id":"Ev08MFMKH6","event":{"type":"app_mention"}}');
  const form = Buffer.from('token=xyz&team_id=T1&command=%2Fhook&text=hi');

  it.each<[string, Provider | null, Headers, Buffer, string | null]>([
    // Without a check nothing is signed: the conventional headers, in order, then Stripe's body id.
    ['unverified: Idempotency-Key first', null, { ...unsigned, 'webhook-id': 'msg_1' }, BODY, 'idem-1'],
    ['unverified: webhook-id', null, { 'webhook-id': 'msg_1', 'x-github-delivery': uuid }, BODY, 'msg_1'],
    ['unverified: X-GitHub-Delivery, trimmed', null, { 'x-github-delivery': ` ${uuid} ` }, BODY, uuid],
    ['unverified: X-Shopify-Webhook-Id', null, { 'x-shopify-webhook-id': uuid }, BODY, uuid],
    ['unverified: with Stripe-Signature, the body id', null, { 'stripe-signature': 't=1,v1=00' }, BODY, 'evt_1NZ'],
    ['unverified: a blank header is none', null, { 'idempotency-key': '  ', 'x-github-delivery': uuid }, BODY, uuid],
    ['unverified: nothing', null, {}, BODY, null],
    // With a check: the signed id, whatever unsigned headers say.
    ['standard_webhooks: the signed webhook-id', 'standard_webhooks', { ...unsigned, 'webhook-id': 'msg_1' }, BODY, 'msg_1'],
    ['stripe: the id of the signed body', 'stripe', unsigned, BODY, 'evt_1NZ'],
    ['stripe: leading space and other fields', 'stripe', {}, Buffer.from('  {"object":"event","id":"evt_3"}\n'), 'evt_3'],
    ['slack: the event_id of an Events API body', 'slack', unsigned, slackEvent, 'Ev08MFMKH6'],
    // No signed id: the signed body itself.
    ['github: X-GitHub-Delivery is not signed, the body is', 'github', unsigned, BODY, hash(BODY)],
    ['shopify: X-Shopify-Webhook-Id is not signed, the body is', 'shopify', unsigned, BODY, hash(BODY)],
    ['hmac_sha256: only the body is signed', 'hmac_sha256', unsigned, BODY, hash(BODY)],
    ['slack: a form post (slash command) has no event_id', 'slack', unsigned, form, hash(form)],
    ['stripe: a body without a usable id', 'stripe', unsigned, Buffer.from('{"id":123}'), hash(Buffer.from('{"id":123}'))],
  ])('%s', (_label, provider, headers, body, expected) => {
    expect(deliveryIdFor(provider, headers, body)).toBe(expected);
  });

  it.each([
    ['not JSON', 'not json'],
    ['truncated JSON', '{"id":"evt_1"'],
    ['empty', ''],
    ['an array', '[{"id":"evt_1"}]'],
    ['a string', '"evt_1"'],
    ['null', 'null'],
    ['numeric id', '{"id":123}'],
    ['empty id', '{"id":""}'],
    ['nested id only', '{"data":{"id":"evt_1"}}'],
    ['id via __proto__', '{"__proto__":{"id":"evt_1"}}'],
    ['id with whitespace inside', '{"id":"evt 1"}'],
    ['overlong id', `{"id":"${'e'.repeat(257)}"}`],
  ])('a body id that is unusable (%s) counts as none: the hash verified, nothing unverified', (_label, text) => {
    const body = Buffer.from(text);
    expect(deliveryIdFor('stripe', {}, body)).toBe(hash(body));
    expect(deliveryIdFor(null, { 'stripe-signature': 't=1,v1=00' }, body)).toBeNull();
  });

  it('non-UTF-8 bytes: no body id', () => {
    const body = Buffer.from([0xff, 0xfe, 0x7b]);
    expect(deliveryIdFor('stripe', {}, body)).toBe(hash(body));
    expect(deliveryIdFor(null, { 'stripe-signature': 't=1,v1=00' }, body)).toBeNull();
  });

  it('never throws on garbage', () => {
    const rand = mulberry32(7);
    for (const provider of [...PROVIDERS, null]) {
      for (let i = 0; i < 50; i += 1) {
        const headers = { 'x-github-delivery': randomString(rand), 'webhook-id': randomString(rand) };
        expect(() => deliveryIdFor(provider, headers, Buffer.from(randomString(rand)))).not.toThrow();
      }
      expect(deliveryIdFor(provider, null as unknown as Headers, null as unknown as Buffer)).toBeNull();
    }
  });
});

it('PROVIDERS lists exactly the supported schemes', () => {
  expect([...PROVIDERS]).toEqual(['stripe', 'github', 'shopify', 'slack', 'standard_webhooks', 'hmac_sha256']);
  expect(TOLERANCE_SECONDS).toBe(300);
});
