import http from 'node:http';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpSender, parseRetryAfter, type DeliveryRequest, type Resolver } from '../../lambdas/adapters/http-sender';

// A local server that counts TCP connections. Fake DNS answers name it (127.0.0.1), so any connection
// the sender makes despite the policy would show up here.
let server: http.Server;
let port = 0;
let connections = 0;
const hostHeaders: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hostHeaders.push(req.headers.host ?? '');
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function fakeDns(answers: string[]): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (hostname: string) => {
    calls.push(hostname);
    return answers.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
  };
  return Object.assign(resolver, { calls });
}

function delivery(overrides: Partial<DeliveryRequest> = {}): DeliveryRequest {
  return {
    url: `http://hooks.example.test:${port}/in`,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from('{"hello":"world"}'),
    timeoutMs: 500,
    allowPrivate: false,
    ...overrides,
  };
}

describe('http sender: resolved addresses', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private 10/8'],
    ['169.254.169.254', 'cloud metadata'],
    ['::1', 'IPv6 loopback'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
    ['fd00::1', 'IPv6 unique local'],
  ])('blocks a name resolving to %s (%s) without connecting', async (address) => {
    const before = connections;
    const dns = fakeDns([address]);
    const result = await createHttpSender({ resolver: dns })(delivery());
    expect(result).toMatchObject({
      outcome: 'blocked',
      responseStatus: null,
      responseBody: '',
      retryAfterSeconds: null,
      error: `destination address ${address} is private or reserved`,
    });
    expect(dns.calls).toEqual(['hooks.example.test']);
    expect(connections).toBe(before);
  });

  it('blocks when any one of the resolved addresses is private', async () => {
    const before = connections;
    const result = await createHttpSender({ resolver: fakeDns(['93.184.216.34', '10.0.0.1']) })(delivery());
    expect(result.outcome).toBe('blocked');
    expect(result.error).toBe('destination address 10.0.0.1 is private or reserved');
    expect(connections).toBe(before);
  });

  it('blocks an answer that is not an IP address at all', async () => {
    const result = await createHttpSender({ resolver: fakeDns(['not-an-ip']) })(delivery({ allowPrivate: true }));
    expect(result.outcome).toBe('blocked');
  });

  it('connects to the checked address with one lookup and keeps the original Host header', async () => {
    const before = connections;
    // A second lookup would get the wrong answer (DNS rebinding); only the first is ever asked.
    let calls = 0;
    const rebinding: Resolver = async () => (++calls === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '192.0.2.1', family: 4 }]);
    const result = await createHttpSender({ resolver: rebinding })(delivery({ allowPrivate: true }));
    expect(result).toMatchObject({ outcome: 'success', responseStatus: 200, responseBody: 'ok', error: null });
    expect(calls).toBe(1);
    expect(connections).toBe(before + 1);
    expect(hostHeaders.at(-1)).toBe(`hooks.example.test:${port}`);
  });

  it('reports a failed lookup as a network error', async () => {
    const notFound: Resolver = async (hostname) => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    };
    const result = await createHttpSender({ resolver: notFound })(delivery());
    expect(result).toMatchObject({ outcome: 'network_error', responseStatus: null, error: 'getaddrinfo ENOTFOUND hooks.example.test' });
  });

  it('reports an empty answer as a network error', async () => {
    const result = await createHttpSender({ resolver: fakeDns([]) })(delivery());
    expect(result).toMatchObject({ outcome: 'network_error', error: 'no addresses found for hooks.example.test' });
  });

  it('never throws, even when the resolver throws synchronously', async () => {
    const broken = (() => {
      throw new Error('resolver exploded');
    }) as unknown as Resolver;
    const result = await createHttpSender({ resolver: broken })(delivery());
    expect(result).toMatchObject({ outcome: 'network_error', error: 'resolver exploded' });
  });

  it('counts a lookup that never answers against the deadline', async () => {
    const hanging: Resolver = () => new Promise(() => undefined);
    const result = await createHttpSender({ resolver: hanging })(delivery({ timeoutMs: 150 }));
    expect(result).toMatchObject({ outcome: 'timeout', error: 'no DNS answer within 150 ms' });
    // Never early; how late it fires on a busy machine is not the sender's promise.
    expect(result.durationMs).toBeGreaterThanOrEqual(140);
  });

  it('sends the original host name as TLS SNI while connecting to the checked address', async () => {
    // No certificate needed: the SNI callback sees the ClientHello and then refuses the handshake.
    const seen: string[] = [];
    const tlsServer = tls.createServer({
      SNICallback: (servername, callback) => {
        seen.push(servername);
        callback(new Error('no certificate here'), undefined);
      },
    });
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    const tlsPort = (tlsServer.address() as AddressInfo).port;
    try {
      const result = await createHttpSender({ resolver: fakeDns(['127.0.0.1']) })(
        delivery({ url: `https://hooks.example.test:${tlsPort}/in`, allowPrivate: true }),
      );
      expect(result.outcome).toBe('network_error');
      expect(result.error).toEqual(expect.any(String));
      expect(seen).toEqual(['hooks.example.test']);
    } finally {
      await new Promise<void>((resolve) => tlsServer.close(() => resolve()));
    }
  });

  it('turns an invalid header into a result instead of a throw', async () => {
    const result = await createHttpSender({ resolver: fakeDns(['127.0.0.1']) })(
      delivery({ allowPrivate: true, headers: { 'x-bad': 'line\r\nbreak' } }),
    );
    expect(result.outcome).toBe('network_error');
    expect(result.error).toContain('ERR_INVALID_CHAR');
    expect(result.error).not.toContain('line');
  });
});

