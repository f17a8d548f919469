import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpSender, type DeliveryRequest } from '../../lambdas/adapters/http-sender';

// Real local HTTP servers on 127.0.0.1; no emulators. The trap server must never be reached by a
// refused URL; the destination server plays a customer endpoint under allowPrivate (local development).

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

interface CountingServer {
  server: http.Server;
  port: number;
  connections: () => number;
}

async function startServer(handler: http.RequestListener): Promise<CountingServer> {
  let connections = 0;
  const server = http.createServer(handler);
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => connections };
}

async function stopServer(target: CountingServer | undefined): Promise<void> {
  if (!target) return;
  target.server.closeAllConnections();
  await new Promise<void>((resolve) => target.server.close(() => resolve()));
}

const send = createHttpSender();
let trap: CountingServer;
let destination: CountingServer;
let keepAlive: CountingServer;
let closedPort = 0;
const received: Received[] = [];
const timers = new Set<NodeJS.Timeout>();
// Called when the server sees the sender hang up on a long body, with whether the whole body had been
// written by then (a sender that read it all lets it finish).
const hungUp: { drip?: (finished: boolean) => void; big?: (finished: boolean) => void } = {};

function serverSeesHangUp(key: keyof typeof hungUp): Promise<boolean> {
  return new Promise((resolve) => {
    hungUp[key] = resolve;
  });
}

function route(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): void {
  res.on('error', () => undefined); // the sender hangs up mid-body on purpose
  switch (req.url) {
    case '/ok':
      res.writeHead(200, { 'content-type': 'text/plain' }).end('accepted: thanks');
      return;
    case '/fail':
      res.writeHead(500).end('boom');
      return;
    case '/redirect-metadata':
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      return;
    case '/redirect-trap':
      res.writeHead(307, { location: `http://127.0.0.1:${trap.port}/stolen` }).end();
      return;
    case '/slow-down':
      res.writeHead(429, { 'retry-after': '7' }).end('slow down');
      return;
    case '/hang':
      return; // accepts, reads the request, never answers
    case '/drip': {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const drip = setInterval(() => res.write(Buffer.alloc(512, 0x61)), 10);
      timers.add(drip);
      res.on('close', () => {
        clearInterval(drip);
        timers.delete(drip);
        hungUp.drip?.(res.writableFinished);
      });
      return;
    }
    case '/big':
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(10 * 1024 * 1024) });
      res.end(Buffer.alloc(10 * 1024 * 1024, 0x62));
      res.on('close', () => hungUp.big?.(res.writableFinished));
      return;
    case '/headers-then-hang':
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial body');
      return; // never ends the body
    case '/reset':
      req.socket.resetAndDestroy();
      return;
    case '/echo':
      received.push({ method: req.method ?? '', url: req.url, headers: req.headers, body });
      res.writeHead(204).end();
      return;
    default:
      res.writeHead(404).end();
  }
}

beforeAll(async () => {
  trap = await startServer((req, res) => res.writeHead(200).end('you should not be here'));
  destination = await startServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => route(req, res, Buffer.concat(chunks)));
  });
  keepAlive = await startServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  const closed = await startServer(() => undefined);
  closedPort = closed.port;
  await stopServer(closed);
});

afterAll(async () => {
  for (const timer of timers) clearInterval(timer);
  send.closeIdleConnections();
  await Promise.all([stopServer(trap), stopServer(destination), stopServer(keepAlive)]);
});

function delivery(url: string, overrides: Partial<DeliveryRequest> = {}): DeliveryRequest {
  return { url, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"id":"evt_1"}'), timeoutMs: 500, allowPrivate: false, ...overrides };
}

