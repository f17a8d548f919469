import { mkdtemp, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../lambdas/shared/resource-definitions';
import { startGateway, type Gateway } from '../../local/gateway';
import { DELIVERY_TEST_ENV } from '../fixtures/gateway';
import { httpClient, type Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, ingest } from '../fixtures/setup';
import { eventually, startSink, type Sink } from '../fixtures/sink';

// The local poller stands in for the deliver event source mapping and SQS fair queues: a destination
// whose tries hang holds at most its share of the batches, and other destinations keep being
// delivered meanwhile. Four slots here (two per group at most), so a few messages reach the limit
// that 100 slots would reach with hundreds. The breaker is kept shut so only the poller isolates.
const SLOTS = 4;
let gateway: Gateway;
let dataDir: string;
let call: Call;
let hanging: Sink;
let healthy: Sink;
const held: ServerResponse[] = [];
let hungTriesEnded = 0;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'hookgate-fair-'));
  gateway = await startGateway({
    port: 0,
    dataDir,
    log: () => undefined,
    deliverConcurrency: SLOTS,
    // An account's share of four batches would be one try: both destinations are this account's, and
    // the poller's fairness, not the share (test/integration/account-share.test.ts), is the point here.
    env: { ...DELIVERY_TEST_ENV, HOOKGATE_LOG_LEVEL: 'error', [ENV.breakerThreshold]: '1000', [ENV.accountTries]: '1000' },
  });
  call = httpClient(gateway.url);
  // Two servers, as two destinations would be: the sender pools sockets per host.
  hanging = await startSink((_request, res) => {
    held.push(res);
    res.on('close', () => hungTriesEnded++);
  });
  healthy = await startSink();
});

afterAll(async () => {
  for (const res of held) res.destroy();
  await hanging?.close();
  await healthy?.close();
  await gateway?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the local poller shares its slots between destinations', () => {
  it('delivers to a healthy destination while another one hangs with every slot it may hold', async () => {
    const { key, source } = await accountWithSource(call);
    const slow = await addDestination(call, key, { url: `${hanging.url}/hang`, timeout_ms: 30_000 });
    const fine = await addDestination(call, key, { url: `${healthy.url}/ok` });
    await addRoute(call, key, { destination_id: slow.id, event_type_pattern: 'slow.*' });
    await addRoute(call, key, { destination_id: fine.id, event_type_pattern: 'fine.*' });

    // Far more hanging deliveries than all the slots could hold, sent one by one so they come in
    // many small batches; every one of them would wait for a slot before the healthy events.
    for (let n = 0; n < 40; n++) {
      const res = await ingest(call, source.path_token, JSON.stringify({ n }), { 'x-event-type': 'slow.x' });
      expect(res.status).toBe(202);
    }
    await hanging.waitFor(2, 20_000);

    for (let n = 0; n < 5; n++) {
      const res = await ingest(call, source.path_token, JSON.stringify({ n }), { 'x-event-type': 'fine.x' });
      expect(res.status).toBe(202);
    }
    await healthy.waitForPath('/ok', 5, 25_000);

    // Delivered while the hanging tries still held their slots (their timeout is 30 s).
    expect(hungTriesEnded).toBe(0);
    // Its tries were still open, and most of its deliveries still waited behind its two slots.
    const open = held.filter((res) => !res.writableEnded && !res.destroyed).length;
    expect(open).toBeGreaterThan(0);
    expect(hanging.received.length).toBeLessThan(40);
  });

  it('gives the hanging destination its slots back once its tries end', async () => {
    hanging.respondWith((_request, res) => res.writeHead(200).end('ok'));
    for (const res of held.splice(0)) res.writeHead(200).end('late');
    await eventually(async () => hanging.received.length, (n) => n >= 40, 30_000);
  });
});
