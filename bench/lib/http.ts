import { createHash, randomBytes } from 'node:crypto';
import http, { type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Loopback only: every request the benchmark makes goes to 127.0.0.1. */
export const LOOPBACK = '127.0.0.1';

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- API answers are read ad hoc
  json: any;
}

/** One HTTP request over a kept-alive socket; refuses anything but loopback. */
export function request(url: string, init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Reply> {
  const target = new URL(url);
  if (target.hostname !== LOOPBACK) return Promise.reject(new Error(`refusing a non-loopback target: ${url}`));
  const body = init.body === undefined ? undefined : Buffer.isBuffer(init.body) ? init.body : Buffer.from(init.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: LOOPBACK,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: init.method ?? 'GET',
        agent,
        headers: { ...init.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A JSON API client for the gateway's /v1 endpoints. */
export function apiClient(baseUrl: string) {
  return async (method: string, path: string, options: { key?: string; body?: unknown } = {}): Promise<Reply> => {
    const headers: Record<string, string> = {};
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    return request(`${baseUrl}${path}`, { method, headers, body });
  };
}
export type Api = ReturnType<typeof apiClient>;

async function expectStatus(reply: Promise<Reply>, status: number, what: string) {
  const r = await reply;
  if (r.status !== status) throw new Error(`${what}: HTTP ${r.status} ${r.text}`);
  return r.json.data;
}

/**
 * The concurrency cap of a destination that takes a benchmark's burst: with the default of 10, most of
 * a burst of a thousand would be parked and released one by one, which is what the cap is for, not the
 * steady state these sections measure (the storm section keeps the default).
 */
export const BURST_MAX_IN_FLIGHT = { max_in_flight: 1000 };

/** An account with a source, and helpers to add destinations and routes. */
export async function setupAccount(api: Api) {
  const account = await expectStatus(api('POST', '/v1/accounts', { body: { name: 'bench' } }), 201, 'account');
  const key = account.api_key.key as string;
  const accountId = account.account.id as string;
  const source = await expectStatus(api('POST', '/v1/sources', { key, body: { name: 'provider' } }), 201, 'source');
  return {
    key,
    accountId,
    sourceId: source.id as string,
    token: source.path_token as string,
    async destination(url: string, extra: Record<string, unknown> = {}) {
      const dest = await expectStatus(api('POST', '/v1/destinations', { key, body: { name: 'sink', url, ...extra } }), 201, 'destination');
      return dest.id as string;
    },
    async route(body: Record<string, unknown>) {
      await expectStatus(api('POST', '/v1/routes', { key, body }), 201, 'route');
    },
  };
}

const base62 = (n: number) => randomBytes(n * 2).toString('base64').replace(/[^A-Za-z0-9]/g, '').slice(0, n);

/**
 * A provider-style JSON webhook of exactly `size` bytes (Stripe-like shape, random ids), carrying the
 * benchmark's sequence number and send time so the sink can match it and measure latency.
 */
export function webhookBody(seq: number, sentAt: number, size = 2048): string {
  const event = {
    id: `evt_${base62(24)}`,
    object: 'event',
    api_version: '2024-06-20',
    created: Math.floor(sentAt / 1000),
    type: 'payment_intent.succeeded',
    bench: { seq, sent_at: sentAt },
    livemode: false,
    pending_webhooks: 1,
    request: { id: `req_${base62(14)}`, idempotency_key: `${base62(8)}-${base62(4)}-${base62(12)}` },
    data: {
      object: {
        id: `pi_${base62(24)}`,
        object: 'payment_intent',
        amount: 4200 + (seq % 1000),
        amount_received: 4200 + (seq % 1000),
        currency: 'usd',
        customer: `cus_${base62(14)}`,
        payment_method: `pm_${base62(24)}`,
        status: 'succeeded',
        description: `Order #${100000 + seq}`,
        metadata: { order_id: String(100000 + seq), channel: 'web', plan: 'pro-annual' },
        lines: [] as Array<Record<string, unknown>>,
        note: '',
      },
    },
  };
  const lines = event.data.object.lines;
  while (JSON.stringify(event).length < size - 160) {
    lines.push({ id: `li_${base62(14)}`, price: `price_${base62(14)}`, quantity: 1 + (lines.length % 3), amount: 1000 + lines.length * 7 });
  }
  const missing = size - Buffer.byteLength(JSON.stringify(event));
  if (missing > 0) event.data.object.note = 'x'.repeat(missing);
  return JSON.stringify(event);
}

/**
 * Headers a provider sends, plus those API Gateway adds in AWS (x-forwarded-*, x-amzn-trace-id), so
 * the stored header map has its real size.
 */
export function providerHeaders(body: string): Record<string, string> {
  return {
    'content-type': 'application/json; charset=utf-8',
    'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
    accept: '*/*; q=0.5, application/xml',
    'cache-control': 'no-cache',
    'x-event-type': 'payment_intent.succeeded',
    'x-signature': `t=${Math.floor(Date.now() / 1000)},v1=${createHash('sha256').update(body).digest('hex')}`,
    'x-forwarded-for': '54.187.174.169',
    'x-forwarded-port': '443',
    'x-forwarded-proto': 'https',
    'x-amzn-trace-id': `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`,
  };
}

interface Arrival {
  seq: number;
  sentAt: number;
  at: number;
  status: number;
  path: string;
  eventId: string;
}

export type SinkBehaviour = (arrival: { seq: number; path: string; attempt: number; headers: IncomingHttpHeaders }) =>
  | { status: number; delayMs?: number }
  | 'hang';

/** A destination that records every delivery (arrival time, the body's seq and send time). */
export async function startSink(behaviour: SinkBehaviour = () => ({ status: 200 })) {
  const arrivals: Arrival[] = [];
  const attempts = new Map<number, number>();
  const hanging = new Set<ServerResponse>();
  let current = behaviour;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      let seq = -1;
      let sentAt = 0;
      try {
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { bench?: { seq?: number; sent_at?: number } };
        seq = parsed.bench?.seq ?? -1;
        sentAt = parsed.bench?.sent_at ?? 0;
      } catch {
        // not one of ours
      }
      const path = req.url ?? '/';
      const attempt = (attempts.get(seq) ?? 0) + 1;
      attempts.set(seq, attempt);
      const decision = current({ seq, path, attempt, headers: req.headers });
      const eventId = String(req.headers['x-webhook-id'] ?? '');
      if (decision === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        arrivals.push({ seq, sentAt, at, status: 0, path, eventId });
        return;
      }
      arrivals.push({ seq, sentAt, at, status: decision.status, path, eventId });
      const answer = () => res.writeHead(decision.status, { 'content-type': 'text/plain' }).end(decision.status < 300 ? 'ok' : 'fail');
      if (decision.delayMs) setTimeout(answer, decision.delayMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
  const url = `http://${LOOPBACK}:${(server.address() as AddressInfo).port}`;
  return {
    url,
    arrivals,
    delivered: () => arrivals.filter((a) => a.status >= 200 && a.status < 300),
    /** Requests held open now (answered `'hang'`), until the gateway gives up on them. */
    hangingNow: () => hanging.size,
    respondWith(next: SinkBehaviour) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type Sink = Awaited<ReturnType<typeof startSink>>;
