import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Hookgate,
  HookgateError,
  operations,
  verifyWebhook,
  type VerifyWebhookOptions,
  type WebhookHeaders,
} from '../../clients/typescript/src/index';
import { hookgateSignature, standardWebhooksSignature } from '../../lambdas/domain/signing';
import { committedOpenApi, operationsOf } from '../fixtures/openapi';

const secret = 'whsec_tZYWtAcaUq+08oVDZEpZi7eAgu1INz1420uIwUbV3rQ=';
const other = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const body = '{"invoice":"in_1","total":999}';
const binary = Buffer.from([0xff, 0x00, 0xfe, 0x10]);
const now = new Date('2026-06-01T12:00:00Z');
const t = Math.floor(now.getTime() / 1000);
const id = '01970c6e-0000-7000-8000-000000000001';
/** The gateway's own signers (lambdas/domain/signing.ts), as deliveries use them. */
const sign = (payload: string | Buffer, secrets: string[], timestamp = t) => hookgateSignature(Buffer.from(payload), timestamp, secrets);
const hookgate = (payload: string | Buffer = body, secrets = [secret], timestamp = t) => ({ 'webhook-signature': sign(payload, secrets, timestamp) });
const standard = (payload: string | Buffer = body, secrets = [secret], timestamp = t) => ({
  'webhook-id': id,
  'webhook-timestamp': String(timestamp),
  'webhook-signature': standardWebhooksSignature(id, timestamp, Buffer.from(payload), secrets),
});
const titleCase = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.replace(/(^|-)\w/g, (c) => c.toUpperCase()), value]));
const v1 = sign(body, [secret]).split(',')[1] ?? '';

