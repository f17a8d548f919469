import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGateway, type Gateway, type GatewayHandlers } from '../../local/gateway';
import { DELIVERY_TEST_ENV } from '../fixtures/gateway';
import { httpClient, type Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually, startSink, type Sink } from '../fixtures/sink';

// In AWS the api, ingest and deliver functions are separate processes, each with its own routing
// cache; the local gateway is one process, where a write forgets the one cache everyone shares. Here
// each handler is imported into a module graph of its own, so each has its own cache, as in Lambda.
async function isolated<K extends keyof GatewayHandlers>(entry: string): Promise<NonNullable<GatewayHandlers[K]>> {
  vi.resetModules();
  const mod = (await import(entry)) as { handler: NonNullable<GatewayHandlers[K]> };
  return mod.handler;
}

let gateway: Gateway;
let dataDir: string;
let call: Call;
let sink: Sink;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'hookgate-caches-'));
  const handlers: GatewayHandlers = {
    api: await isolated<'api'>('../../lambdas/handlers/api'),
    ingest: await isolated<'ingest'>('../../lambdas/handlers/ingest'),
    deliver: await isolated<'deliver'>('../../lambdas/handlers/deliver'),
  };
  // A cache long enough that nothing in this file outlives it by waiting.
  gateway = await startGateway({ port: 0, dataDir, handlers, log: () => undefined, env: { ...DELIVERY_TEST_ENV, HOOKGATE_LOG_LEVEL: 'error', HOOKGATE_ROUTE_CACHE_SECONDS: '300' } });
  call = httpClient(gateway.url);
  sink = await startSink();
});
afterAll(async () => {
  await sink?.close();
  await gateway?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('routing caches of separate functions', () => {
  it('a route and destination created in another function route every event accepted a second later, and deliver it, though ingest and deliver cached the table before', async () => {
    const { key, source } = await accountWithSource(call);
    const old = await addDestination(call, key, { url: `${sink.url}/old` });
    await addRoute(call, key, { destination_id: old.id, event_type_pattern: 'old.*' });
    // Warms the ingest and deliver functions' caches with a table that has only the old destination
    // (twice: the first success stamps the breaker, which makes the deliver function read again).
    for (const n of [0, 1]) {
      const warm = (await ingest(call, source.path_token, JSON.stringify({ n }), { 'x-event-type': 'old.x' })).json.data.id as string;
      await eventually(() => eventDetail(call, key, warm), (d) => d.event.status === 'delivered');
    }

    const fresh = await addDestination(call, key, { url: `${sink.url}/new` });
    await addRoute(call, key, { destination_id: fresh.id, event_type_pattern: 'new.*' });
    const written = Date.now();
    // The ingest function reuses the account's routing stamp for a second (the table for 300 s): an
    // event accepted within that second may miss the route (`accepted`, nowhere to go), none after it.
    const missedAfterMs: number[] = [];
    const { res } = await eventually(
      async () => {
        const startedAfterMs = Date.now() - written;
        const res = await ingest(call, source.path_token, JSON.stringify({ startedAfterMs }), { 'x-event-type': 'new.x' });
        if (res.json.data.status !== 'queued') missedAfterMs.push(startedAfterMs);
        return { res };
      },
      ({ res }) => res.json.data.status === 'queued',
      5_000,
    );
    for (const after of missedAfterMs) expect(after, 'an event accepted more than a second after the route was written missed it').toBeLessThanOrEqual(1000);

    const detail = await eventually(() => eventDetail(call, key, res.json.data.id as string), (d) => ['delivered', 'dead_letter'].includes(d.event.status));
    expect(detail.event.status).toBe('delivered');
    expect(detail.event.deliveries).toEqual([expect.objectContaining({ destination_id: fresh.id, status: 'delivered', end_reason: null })]);
    expect(sink.received.filter((r) => r.path === '/new')).toHaveLength(1);
  });
});