describe('http sender: an answer that has arrived beats a late deadline', () => {
  it('a loop starved past the deadline still reads the answer waiting for it, rather than call it a timeout', async () => {
    // The endpoint answers at once, then this process is busy for longer than the try's timeout: when
    // the loop runs again the answer is waiting on the socket and the deadline's timer is due.
    const starving = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.end('ok');
        const until = performance.now() + 400;
        while (performance.now() < until);
      });
    });
    await new Promise<void>((resolve) => starving.listen(0, '127.0.0.1', resolve));
    const starvingPort = (starving.address() as AddressInfo).port;
    try {
      const send = createHttpSender({ resolver: fakeDns(['127.0.0.1']) });
      const result = await send(delivery({ url: `http://hooks.example.test:${starvingPort}/in`, allowPrivate: true, timeoutMs: 100 }));
      send.closeIdleConnections();
      expect(result).toMatchObject({ outcome: 'success', responseStatus: 200, responseBody: 'ok' });
    } finally {
      starving.closeAllConnections();
      await new Promise<void>((resolve) => starving.close(() => resolve()));
    }
  });
});

describe('http sender: the timeout counts on the wire', () => {
  // One sender has 50 sockets per host: the 51st request at once waits for one of them.
  const POOL = 50;
  let slow: http.Server;
  let slowPort = 0;
  let answerMs = 0;
  const seen: string[] = [];
  let open = 0;
  let most = 0;

  beforeAll(async () => {
    slow = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push(Buffer.concat(chunks).toString());
        most = Math.max(most, ++open);
        const answer = setTimeout(() => res.end('ok'), answerMs);
        // Answered, or given up on by the sender.
        res.on('close', () => {
          open--;
          clearTimeout(answer);
        });
      });
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    slowPort = (slow.address() as AddressInfo).port;
  });

  afterAll(async () => {
    slow.closeAllConnections();
    await new Promise<void>((resolve) => slow.close(() => resolve()));
  });

  const burst = (send: ReturnType<typeof createHttpSender>, count: number, timeoutMs: number) =>
    Promise.all(
      Array.from({ length: count }, (_, n) =>
        send(delivery({ url: `http://hooks.example.test:${slowPort}/in`, allowPrivate: true, timeoutMs, body: Buffer.from(String(n)) })),
      ),
    );

  it('a request that waited for a pooled socket still has its whole timeout once sent', async () => {
    seen.length = 0;
    answerMs = 600;
    const send = createHttpSender({ resolver: fakeDns(['127.0.0.1']) });
    // Two rounds through the pool: the second waits one answer (at least 600 ms) for its socket, then
    // takes another, longer together than the 1,000 ms timeout: all succeed only if it counts from the wire.
    const results = await burst(send, POOL + 10, 1_000);
    send.closeIdleConnections();
    expect(results.map((r) => r.outcome)).toEqual(results.map(() => 'success'));
    expect(seen.toSorted()).toEqual(Array.from({ length: POOL + 10 }, (_, n) => String(n)).toSorted());
  });

  it('a request that never gets a socket ends unsent, and says so', async () => {
    seen.length = 0;
    answerMs = 2_000;
    const send = createHttpSender({ resolver: fakeDns(['127.0.0.1']) });
    const results = await burst(send, POOL + 1, 300);
    send.closeIdleConnections();
    const outcomes = results.map((r) => `${r.outcome}: ${r.error}`);
    expect(outcomes.filter((o) => o === 'timeout: no response within 300 ms')).toHaveLength(POOL);
    expect(outcomes.filter((o) => o === 'network_error: not sent: no free connection within 300 ms')).toHaveLength(1);
    expect(seen).toHaveLength(POOL);
  });

  it('each sender has connections of its own', async () => {
    seen.length = 0;
    answerMs = 300;
    most = 0;
    const [one, two] = [createHttpSender({ resolver: fakeDns(['127.0.0.1']) }), createHttpSender({ resolver: fakeDns(['127.0.0.1']) })];
    const results = (await Promise.all([burst(one, POOL, 5_000), burst(two, POOL, 5_000)])).flat();
    one.closeIdleConnections();
    two.closeIdleConnections();
    expect(results.map((r) => r.outcome)).toEqual(results.map(() => 'success'));
    // Both pools at once: no request waited for the other sender's sockets.
    expect(most).toBe(2 * POOL);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2025, 0, 15, 12, 0, 0);

  it('reads delta-seconds', () => {
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 120 ', now)).toBe(120);
  });

  it('reads an HTTP-date relative to now, in all three forms', () => {
    expect(parseRetryAfter('Wed, 15 Jan 2025 12:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Wednesday, 15-Jan-25 12:01:00 GMT', now)).toBe(60);
    expect(parseRetryAfter('Wed Jan 15 12:02:00 2025', now)).toBe(120);
    expect(parseRetryAfter('Wed Jan  5 12:00:00 2025', now)).toBe(0);
  });

  it('gives 0 for a date in the past', () => {
    expect(parseRetryAfter('Tue, 14 Jan 2025 12:00:00 GMT', now)).toBe(0);
  });

  it.each(['soon', '', '-5', '1.5', '7s', 'Wed, 32 Jan 2025 12:00:00 GMT', 'Wed, 15 Foo 2025 12:00:00 GMT', '2025-01-15T12:00:30Z', 'tomorrow 12'])(
    'gives null for garbage %j',
    (value) => {
      expect(parseRetryAfter(value, now)).toBeNull();
    },
  );

  it('gives null when there is no header', () => {
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