describe('verifyWebhook', () => {
  const cases: Array<[string, string | Uint8Array, WebhookHeaders, string, VerifyWebhookOptions, boolean]> = [
    ['hookgate: what the gateway signs', body, hookgate(), secret, {}, true],
    ['hookgate: the body as bytes', new TextEncoder().encode(body), hookgate(), secret, {}, true],
    ['hookgate: a binary body', binary, hookgate(binary), secret, {}, true],
    ['hookgate: a Fetch Headers', body, new Headers(hookgate()), secret, {}, true],
    ['hookgate: header names in another case', body, titleCase(hookgate()), secret, {}, true],
    ['hookgate: upper-case header name', body, { 'WEBHOOK-SIGNATURE': sign(body, [secret]) }, secret, {}, true],
    ['hookgate: a header given as an array (Node, repeated)', body, { 'webhook-signature': [`t=${t}`, v1] }, secret, {}, true],
    ['hookgate: parts in any order, spaces around them', body, { 'webhook-signature': `${v1} , t=${t}` }, secret, {}, true],
    ['hookgate: a wrong secret', body, hookgate(), `${secret}x`, {}, false],
    ['hookgate: an empty secret', body, hookgate(), '', {}, false],
    ['hookgate: a tampered body', body.replace('999', '1'), hookgate(), secret, {}, false],
    ['hookgate: a re-serialized body', JSON.stringify(JSON.parse(body), null, 1), hookgate(), secret, {}, false],
    ['hookgate: 300 s old', body, hookgate(body, [secret], t - 300), secret, {}, true],
    ['hookgate: a stale timestamp', body, hookgate(body, [secret], t - 301), secret, {}, false],
    ['hookgate: a timestamp in the future', body, hookgate(body, [secret], t + 301), secret, {}, false],
    ['hookgate: a stale timestamp, tolerance widened', body, hookgate(body, [secret], t - 3600), secret, { toleranceSeconds: 3600 }, true],
    ['hookgate: two signatures in a rotation, the old secret', body, hookgate(body, [other, secret]), secret, {}, true],
    ['hookgate: two signatures in a rotation, the new secret', body, hookgate(body, [other, secret]), other, {}, true],
    ['hookgate: two signatures, neither secret', body, hookgate(body, [other, secret]), 'another-secret', {}, false],
    ['hookgate: no signature header', body, {}, secret, {}, false],
    ['hookgate: an undefined header (Node)', body, { 'webhook-signature': undefined }, secret, {}, false],
    ['hookgate: an empty Fetch Headers', body, new Headers(), secret, {}, false],
    ['hookgate: Standard Webhooks headers', body, standard(), secret, {}, false],
    ...['', 'garbage', v1, `t=${t}`, `t=abc,${v1}`, `t=${t},v1=zz`, `t=${t},v1=${'0'.repeat(64)}`, `t=${t},v1=${v1.slice(3, 40)}`, `t=-${t},${v1}`, `v0=${v1.slice(3)},t=${t}`].map(
      (header): (typeof cases)[number] => [`hookgate: malformed ${JSON.stringify(header)}`, body, { 'webhook-signature': header }, secret, {}, false],
    ),
    ['standard_webhooks: what the gateway signs', body, standard(), secret, { scheme: 'standard_webhooks' }, true],
    ['standard_webhooks: a binary body', binary, standard(binary), secret, { scheme: 'standard_webhooks' }, true],
    ['standard_webhooks: a Fetch Headers', body, new Headers(standard()), secret, { scheme: 'standard_webhooks' }, true],
    ['standard_webhooks: header names in another case', body, titleCase(standard()), secret, { scheme: 'standard_webhooks' }, true],
    ['standard_webhooks: the secret without its whsec_ prefix', body, standard(), secret.slice(6), { scheme: 'standard_webhooks' }, true],
    ['standard_webhooks: a wrong secret', body, standard(), other, { scheme: 'standard_webhooks' }, false],
    ['standard_webhooks: a secret that is no base64', body, standard(), 'whsec_not base64!', { scheme: 'standard_webhooks' }, false],
    ['standard_webhooks: a tampered body', `${body} `, standard(), secret, { scheme: 'standard_webhooks' }, false],
    ['standard_webhooks: a stale timestamp', body, standard(body, [secret], t - 301), secret, { scheme: 'standard_webhooks' }, false],
    ['standard_webhooks: another webhook-id', body, { ...standard(), 'webhook-id': 'another' }, secret, { scheme: 'standard_webhooks' }, false],
    ['standard_webhooks: no webhook-id', body, { ...standard(), 'webhook-id': undefined }, secret, { scheme: 'standard_webhooks' }, false],
    ['standard_webhooks: no webhook-timestamp', body, { ...standard(), 'webhook-timestamp': undefined }, secret, { scheme: 'standard_webhooks' }, false],
    ['standard_webhooks: no webhook-signature', body, { ...standard(), 'webhook-signature': undefined }, secret, { scheme: 'standard_webhooks' }, false],
    ['standard_webhooks: a timestamp that is no number', body, { ...standard(), 'webhook-timestamp': 'soon' }, secret, { scheme: 'standard_webhooks' }, false],
    ['standard_webhooks: two signatures, the second secret', body, standard(body, [other, secret]), secret, { scheme: 'standard_webhooks' }, true],
    ['standard_webhooks: two signatures, the first secret', body, standard(body, [other, secret]), other, { scheme: 'standard_webhooks' }, true],
    ['standard_webhooks: a repeated header joined by a proxy', body, new Headers([...Object.entries(standard(body, [other])), ['webhook-signature', standard()['webhook-signature']]]), other, { scheme: 'standard_webhooks' }, true],
    ['standard_webhooks: an unknown version', body, { ...standard(), 'webhook-signature': standard()['webhook-signature'].replace('v1,', 'v2,') }, secret, { scheme: 'standard_webhooks' }, false],
    ['standard_webhooks: a hookgate header', body, hookgate(), secret, { scheme: 'standard_webhooks' }, false],
  ];

  it.each(cases)('%s', (_, payload, headers, key, options, valid) => {
    expect(verifyWebhook(payload, headers, key, { now, ...options })).toBe(valid);
  });

  it('checks against the current time without `now`', () => {
    expect(verifyWebhook(body, hookgate(body, [secret], Math.floor(Date.now() / 1000)), secret)).toBe(true);
    expect(verifyWebhook(body, hookgate(), secret)).toBe(false);
  });

  it('throws a TypeError for a programming error: one header where the headers go, an unknown scheme', () => {
    expect(() => verifyWebhook(body, sign(body, [secret]) as unknown as WebhookHeaders, secret)).toThrow(/takes the request headers/);
    expect(() => verifyWebhook(body, hookgate(), secret, { scheme: 'svix' as 'hookgate' })).toThrow(/unknown signature scheme "svix"/);
  });
});

