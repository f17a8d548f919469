import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BINARY_BODY_BYTES } from '../../lambdas/domain/payload-limits';
import { bootGateway } from '../fixtures/gateway';
import { createAccount, type Call, type CallOptions } from '../fixtures/http-client';
import { recordFigures } from './summary';

// Bad input that only AWS would have refused or failed on (issue 14): bodies over Lambda's 6 MB once
// encoded, header values that cannot be sent, offsets beyond DynamoDB's 32-bit Limit. Each is a 4xx
// in the error envelope, never a 5xx, and nothing of it is stored.

const SOURCE = 'aws-limits';
let env: Awaited<ReturnType<typeof bootGateway>>;
let call: Call;
let key: string;
let token: string;
let destination: string;
const tally = { tried: 0, fiveHundreds: 0 };

beforeAll(async () => {
  env = await bootGateway({ SCHEDULER_EXPORT_POLL_INTERVAL: '3600' });
  call = env.call;
  ({ key } = await createAccount(call, { name: 'Limits' }));
  token = (await call('POST', '/v1/sources', { key, body: { name: 's' } })).json.data.path_token;
  destination = (await call('POST', '/v1/destinations', { key, body: { name: 'd', url: 'https://93.184.216.34/hook' } })).json.data.id;
});
afterAll(async () => {
  recordFigures(SOURCE, { badInputsTried: tally.tried, badInput5xx: tally.fiveHundreds });
  await env?.stop();
});

async function refused(method: string, path: string, options: CallOptions, status: number): Promise<void> {
  tally.tried++;
  const res = await call(method, path, options);
  if (res.status >= 500) tally.fiveHundreds++;
  expect(res.status, `${method} ${path} → ${res.text.slice(0, 200)}`).toBe(status);
  expect(Object.keys(res.json ?? {}).sort()).toEqual(['duration_ms', 'error']);
}

/** A binary body whose event still fits in 6 MB but whose base64 passes the handler's limit. */
const MAX_BODY_ENCODED_BAND = MAX_BINARY_BODY_BYTES + 60_000;
const latin1OfUtf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
const UNSENDABLE = ['注文.作成', 'café', 'emoji 🎉', 'ÿ', '\u00a0nbsp'];

describe('bad input AWS would have failed on: 4xx, never 5xx, nothing stored', () => {
  it('bodies too large once encoded for Lambda', async () => {
    const octets = { 'content-type': 'application/octet-stream' };
    for (const size of [5_000_000, MAX_BODY_ENCODED_BAND, MAX_BINARY_BODY_BYTES + 1]) {
      await refused('POST', `/ingest/${token}`, { rawBody: Buffer.alloc(size, 7), headers: octets }, 413);
    }
    await refused('POST', `/ingest/${token}`, { rawBody: `[${'"",'.repeat(1_600_000)}""]`, headers: { 'content-type': 'application/json' } }, 413);
    for (const quotes of [1_550_000, 2_000_000]) {
      await refused('POST', '/v1/outbound-events', { key, body: { payload: '"'.repeat(quotes) } }, 413);
      await refused('POST', '/v1/outbound-events/batch', { key, body: { events: [{ payload: '"'.repeat(quotes) }] } }, 413);
    }
    expect((await call('GET', '/v1/events', { key })).json.data).toEqual([]);
    expect((await call('GET', '/v1/outbound-events', { key })).json.data).toEqual([]);
  });

  it('values that cannot be sent as HTTP headers', async () => {
    for (const value of UNSENDABLE) {
      await refused('POST', `/ingest/${token}`, { rawBody: '{}', headers: { 'content-type': 'application/json', 'x-event-type': latin1OfUtf8(value) } }, 400);
      await refused('POST', `/ingest/${token}`, { rawBody: '{}', headers: { 'content-type': latin1OfUtf8(`text/plain; charset=${value}`) } }, 400);
      await refused('POST', '/v1/outbound-events', { key, body: { payload: '{}', event_type: value } }, 400);
      await refused('POST', '/v1/destinations', { key, body: { name: 'd', url: 'https://93.184.216.34/h', auth: { type: 'bearer', token: value } } }, 400);
      await refused('PATCH', `/v1/destinations/${destination}`, { key, body: { auth: { type: 'header', name: 'X-Key', value } } }, 400);
    }
    expect((await call('GET', '/v1/events', { key })).json.data).toEqual([]);
  });

  it('offsets beyond a 32-bit integer', async () => {
    for (const offset of ['2147483448', '2147483648', '99999999999999999999', '1e300']) {
      await refused('GET', `/v1/exports?offset=${offset}`, { key }, 400);
    }
  });

  it('nothing answered 5xx', () => {
    console.log(`aws limits: ${tally.tried} hostile requests, ${tally.fiveHundreds} answered 5xx`);
    expect(tally.fiveHundreds).toBe(0);
  });
});
