import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGatewayWithSink } from '../fixtures/gateway';
import type { Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, eventDetail, ingest } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';

// What AWS would turn into never-ending failures or a spreadsheet formula, refused or neutralised at
// the API; and the small contract gaps of issue 14, through real HTTP against the local gateway.

let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let key: string;
let token: string;

beforeAll(async () => {
  env = await bootGatewayWithSink({ SCHEDULER_EXPORT_POLL_INTERVAL: '3600' });
  call = env.call;
  const setup = await accountWithSource(call);
  key = setup.key;
  token = setup.source.path_token;
});
afterAll(async () => env?.stop());

const SENDABLE = 'must be printable ASCII without leading or trailing spaces (it is sent as an HTTP header)';
/** How a header's UTF-8 bytes reach a Node server: one character per byte (latin1). */
const asHeaderBytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

describe('values that cannot go out as HTTP headers are refused with the field named', () => {
  it.each([
    ['a UTF-8 event type', '注文.作成'],
    ['Latin-1 text', 'café.créé'],
  ])('ingest: %s in X-Event-Type → 400, nothing stored', async (_label, eventType) => {
    const before = (await call('GET', '/v1/events', { key })).json.data.length;
    const res = await ingest(call, token, '{}', { 'x-event-type': asHeaderBytes(eventType) });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(`X-Event-Type ${SENDABLE}`);
    expect((await call('GET', '/v1/events', { key })).json.data).toHaveLength(before);
  });

  it.each(['注文.作成', 'café', ' padded', 'trailing '])('publish: event_type %j → 400, in a batch too', async (eventType) => {
    const single = await call('POST', '/v1/outbound-events', { key, body: { payload: '{}', event_type: eventType } });
    expect(single.status).toBe(400);
    expect(single.json.error).toBe(`event_type ${SENDABLE}`);
    const batch = await call('POST', '/v1/outbound-events/batch', { key, body: { events: [{ payload: '{}', event_type: eventType }] } });
    expect(batch.json.data).toEqual([{ status: 400, error: `event_type ${SENDABLE}` }]);
  });

  it.each([
    ['auth.token', { type: 'bearer', token: 'tökén' }],
    ['auth.token', { type: 'bearer', token: '秘密' }],
    ['auth.value', { type: 'header', name: 'X-Api-Key', value: 'clé' }],
    ['auth.value', { type: 'header', name: 'X-Api-Key', value: 'a\r\nX-Injected: 1' }],
  ])('destinations: an unsendable %s → 400 on create and on update', async (field, auth) => {
    const created = await call('POST', '/v1/destinations', { key, body: { name: 'd', url: 'https://93.184.216.34/hook', auth } });
    expect(created.status).toBe(400);
    expect(created.json.error).toBe(`${field} ${SENDABLE}`);
    const dest = await addDestination(call, key, { url: 'https://93.184.216.34/hook' });
    const patched = await call('PATCH', `/v1/destinations/${dest.id}`, { key, body: { auth } });
    expect(patched.status).toBe(400);
    expect(patched.json.error).toBe(`${field} ${SENDABLE}`);
  });

  it('what is accepted goes out byte for byte', async () => {
    const dest = await addDestination(call, key, { url: `${env.sink.url}/ascii`, auth: { type: 'bearer', token: 'tok.en-_~+/=' } });
    await call('POST', '/v1/routes', { key, body: { destination_id: dest.id, event_type_pattern: 'ascii.*' } });
    const res = await call('POST', '/v1/outbound-events', { key, body: { payload: '{}', event_type: 'ascii.with space' } });
    expect(res.status).toBe(201);
    const got = await eventually(async () => env.sink.received.find((r) => r.path === '/ascii'), Boolean);
    expect(got?.headers['x-event-type']).toBe('ascii.with space');
    expect(got?.headers.authorization).toBe('Bearer tok.en-_~+/=');
  });
});

describe('CSV exports are safe to open in a spreadsheet', () => {
  it('cells that start a formula are prefixed with a quote (OWASP); the JSON export keeps them as they are', async () => {
    const hostile = ['=HYPERLINK("http://evil.example","open")', '+1+cmd|/c calc', '-2+3', '@SUM(A1)'];
    for (const [i, type] of hostile.entries()) {
      expect((await ingest(call, token, '{}', { 'x-event-type': type, 'idempotency-key': `${type}-${i}` })).status).toBe(202);
    }
    const exported = async (format: string) => {
      const created = await call('POST', '/v1/exports', { key, body: { format } });
      const job = await eventually(
        async () => (await call('GET', `/v1/exports/${created.json.data.id}`, { key })).json.data,
        (j) => j.status === 'ready',
      );
      return (await fetch((await call('GET', `/v1/exports/${job.id}/download`, { key })).headers.get('location') ?? '')).text();
    };
    const csv = await exported('csv');
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.example"",""open"")"`);
    expect(csv).toContain(`"'+1+cmd|/c calc"`);
    expect(csv).toContain(`"'-2+3"`);
    expect(csv).toContain(`"'@SUM(A1)"`);
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.example"",""open"")-0"`);
    for (const line of csv.split('\r\n')) {
      for (const cell of line.split(',')) expect(cell, line).not.toMatch(/^[=+\-@\t\r]/);
    }
    const json = JSON.parse(await exported('json')) as Array<{ event_type: string | null; external_event_id: string | null }>;
    expect(json.map((row) => row.event_type)).toEqual(expect.arrayContaining(hostile));
    expect(json.map((row) => row.external_event_id)).toContain('@SUM(A1)-3');
  });
});

describe('small contract gaps', () => {
  it.each(['bearer', 'BEARER', 'bEaReR'])('Authorization: %s hk_… is accepted', async (scheme) => {
    const res = await call('GET', '/v1/account', { headers: { authorization: `${scheme} ${key}` } });
    expect(res.status).toBe(200);
  });

  it('the key itself stays case-sensitive', async () => {
    const res = await call('GET', '/v1/account', { headers: { authorization: `Bearer ${key.slice(0, 3)}${key.slice(3).toUpperCase()}` } });
    expect(res.status).toBe(401);
  });

  it.each(['2147483648', '9007199254740993', '1e12'])('GET /v1/exports?offset=%s → 400, not a DynamoDB error', async (offset) => {
    const res = await call('GET', `/v1/exports?offset=${offset}`, { key });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatch(/^offset must be at most \d+$/);
  });

  it('the largest offset allowed is an empty page', async () => {
    const res = await call('GET', '/v1/exports?offset=2147483447&limit=200', { key });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual([]);
  });

  it('a replay answers status "queued", even when no route matches it', async () => {
    const published = await call('POST', '/v1/outbound-events', { key, body: { payload: '{}', event_type: 'nobody.listens' } });
    await eventually(async () => (await eventDetail(call, key, published.json.data.id, '/v1/outbound-events')).event.status, (s) => s === 'accepted');
    const replay = await call('POST', `/v1/outbound-events/${published.json.data.id}/replay`, { key });
    expect(replay.status).toBe(202);
    expect(replay.json.data.status).toBe('queued');
  });
});
