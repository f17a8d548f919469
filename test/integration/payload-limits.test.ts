import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BINARY_BODY_BYTES, MAX_BODY_BYTES } from '../../lambdas/domain/payload-limits';
import { bootGateway } from '../fixtures/gateway';
import type { Call } from '../fixtures/http-client';
import { accountWithSource, eventDetail, ingest } from '../fixtures/setup';

// Lambda's 6 MB on events and responses, as the local gateway now enforces it: what fits is
// accepted and readable, what does not is a 413 with nothing stored.

let env: Awaited<ReturnType<typeof bootGateway>>;
let call: Call;
let key: string;
let token: string;

beforeAll(async () => {
  env = await bootGateway();
  call = env.call;
  const setup = await accountWithSource(call);
  key = setup.key;
  token = setup.source.path_token;
});
afterAll(async () => env?.stop());

const binary = (size: number) => Buffer.alloc(size, 0xfe);
/** A JSON array of empty strings: two of every three bytes are quotes, which JSON escaping doubles. */
const quoteHeavyJson = (size: number) => `[${'"",'.repeat(Math.floor((size - 4) / 3))}""]`;
const storedCount = async (path: string) => (await call('GET', `${path}?limit=200`, { key })).json.data.length as number;

describe('ingest bodies inside Lambda’s 6 MB event', () => {
  it('a 5 MB binary body (6.7 MB once base64-encoded) is a 413 and nothing is stored', async () => {
    const before = await storedCount('/v1/events');
    const res = await ingest(call, token, binary(5_000_000), { 'content-type': 'application/octet-stream' });
    expect(res.status).toBe(413);
    expect(res.json.error).toMatch(/^request body too large/);
    expect(await storedCount('/v1/events')).toBe(before);
  });

  it('a binary body just over the binary limit, whose event still fits, is refused by the handler with the limit named', async () => {
    const res = await ingest(call, token, binary(MAX_BINARY_BODY_BYTES + 60_000), { 'content-type': 'application/octet-stream' });
    expect(res.status).toBe(413);
    expect(res.json.error).toContain(`at most ${MAX_BINARY_BODY_BYTES} bytes`);
  });

  it('a binary body at the limit is accepted and its detail answers it (base64 escapes nothing, so it fits)', async () => {
    const body = binary(MAX_BINARY_BODY_BYTES);
    const res = await ingest(call, token, body, { 'content-type': 'application/octet-stream' });
    expect(res.status).toBe(202);
    const { event } = await eventDetail(call, key, res.json.data.id);
    expect(event).toMatchObject({ body_encoding: 'base64', body_size: body.length, body_url: null });
    expect(Buffer.from(String(event.body), 'base64').equals(body)).toBe(true);
  });

  it('5 MB of JSON text without escapes is accepted and answered inline', async () => {
    const body = `{"text":"${'a'.repeat(MAX_BODY_BYTES - 12)}"}`;
    const res = await ingest(call, token, body);
    expect(res.status).toBe(202);
    const { event } = await eventDetail(call, key, res.json.data.id);
    expect(event).toMatchObject({ body_encoding: 'utf8', body_size: Buffer.byteLength(body), body_url: null });
    expect(event.body === body).toBe(true);
  });

  it('a 3.5 MB quote-heavy JSON body is accepted and readable: escaped twice it would not fit the response', async () => {
    const body = quoteHeavyJson(3_500_000);
    const res = await ingest(call, token, body);
    expect(res.status).toBe(202);
    const { event } = await eventDetail(call, key, res.json.data.id);
    expect(event).toMatchObject({ body: null, body_size: Buffer.byteLength(body) });
    const download = await fetch(String(event.body_url));
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(download.headers.get('content-disposition')).toBe('attachment');
    expect((await download.text()) === body).toBe(true);
  });

  it('a large text/html body downloads from body_url as an attachment of type application/octet-stream, never as a page', async () => {
    const html = `<script>alert(document.domain)</script>${quoteHeavyJson(3_500_000)}`;
    const res = await ingest(call, token, html, { 'content-type': 'text/html' });
    expect(res.status).toBe(202);
    const { event } = await eventDetail(call, key, res.json.data.id);
    expect(event).toMatchObject({ body: null, content_type: 'text/html' });
    const url = new URL(String(event.body_url));
    expect(url.searchParams.get('response-content-type')).toBe('application/octet-stream');
    expect(url.searchParams.get('response-content-disposition')).toBe('attachment');
    const download = await fetch(url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(download.headers.get('content-disposition')).toBe('attachment');
    expect((await download.text()) === html).toBe(true);
  });

  it('a quote-heavy JSON body whose escaped form exceeds the event is a 413, not stored', async () => {
    const before = await storedCount('/v1/events');
    const res = await ingest(call, token, quoteHeavyJson(4_800_000));
    expect(res.status).toBe(413);
    expect(await storedCount('/v1/events')).toBe(before);
  });
});

describe('publish payloads, escaped once in the request and again in the event', () => {
  it('a 2 MB payload of quotes (8 MB in the event) is a 413, not stored', async () => {
    const res = await call('POST', '/v1/outbound-events', { key, body: { payload: '"'.repeat(2_000_000) } });
    expect(res.status).toBe(413);
    expect(await storedCount('/v1/outbound-events')).toBe(0);
  });

  it('a payload whose event fits but whose escaped body passes the limit is refused by the handler, not stored', async () => {
    const res = await call('POST', '/v1/outbound-events', { key, body: { payload: '"'.repeat(1_550_000) } });
    expect(res.status).toBe(413);
    expect(res.json.error).toMatch(/^request body too large once encoded/);
    expect(await storedCount('/v1/outbound-events')).toBe(0);
  });

  it('the largest payload of quotes the event allows is accepted and answered inline', async () => {
    const payload = '"'.repeat(1_500_000);
    const res = await call('POST', '/v1/outbound-events', { key, body: { payload } });
    expect(res.status).toBe(201);
    const { event } = await eventDetail(call, key, res.json.data.id, '/v1/outbound-events');
    expect(event.body === payload).toBe(true);
  });
});