type Recorded = { url: string; method: string; headers: Record<string, string>; body: string | undefined };

function stubFetch(answer: (request: Recorded) => Response) {
  const requests: Recorded[] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    const request: Recorded = {
      url: String(input),
      method: init?.method ?? 'GET',
      headers: (init?.headers ?? {}) as Record<string, string>,
      body: init?.body as string | undefined,
    };
    requests.push(request);
    return answer(request);
  }) as typeof fetch;
  return { requests, fetchImpl };
}

const json = (status: number, payload: unknown) =>
  new Response(JSON.stringify(payload), { status, headers: { 'content-type': 'application/json' } });

describe('the Hookgate client', () => {
  it('knows every operation of the committed document, with its method and path', () => {
    const documented = operationsOf(committedOpenApi()).map((o) => [o.operation.operationId, { method: o.method, path: o.path }]);
    expect(Object.entries(operations)).toEqual(documented);
  });

  it('sends JSON with the Bearer key to the operation’s path, and answers the data', async () => {
    const { requests, fetchImpl } = stubFetch(() => json(201, { data: { id: 'd1', name: 'orders' }, duration_ms: 3 }));
    const client = new Hookgate({ baseUrl: 'https://gw.example.com/', apiKey: 'hk_test', fetch: fetchImpl });
    const created = await client.destinations.create({ name: 'orders', url: 'https://consumer.example.com/hooks' });
    expect(created).toEqual({ id: 'd1', name: 'orders' });
    expect(requests[0]).toEqual({
      url: 'https://gw.example.com/v1/destinations',
      method: 'POST',
      headers: { accept: 'application/json', authorization: 'Bearer hk_test', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'orders', url: 'https://consumer.example.com/hooks' }),
    });
  });

  it('fills path parameters (escaped) and query parameters (skipping undefined)', async () => {
    const { requests, fetchImpl } = stubFetch(() => json(200, { data: [], next_cursor: 'abc', duration_ms: 1 }));
    const client = new Hookgate({ baseUrl: 'https://gw.example.com', apiKey: 'hk_test', fetch: fetchImpl });
    expect(await client.outboundEvents.list({ limit: 10, status: 'dead_letter', cursor: undefined })).toEqual({ data: [], next_cursor: 'abc' });
    expect(requests[0]?.url).toBe('https://gw.example.com/v1/outbound-events?limit=10&status=dead_letter');
    await client.events.get('a/b').catch(() => undefined);
    expect(requests[1]?.url).toBe('https://gw.example.com/v1/events/a%2Fb');
    await expect(client.request('getEvent')).rejects.toThrow(TypeError);
  });

  it('throws HookgateError with the status and exact message of an error answer', async () => {
    const { fetchImpl } = stubFetch(() => json(401, { error: 'Unauthorized', duration_ms: 1 }));
    const client = new Hookgate({ baseUrl: 'https://gw.example.com', fetch: fetchImpl });
    const error = await client.account.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HookgateError);
    expect(error).toMatchObject({ name: 'HookgateError', status: 401, message: 'Unauthorized', body: { error: 'Unauthorized', duration_ms: 1 } });
    const { fetchImpl: html } = stubFetch(() => new Response('<html>bad gateway</html>', { status: 502 }));
    await expect(new Hookgate({ baseUrl: 'https://gw.example.com', fetch: html }).account.get()).rejects.toMatchObject({
      status: 502,
      message: 'HTTP 502',
    });
  });

  it('resolves 204s to nothing, sends no auth without a key, and withApiKey adds it', async () => {
    const { requests, fetchImpl } = stubFetch(() => new Response(null, { status: 204 }));
    const open = new Hookgate({ baseUrl: 'https://gw.example.com', fetch: fetchImpl });
    await open.request('healthz');
    expect(requests[0]?.headers.authorization).toBeUndefined();
    await expect(open.withApiKey('hk_other').routes.delete('r1')).resolves.toBeUndefined();
    expect(requests[1]).toMatchObject({ method: 'DELETE', url: 'https://gw.example.com/v1/routes/r1', headers: { authorization: 'Bearer hk_other' } });
  });

  it('answers the Location of an export download', async () => {
    const { fetchImpl } = stubFetch(() => new Response(null, { status: 302, headers: { location: 'https://s3.example.com/file.csv' } }));
    const client = new Hookgate({ baseUrl: 'https://gw.example.com', apiKey: 'hk_test', fetch: fetchImpl });
    expect(await client.exports.downloadUrl('e1')).toBe('https://s3.example.com/file.csv');
  });

  it('walks every page of a list', async () => {
    const pages: Record<string, unknown> = {
      '': { data: [{ id: '1' }, { id: '2' }], next_cursor: 'c2', duration_ms: 1 },
      c2: { data: [{ id: '3' }], next_cursor: null, duration_ms: 1 },
    };
    const { requests, fetchImpl } = stubFetch((r) => json(200, pages[new URL(r.url).searchParams.get('cursor') ?? '']));
    const client = new Hookgate({ baseUrl: 'https://gw.example.com', apiKey: 'hk_test', fetch: fetchImpl });
    const ids: string[] = [];
    for await (const event of client.events.all({ limit: 2 })) ids.push(event.id);
    expect(ids).toEqual(['1', '2', '3']);
    expect(requests.map((r) => r.url)).toEqual([
      'https://gw.example.com/v1/events?limit=2',
      'https://gw.example.com/v1/events?limit=2&cursor=c2',
    ]);
  });
});

