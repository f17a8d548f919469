import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hookgate, HookgateError, operations, verifyWebhook } from '../../clients/typescript/src/index';
import { hookgateSignature } from '../../lambdas/domain/signing';
import { committedOpenApi, operationsOf } from '../fixtures/openapi';

const secret = 'whsec_tZYWtAcaUq+08oVDZEpZi7eAgu1INz1420uIwUbV3rQ=';
const body = '{"invoice":"in_1","total":999}';
const now = new Date('2026-06-01T12:00:00Z');
const t = Math.floor(now.getTime() / 1000);
/** The gateway's own signer (lambdas/domain/signing.ts), as deliveries use it. */
const sign = (payload: string | Buffer, secrets: string[], timestamp = t) => hookgateSignature(Buffer.from(payload), timestamp, secrets);

describe('verifyWebhook', () => {
  it('accepts what the gateway signs, for string and byte bodies', () => {
    const header = sign(body, [secret]);
    expect(verifyWebhook(body, header, secret, { now })).toBe(true);
    expect(verifyWebhook(new TextEncoder().encode(body), header, secret, { now })).toBe(true);
    const binary = Buffer.from([0xff, 0x00, 0xfe, 0x10]);
    expect(verifyWebhook(binary, sign(binary, [secret]), secret, { now })).toBe(true);
  });

  it('accepts either secret while a rotated-out one is still valid (two v1 parts)', () => {
    const header = sign(body, ['new-secret-123', secret]);
    expect(header.split(',').filter((p) => p.startsWith('v1='))).toHaveLength(2);
    expect(verifyWebhook(body, header, secret, { now })).toBe(true);
    expect(verifyWebhook(body, header, 'new-secret-123', { now })).toBe(true);
    expect(verifyWebhook(body, header, 'another-secret', { now })).toBe(false);
  });

  it('refuses a tampered body, a wrong secret and a re-serialized body', () => {
    const header = sign(body, [secret]);
    expect(verifyWebhook(body.replace('999', '1'), header, secret, { now })).toBe(false);
    expect(verifyWebhook(body, header, `${secret}x`, { now })).toBe(false);
    expect(verifyWebhook(JSON.stringify(JSON.parse(body), null, 1), header, secret, { now })).toBe(false);
  });

  it('refuses timestamps more than 5 minutes away, either way; the tolerance can be changed', () => {
    expect(verifyWebhook(body, sign(body, [secret], t - 300), secret, { now })).toBe(true);
    expect(verifyWebhook(body, sign(body, [secret], t - 301), secret, { now })).toBe(false);
    expect(verifyWebhook(body, sign(body, [secret], t + 301), secret, { now })).toBe(false);
    expect(verifyWebhook(body, sign(body, [secret], t - 3600), secret, { now, toleranceSeconds: 3600 })).toBe(true);
    // Without `now`, the current time counts.
    expect(verifyWebhook(body, sign(body, [secret], Math.floor(Date.now() / 1000)), secret)).toBe(true);
  });

  it('answers false, never throws, on malformed headers', () => {
    const good = sign(body, [secret]);
    const v1 = good.split(',')[1] ?? '';
    for (const header of [
      '',
      undefined,
      null,
      'garbage',
      v1,
      `t=${t}`,
      `t=abc,${v1}`,
      `t=${t},v1=zz`,
      `t=${t},v1=${'0'.repeat(64)}`,
      `t=${t},v1=${v1.slice(3, 40)}`,
      `t=-${t},${v1}`,
      `v0=${v1.slice(3)},t=${t}`,
    ]) {
      expect(verifyWebhook(body, header, secret, { now }), String(header)).toBe(false);
    }
    expect(verifyWebhook(body, good, '', { now })).toBe(false);
    // Parts in any order, spaces tolerated, header given as Node's array form.
    expect(verifyWebhook(body, `${v1} , t=${t}`, secret, { now })).toBe(true);
    expect(verifyWebhook(body, [good], secret, { now })).toBe(true);
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