describe('SSRF guard against a real listening server', () => {
  const badUrls: Array<[string, (port: number) => string]> = [
    ['cloud metadata', (p) => `http://169.254.169.254:${p}/latest/meta-data/`],
    ['IPv6 metadata', (p) => `http://[fd00:ec2::254]:${p}/latest/meta-data/`],
    ['loopback', (p) => `http://127.0.0.1:${p}/`],
    ['loopback as a decimal number', (p) => `http://2130706433:${p}/`],
    ['loopback in hex', (p) => `http://0x7f000001:${p}/`],
    ['loopback in octal', (p) => `http://0177.0.0.1:${p}/`],
    ['short loopback', (p) => `http://127.1:${p}/`],
    ['IPv6 loopback', (p) => `http://[::1]:${p}/`],
    ['IPv6 unspecified', (p) => `http://[::]:${p}/`],
    ['IPv4-mapped loopback, dotted', (p) => `http://[::ffff:127.0.0.1]:${p}/`],
    ['IPv4-mapped loopback, hex', (p) => `http://[::ffff:7f00:1]:${p}/`],
    ['NAT64 loopback', (p) => `http://[64:ff9b::7f00:1]:${p}/`],
    ['private 10/8', (p) => `http://10.0.0.1:${p}/`],
    ['private 172.16/12', (p) => `http://172.16.0.1:${p}/`],
    ['private 172.16/12, top end', (p) => `http://172.31.255.254:${p}/`],
    ['private 192.168/16', (p) => `http://192.168.1.1:${p}/`],
    ['CGNAT 100.64/10', (p) => `http://100.64.0.1:${p}/`],
    ['unspecified 0.0.0.0', (p) => `http://0.0.0.0:${p}/`],
    ['unspecified as 0', (p) => `http://0:${p}/`],
    ['IPv6 link-local', (p) => `http://[fe80::1]:${p}/`],
    ['localhost', (p) => `http://localhost:${p}/`],
    ['localhost with a trailing dot', (p) => `http://localhost.:${p}/`],
    ['a .localhost name', (p) => `http://x.localhost:${p}/`],
    ['LOCALHOST in capitals', (p) => `http://LOCALHOST:${p}/`],
    ['https to loopback', (p) => `https://127.0.0.1:${p}/`],
    ['userinfo trick', (p) => `http://example.com@127.0.0.1:${p}/`],
    ['credentials', (p) => `http://user:secret@127.0.0.1:${p}/`],
    ['file scheme', () => 'file:///etc/passwd'],
    ['ftp scheme', (p) => `ftp://127.0.0.1:${p}/`],
    ['gopher scheme', (p) => `gopher://127.0.0.1:${p}/_GET%20/`],
    ['not a URL', () => 'not a url'],
  ];

  it.each(badUrls)('blocks %s without connecting', async (_label, makeUrl) => {
    const result = await send(delivery(makeUrl(trap.port)));
    expect(result).toMatchObject({ outcome: 'blocked', responseStatus: null, responseBody: '', retryAfterSeconds: null });
    expect(result.error).toEqual(expect.any(String));
    expect(trap.connections()).toBe(0);
  });

  it('leaves the trap server untouched after the whole table', () => {
    expect(badUrls.length).toBeGreaterThanOrEqual(20);
    expect(trap.connections()).toBe(0);
  });
});