/** A TCP server that does `onConnection` with every connection: hold it open, or cut it. */
async function tcpServer(onConnection: (socket: Socket) => void): Promise<{ server: Server; url: string }> {
  const server = createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return { server, url: `http://127.0.0.1:${address.port}` };
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('the Hookgate client when no answer comes', () => {
  let closedUrl: string;
  let silent: Awaited<ReturnType<typeof tcpServer>>;
  let cutting: Awaited<ReturnType<typeof tcpServer>>;
  const held = new Set<Socket>();

  beforeAll(async () => {
    const closed = await tcpServer(() => undefined);
    closedUrl = closed.url;
    await close(closed.server);
    silent = await tcpServer((socket) => held.add(socket));
    // Reads the request, then hangs up halfway through an answer.
    cutting = await tcpServer((socket) =>
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"data":', () => socket.destroy())),
    );
  });
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await Promise.all([close(silent.server), close(cutting.server)]);
  });

  const failure = (client: Hookgate) => client.account.get().then(
    () => {
      throw new Error('answered');
    },
    (error: unknown) => error,
  );

  const cases: Array<[string, () => Hookgate, RegExp]> = [
    ['a refused connection', () => new Hookgate({ baseUrl: closedUrl }), /^cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/account: connect ECONNREFUSED 127\.0\.0\.1:\d+$/],
    ['a host that does not resolve', () => new Hookgate({ baseUrl: 'http://gateway.hookgate.invalid' }), /^cannot reach http:\/\/gateway\.hookgate\.invalid\/v1\/account: .*ENOTFOUND/],
    ['no answer in time', () => new Hookgate({ baseUrl: silent.url, timeoutMs: 200 }), /^cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/account: no answer within 200 ms$/],
    ['an answer cut short', () => new Hookgate({ baseUrl: cutting.url }), /^cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/account: /],
    ['a timeout of the caller’s fetch', () => new Hookgate({ baseUrl: silent.url, fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(100) }) }), /: timed out$/],
  ];

  it.each(cases)('%s throws HookgateError with status 0, naming the URL and the cause', async (_, client, message) => {
    const error = await failure(client());
    expect(error).toBeInstanceOf(HookgateError);
    expect(error).toMatchObject({ name: 'HookgateError', status: 0, body: undefined });
    expect((error as HookgateError).message).toMatch(message);
    expect((error as HookgateError).cause).toBeInstanceOf(Error);
  });

  it('lets an abort the caller asked for through as it is', async () => {
    const stop = new AbortController();
    const client = new Hookgate({ baseUrl: silent.url, fetch: (input, init) => fetch(input, { ...init, signal: stop.signal }) });
    const pending = failure(client);
    stop.abort();
    expect(await pending).toMatchObject({ name: 'AbortError' });
  });

  it('keeps its timeout in a client made withApiKey', async () => {
    const error = await failure(new Hookgate({ baseUrl: silent.url, timeoutMs: 150 }).withApiKey('hk_test'));
    expect((error as HookgateError).message).toMatch(/no answer within 150 ms$/);
  });
});
