import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountTries, borrowedTries } from '../../lambdas/domain/max-in-flight';
import { bootGatewayWithSink } from '../fixtures/gateway';
import type { Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, ingest } from '../fixtures/setup';
import { eventually, type ReceivedRequest, type Sink } from '../fixtures/sink';

// One account cannot hold more than its share of the deliver concurrency (issue 37): fifty endpoints
// of one account that each answer after 5 s, never failing (so no breaker opens), and each within its
// own cap, would otherwise take every deliver batch, and another account's deliveries would wait
// behind them. The gateway runs 20 batches at once: the noisy account's share is 5 tries, and while
// the batches have room beyond two shares it borrows past it (10 more): the share binds only while
// another account takes what it leaves, and one account alone is not held to it.

const BATCHES = 20;
const SHARE = accountTries(BATCHES);
/** The most one account holds when no other takes its share: every batch but one share's. */
const ALONE = SHARE + borrowedTries(BATCHES, SHARE);
const SLOW_MS = 5000;
const NOISY_ENDPOINTS = 50;

let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let sink: Sink;

beforeAll(async () => {
  env = await bootGatewayWithSink({}, { deliverConcurrency: BATCHES });
  ({ call, sink } = env);
});
afterAll(() => env?.stop());

describe("an account's share of the deliver concurrency", () => {
  it("keeps another account's deliveries prompt while one account's fifty slow endpoints wait their turn", async () => {
    let noisyOpen = 0;
    let noisyMost = 0;
    sink.respondWith((request, res) => {
      if (!request.path.startsWith('/slow-')) return res.writeHead(200).end('ok');
      noisyOpen++;
      noisyMost = Math.max(noisyMost, noisyOpen);
      setTimeout(() => {
        noisyOpen--;
        res.writeHead(200).end('ok');
      }, SLOW_MS);
    });
    const quiet = await accountWithSource(call);
    await addRoute(call, quiet.key, { destination_id: (await addDestination(call, quiet.key, { url: `${sink.url}/quiet` })).id });
    /** Milliseconds from each quiet event's accept to its arrival at the endpoint. */
    const quietLatencies = async (count: number) => {
      const latencies: number[] = [];
      for (let n = 0; n < count; n++) {
        const body = JSON.stringify({ quiet: n, at: Date.now() });
        const sent = Date.now();
        await ingest(call, quiet.source.path_token, body);
        const arrival = await eventually(async () => sink.received.find((r) => r.path === '/quiet' && r.body.toString() === body), (r) => r !== undefined, 20_000);
        latencies.push((arrival as ReceivedRequest).at - sent);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return latencies;
    };
    await quietLatencies(3); // warm: the quiet destination has answered, as a healthy one has

    const noisy = await accountWithSource(call);
    for (let n = 0; n < NOISY_ENDPOINTS; n++) {
      const destination = await addDestination(call, noisy.key, { url: `${sink.url}/slow-${n}` });
      await addRoute(call, noisy.key, { destination_id: destination.id, event_type_pattern: `slow.${n}` });
    }
    await Promise.all(
      Array.from({ length: NOISY_ENDPOINTS }, (_, n) => ingest(call, noisy.source.path_token, JSON.stringify({ noisy: n }), { 'x-event-type': `slow.${n}` })),
    );
    const noisyArrived = () => sink.received.filter((r) => r.path.startsWith('/slow-')).length;
    await eventually(async () => noisyArrived(), (n) => n > 0, 10_000);

    // While the noisy account's tries hang on its endpoints, the quiet account's go at once: none waits
    // for a batch a slow try holds (each such wait would be seconds).
    const during = await quietLatencies(8);
    expect(Math.max(...during)).toBeLessThan(SLOW_MS / 2);
    // The noisy account is not starved either: past its share while the batches have room, every one
    // of its deliveries arrives once, and it never holds the share the quiet one may need.
    await eventually(async () => noisyMost, (most) => most > SHARE, 3 * SLOW_MS);
    await eventually(async () => noisyArrived(), (n) => n >= NOISY_ENDPOINTS, 60_000);
    expect(noisyMost).toBeLessThanOrEqual(ALONE);
    expect(new Set(sink.received.filter((r) => r.path.startsWith('/slow-')).map((r) => r.body.toString())).size).toBe(NOISY_ENDPOINTS);
    expect(noisyArrived()).toBe(NOISY_ENDPOINTS);
  }, 150_000);

  it('lets one account alone past its share: a slow endpoint with a high cap gets every batch but one share', async () => {
    const EVENTS = 40;
    let open = 0;
    let most = 0;
    sink.respondWith((request, res) => {
      if (!request.path.startsWith('/alone')) return res.writeHead(200).end('ok');
      open++;
      most = Math.max(most, open);
      setTimeout(() => {
        open--;
        res.writeHead(200).end('ok');
      }, SLOW_MS);
    });
    const alone = await accountWithSource(call);
    await addRoute(call, alone.key, { destination_id: (await addDestination(call, alone.key, { url: `${sink.url}/alone`, max_in_flight: 100 })).id });
    await Promise.all(Array.from({ length: EVENTS }, (_, n) => ingest(call, alone.source.path_token, JSON.stringify({ alone: n }))));
    const arrived = () => sink.received.filter((r) => r.path === '/alone');
    await eventually(async () => most, (m) => m > SHARE, 4 * SLOW_MS);
    await eventually(async () => arrived().length, (n) => n >= EVENTS, 90_000);
    expect(most).toBeLessThanOrEqual(ALONE);
    expect(new Set(arrived().map((r) => r.body.toString())).size).toBe(EVENTS);
    expect(arrived()).toHaveLength(EVENTS);
  }, 150_000);
});
