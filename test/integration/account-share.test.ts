import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountTries } from '../../lambdas/domain/max-in-flight';
import { bootGatewayWithSink } from '../fixtures/gateway';
import type { Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, ingest } from '../fixtures/setup';
import { eventually, type ReceivedRequest, type Sink } from '../fixtures/sink';

// One account cannot hold more than its share of the deliver concurrency (issue 37): fifty endpoints
// of one account that each answer after 5 s, never failing (so no breaker opens), and each within its
// own cap, would otherwise take every deliver batch, and another account's deliveries would wait
// behind them. The gateway runs 20 batches at once: the noisy account's share is 5 tries.

const BATCHES = 20;
const SHARE = accountTries(BATCHES);
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
    expect(noisyMost).toBeLessThanOrEqual(SHARE);
    // The noisy account is not starved either: its share keeps working through its deliveries.
    await eventually(async () => noisyArrived(), (n) => n > SHARE, 3 * SLOW_MS);
  }, 90_000);
});
