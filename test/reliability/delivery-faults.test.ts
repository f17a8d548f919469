import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway, DELIVERY_TEST_ENV } from '../fixtures/gateway';
import type { Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';
import { startTrap } from './helpers';
import { recordFigures } from './summary';

// One event, fanned out to a healthy destination and to one destination per way a destination can
// misbehave. Schedule scaled to seconds (0, 1, 1, 1, 1): five tries, a second apart.

const SOURCE = 'delivery-faults';
// The hanging destination's five tries, each ended by its timeout, are the longest wait here: a short one.
const HANG_TIMEOUT_MS = 1000;

type Behaviour = (req: IncomingMessage, res: ServerResponse, tryNumber: number) => void;

interface Destination {
  name: string;
  url: string;
  /** When each request arrived (ms since epoch). */
  arrivals: number[];
  close(): Promise<void>;
}

const servers: Destination[] = [];

async function hostile(name: string, behaviour: Behaviour): Promise<Destination> {
  const arrivals: number[] = [];
  const server: Server = createServer((req, res) => {
    res.on('error', () => undefined); // the sender hangs up on purpose (timeout, body cap)
    req.resume();
    req.on('end', () => {
      arrivals.push(Date.now());
      behaviour(req, res, arrivals.length);
    });
  });
  server.on('clientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const destination: Destination = {
    name,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/${name}`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(destination);
  return destination;
}

let env: Awaited<ReturnType<typeof bootGateway>>;
let call: Call;
let trap: Awaited<ReturnType<typeof startTrap>>;

beforeAll(async () => {
  env = await bootGateway(DELIVERY_TEST_ENV);
  call = env.call;
  trap = await startTrap();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await trap?.close();
  await env?.stop();
});

type Attempt = {
  destination_id: string;
  attempt_number: number;
  outcome: string;
  response_status: number | null;
  response_body: string;
  error: string | null;
  attempted_at: string;
};

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

describe('hostile destinations in one batch', () => {
  it('records each fault with its outcome, retries on schedule, and holds up no other delivery', async () => {
    const dripTimers = new Set<NodeJS.Timeout>();
    const d = {
      healthy: await hostile('healthy', (_req, res) => res.writeHead(200).end('ok')),
      e500: await hostile('e500', (_req, res) => res.writeHead(500).end('boom')),
      e410: await hostile('e410', (_req, res) => res.writeHead(410).end('gone')),
      // 429 with Retry-After 3: waited, since it is within what the schedule has left (4 s).
      e429: await hostile('e429', (_req, res, n) =>
        n === 1 ? res.writeHead(429, { 'retry-after': '3' }).end('slow down') : res.writeHead(200).end('thanks'),
      ),
      // 429 with Retry-After 120: capped at the rest of the schedule (1+1+1+1 = 4 s), not 2 minutes.
      e429cap: await hostile('e429cap', (_req, res, n) =>
        n === 1 ? res.writeHead(429, { 'retry-after': '120' }).end('much later') : res.writeHead(200).end('thanks'),
      ),
      redirectMetadata: await hostile('redirect-metadata', (_req, res) =>
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' }).end(),
      ),
      redirectInternal: await hostile('redirect-internal', (_req, res) =>
        res.writeHead(307, { location: `http://127.0.0.1:${trap.port}/admin` }).end(),
      ),
      reset: await hostile('reset', (req) => req.socket.resetAndDestroy()),
      hang: await hostile('hang', () => undefined),
      drip: await hostile('drip', (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const timer = setInterval(() => res.write(Buffer.alloc(512, 0x64)), 10);
        dripTimers.add(timer);
        res.on('close', () => clearInterval(timer));
      }),
    };
    const refused = await hostile('refused', () => undefined);
    await refused.close(); // a port nobody listens on
    // Holds its first try open (within its 30 s timeout) until every other destination's first try has
    // arrived, then answers: a delivery that waited behind it would arrive only once it had ended.
    let releaseHeld: () => void = () => undefined;
    const heldReleased = new Promise<void>((resolve) => (releaseHeld = resolve));
    let heldFirstTryOpen: boolean | undefined;
    const held = await hostile('held', (_req, res, n) => {
      if (n > 1) return void res.writeHead(200).end('ok');
      heldFirstTryOpen = true;
      res.on('close', () => (heldFirstTryOpen = false));
      void heldReleased.then(() => res.writeHead(200).end('ok'));
    });

    const { key, source } = await accountWithSource(call);
    const ids = new Map<string, string>();
    const timeoutOf = (name: string) => ({ hang: HANG_TIMEOUT_MS, held: 30_000 })[name] ?? 5000;
    for (const dest of [...Object.values(d), refused, held]) {
      const created = await addDestination(call, key, { url: dest.url, timeout_ms: timeoutOf(dest.name) });
      await addRoute(call, key, { destination_id: created.id });
      ids.set(created.id, dest.name);
    }

    const sentAt = Date.now();
    const res = await ingest(call, source.path_token, '{"worst":"day"}');
    expect(res.status).toBe(202);
    const eventId = res.json.data.id as string;

    // Nobody waited for the held destination: every other first try arrived while its try was open.
    // Longer than the held try's timeout would prove nothing: it has ended by then.
    await eventually(async () => [...Object.values(d), held].filter((dest) => dest.arrivals.length === 0).map((dest) => dest.name), (waiting) => waiting.length === 0, 30_000);
    expect(heldFirstTryOpen, 'the held try was still open when the last other first try arrived').toBe(true);
    releaseHeld();

    const detail = await eventually(
      () => eventDetail(call, key, eventId),
      (x) => ['delivered', 'dead_letter'].includes(x.event.status),
      90_000,
    );
    for (const timer of dripTimers) clearInterval(timer);
    const attempts = detail.attempts as unknown as Attempt[];
    const of = (name: string) => attempts.filter((a) => ids.get(a.destination_id) === name).sort((a, b) => a.attempt_number - b.attempt_number);
    const summary = (name: string) => of(name).map((a) => [a.outcome, a.response_status]);
    // Per destination: an array of {destination_id, status, ...} (or, before the API revision, a map by id).
    const raw = detail.event.deliveries as Array<{ destination_id: string; status: string }> | Record<string, { status: string }>;
    const deliveries = Array.isArray(raw) ? raw : Object.entries(raw).map(([destination_id, d]) => ({ destination_id, status: d.status }));
    const finalStatus = (name: string) => deliveries.find((x) => ids.get(x.destination_id) === name)?.status;

    // The healthy destination and the dripping one (a 200 arrived) succeed on their first try.
    expect(summary('healthy')).toEqual([['success', 200]]);
    expect(summary('drip')).toEqual([['success', 200]]);
    // Read up to the sender's 4 KB cap, not for ever; a success keeps the first 256 bytes of it.
    expect(Buffer.byteLength(of('drip')[0]!.response_body)).toBe(256);

    // Each failure is recorded as what it was, tried five times, then dead_letter.
    const five = (outcome: string, status: number | null) => Array.from({ length: 5 }, () => [outcome, status]);
    expect(summary('e500')).toEqual(five('http_error', 500));
    expect(of('e500')[0]!.response_body).toBe('boom');
    // 410 Gone: one try, then the destination is switched off (as Stripe and Svix do), not retried.
    expect(summary('e410')).toEqual([['http_error', 410]]);
    expect(deliveries.find((x) => ids.get(x.destination_id) === 'e410')).toMatchObject({ status: 'dead_letter', end_reason: 'endpoint_gone' });
    expect(summary('redirect-metadata')).toEqual(five('http_error', 302));
    expect(summary('redirect-internal')).toEqual(five('http_error', 307));
    expect(summary('reset')).toEqual(five('network_error', null));
    expect(of('reset')[0]!.error).toContain('ECONNRESET');
    expect(summary('refused')).toEqual(five('network_error', null));
    expect(of('refused')[0]!.error).toContain('ECONNREFUSED');
    expect(summary('hang')).toEqual(five('timeout', null));
    expect(of('hang')[0]!.error).toBe(`no response within ${HANG_TIMEOUT_MS} ms`);
    for (const name of ['e500', 'e410', 'redirect-metadata', 'redirect-internal', 'reset', 'refused', 'hang']) {
      expect(finalStatus(name), name).toBe('dead_letter');
    }

    // 429: Retry-After is waited (3 s), or capped by the schedule's remainder (4 s), then success.
    expect(summary('e429')).toEqual([['http_error', 429], ['success', 200]]);
    expect(summary('e429cap')).toEqual([['http_error', 429], ['success', 200]]);
    const [wait429] = gaps(d.e429.arrivals);
    const [waitCapped] = gaps(d.e429cap.arrivals);
    expect(wait429).toBeGreaterThanOrEqual(2900);
    expect(waitCapped).toBeGreaterThanOrEqual(3900);
    expect(waitCapped).toBeLessThan(30_000); // nowhere near the 120 s asked for
    expect(finalStatus('e429')).toBe('delivered');

    // Retried on schedule: never sooner than the step (1 s) after the previous try ended.
    expect(d.e410.arrivals).toHaveLength(1);
    for (const dest of [d.e500, d.redirectMetadata, d.redirectInternal, d.reset]) {
      expect(dest.arrivals, dest.name).toHaveLength(5);
      for (const gap of gaps(dest.arrivals)) expect(gap, dest.name).toBeGreaterThanOrEqual(900);
    }
    for (const gap of gaps(d.hang.arrivals)) expect(gap).toBeGreaterThanOrEqual(HANG_TIMEOUT_MS + 900);

    // No redirect was followed: nothing connected to the internal address.
    expect(trap.connections()).toBe(0);

    expect(summary('held')).toEqual([['success', 200]]);
    const healthyAfter = d.healthy.arrivals[0]! - sentAt;
    console.log(`healthy destination reached ${healthyAfter} ms after the ingest; the hanging one held its try for ${HANG_TIMEOUT_MS} ms`);

    const failedTries = attempts.filter((a) => a.outcome !== 'success').length;
    recordFigures(SOURCE, { faultsInjected: failedTries, accepted: 1, delivered: d.healthy.arrivals.length > 0 ? 1 : 0, lost: d.healthy.arrivals.length > 0 ? 0 : 1 });
    expect(detail.event.status).toBe('dead_letter'); // some deliveries exhausted their tries
  }, 180_000); // more than its waits (30 s for the first tries, 90 s for the rest) and the setup before them
});