describe('deliveries with private destinations allowed (local development)', () => {
  const allow = { allowPrivate: true };
  const at = (path: string) => `http://127.0.0.1:${destination.port}${path}`;

  it('treats a 2xx as success and captures the response body', async () => {
    const result = await send(delivery(at('/ok'), allow));
    expect(result).toEqual({
      outcome: 'success',
      responseStatus: 200,
      responseBody: 'accepted: thanks',
      retryAfterSeconds: null,
      error: null,
      durationMs: expect.any(Number),
    });
    expect(Number.isInteger(result.durationMs)).toBe(true);
  });

  it('treats a 500 as an http error with its status and body', async () => {
    const result = await send(delivery(at('/fail'), allow));
    expect(result).toMatchObject({ outcome: 'http_error', responseStatus: 500, responseBody: 'boom', error: null });
  });

  it('does not follow a redirect to the metadata service', async () => {
    const result = await send(delivery(at('/redirect-metadata'), allow));
    expect(result).toMatchObject({ outcome: 'http_error', responseStatus: 302 });
  });

  it('does not follow a redirect even to a reachable server', async () => {
    const result = await send(delivery(at('/redirect-trap'), allow));
    expect(result).toMatchObject({ outcome: 'http_error', responseStatus: 307 });
    expect(trap.connections()).toBe(0);
  });

  it('reads Retry-After from a 429', async () => {
    const result = await send(delivery(at('/slow-down'), allow));
    expect(result).toMatchObject({ outcome: 'http_error', responseStatus: 429, retryAfterSeconds: 7, responseBody: 'slow down' });
  });

  it('times out a destination that accepts the connection but never answers', async () => {
    const result = await send(delivery(at('/hang'), { ...allow, timeoutMs: 300 }));
    expect(result).toMatchObject({ outcome: 'timeout', responseStatus: null, error: 'no response within 300 ms' });
    // Never early; how late it fires on a busy machine is not the sender's promise.
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
  });

  // The try's timeout is longer than the test's own: the test ends only if the sender stops reading
  // once it has captured enough, rather than at its deadline.
  const BEYOND_THE_TEST_MS = 10 * 60_000;

  it('stops reading a body that drips forever once 4096 bytes are captured', { timeout: 30_000 }, async () => {
    const hangUp = serverSeesHangUp('drip');
    const result = await send(delivery(at('/drip'), { ...allow, timeoutMs: BEYOND_THE_TEST_MS }));
    expect(result.outcome).toBe('success');
    expect(Buffer.byteLength(result.responseBody)).toBe(4096);
    expect(result.responseBody).toBe('a'.repeat(4096));
    // The sender dropped the connection: the drip never ends on its own.
    await expect(hangUp).resolves.toBe(false);
  });

  it('captures only 4096 bytes of a 10 MB body, and hangs up on the rest', { timeout: 30_000 }, async () => {
    const hangUp = serverSeesHangUp('big');
    const result = await send(delivery(at('/big'), { ...allow, timeoutMs: BEYOND_THE_TEST_MS }));
    expect(result).toMatchObject({ outcome: 'success', responseStatus: 200, responseBody: 'b'.repeat(4096) });
    // Dropped, not drained: the server never got to write the whole body.
    await expect(hangUp).resolves.toBe(false);
  });

  it('keeps the status when the body stalls past the deadline, with what arrived of the body', async () => {
    const result = await send(delivery(at('/headers-then-hang'), { ...allow, timeoutMs: 300 }));
    expect(result).toMatchObject({ outcome: 'success', responseStatus: 200, responseBody: 'partial body', error: null });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
  });

  it('reports a connection reset as a network error', async () => {
    const result = await send(delivery(at('/reset'), allow));
    expect(result).toMatchObject({ outcome: 'network_error', responseStatus: null });
    expect(result.error).toContain('ECONNRESET');
  });

  it('reports a refused connection as a network error', async () => {
    const result = await send(delivery(`http://127.0.0.1:${closedPort}/`, allow));
    expect(result).toMatchObject({ outcome: 'network_error', responseStatus: null, error: `connect ECONNREFUSED 127.0.0.1:${closedPort}` });
  });

  it('reports a TLS failure (https to a plain HTTP server) as a network error', async () => {
    const result = await send(delivery(`https://127.0.0.1:${destination.port}/ok`, allow));
    expect(result.outcome).toBe('network_error');
    expect(result.error).toEqual(expect.any(String));
  });

  it('reuses one keep-alive connection for sequential deliveries to the same server', async () => {
    const url = `http://127.0.0.1:${keepAlive.port}/in`;
    const first = await send(delivery(url, allow));
    const second = await send(delivery(url, allow));
    expect([first.outcome, second.outcome]).toEqual(['success', 'success']);
    expect(keepAlive.connections()).toBe(1);
  });

  it('retries once on a fresh connection when a pooled socket turns out to be dead', async () => {
    // The server answers the first request on each connection and resets the connection on the
    // second, like a server that closed an idle keep-alive socket just as it was reused.
    const perSocket = new WeakMap<object, number>();
    const flaky = await startServer((req, res) => {
      const seen = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, seen);
      if (seen > 1) {
        req.socket.resetAndDestroy();
        return;
      }
      req.resume();
      req.on('end', () => res.writeHead(200).end('ok'));
    });
    try {
      const url = `http://127.0.0.1:${flaky.port}/in`;
      expect((await send(delivery(url, allow))).outcome).toBe('success');
      expect((await send(delivery(url, allow))).outcome).toBe('success');
      expect(flaky.connections()).toBe(2);
    } finally {
      send.closeIdleConnections();
      await stopServer(flaky);
    }
  });

  it('sends the body byte for byte with the given headers', async () => {
    const body = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const headers = {
      'content-type': 'application/octet-stream',
      'user-agent': 'Hookgate/1.0',
      'webhook-id': 'msg_1',
      'webhook-signature': 'v1,c2lnbmF0dXJl',
      authorization: 'Bearer customer-secret',
    };
    const result = await send(delivery(at('/echo'), { ...allow, headers, body }));
    expect(result).toMatchObject({ outcome: 'success', responseStatus: 204, responseBody: '' });
    const last = received.at(-1);
    expect(last?.method).toBe('POST');
    expect(last?.body.equals(body)).toBe(true);
    expect(last?.headers).toMatchObject({ ...headers, 'content-length': '256', host: `127.0.0.1:${destination.port}` });
  });
});
