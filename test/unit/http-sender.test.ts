import http from 'node:http';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeIdleConnections, createHttpSender, parseRetryAfter, type DeliveryRequest, type Resolver } from '../../lambdas/adapters/http-sender';

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
  closeIdleConnections();
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
    expect(result).toMatchObject({ outcome: 'timeout', error: 'no response within 150 ms' });
    expect(result.durationMs).toBeGreaterThanOrEqual(140);
    expect(result.durationMs).toBeLessThan(350);
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
