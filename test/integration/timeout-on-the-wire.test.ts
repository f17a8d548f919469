import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../lambdas/shared/resource-definitions';
import { bootGateway, DELIVERY_TEST_ENV } from '../fixtures/gateway';
import type { Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';

// Issue 37's "sent twice in vain" at test scale: a healthy endpoint that answers every request well
// within its destination's timeout, a cap high enough for a backlog to be in flight at once, and more
// requests in flight than one connection pool has sockets (50). A try's timeout counts from the
// moment its request is on the wire, and each batch has a container's connections: every event
// reaches the endpoint once, in one successful try. Before, the requests queued behind the pool's 50
// sockets spent their timeout waiting, were cut off after the endpoint had them, and were sent again.

const ANSWER_MS = 3_000;
// Four answers: room for a loaded machine's lag on the wire, and less than the wait of a request
// queued behind five rounds of the pool's sockets, which the backlog below makes.
const TIMEOUT_MS = 12_000;
const EVENTS = 300;
const POOL_SOCKETS = 50;

/**
 * The endpoint on a thread of its own, as a real endpoint is on a machine of its own: on the test's
 * thread it shared the event loop with the gateway's 300 tries, and beside two busy loops it read its
 * requests seconds late and answered after their timeout (93 of 300 in one run), which said nothing
 * of the sender. It answers every request `answerMs` after it arrives and counts how many it holds open.
 */
async function startEndpointThread(answerMs: number) {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
    const http = require('node:http');
    let open = 0, most = 0;
    const bodies = [];
    const server = http.createServer((req, res) => {
      open++;
      most = Math.max(most, open);
      const chunks = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () => bodies.push(Buffer.concat(chunks).toString()));
      setTimeout(() => { open--; res.writeHead(200).end('ok'); }, ${answerMs});
    });
    server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
    parentPort.on('message', () => parentPort.postMessage({ most, bodies }));`,
    { eval: true },
  );
  const [{ port }] = (await once(worker, 'message')) as [{ port: number }];
  return {
    url: `http://127.0.0.1:${port}`,
    async seen(): Promise<{ most: number; bodies: string[] }> {
      const answer = once(worker, 'message');
      worker.postMessage('seen');
      return ((await answer) as [{ most: number; bodies: string[] }])[0];
    },
    close: () => worker.terminate(),
  };
}

// The endpoint is slow (3 s), so its tries keep to slots and to the account's share of the deliver
// concurrency (25 tries): the share is raised here, where the backlog in flight is the point.
let booted: Awaited<ReturnType<typeof bootGateway>>;
let call: Call;
let endpoint: Awaited<ReturnType<typeof startEndpointThread>>;
beforeAll(async () => {
  booted = await bootGateway({ ...DELIVERY_TEST_ENV, [ENV.accountTries]: '1000' });
  call = booted.call;
  endpoint = await startEndpointThread(ANSWER_MS);
});
afterAll(async () => {
  await endpoint?.close();
  await booted?.stop();
});

describe('a try times out on the wire only', () => {
  it('a healthy endpoint with a backlog in flight gets each event once, each in one successful try', async () => {
    const { key, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${endpoint.url}/slow`, timeout_ms: TIMEOUT_MS, max_in_flight: 1000 });
    await addRoute(call, key, { destination_id: dest.id });

    const ids: string[] = [];
    for (let start = 0; start < EVENTS; start += 25) {
      const accepted = await Promise.all(Array.from({ length: 25 }, (_, i) => ingest(call, source.path_token, JSON.stringify({ n: start + i }))));
      for (const response of accepted) ids.push(response.json.data.id as string);
    }

    const settled = async () => {
      const details = await Promise.all(ids.map((id) => eventDetail(call, key, id)));
      return details.filter((d) => d.event.status === 'delivered' || d.event.status === 'dead_letter').length;
    };
    await eventually(settled, (n) => n === EVENTS, 90_000);

    const details = await Promise.all(ids.map((id) => eventDetail(call, key, id)));
    const attempts = details.flatMap((d) => d.attempts.map((a) => ({ outcome: a.outcome, error: a.error })));
    expect(attempts.filter((a) => a.outcome !== 'success')).toEqual([]);
    expect(details.map((d) => d.event.deliveries[0]?.attempts)).toEqual(ids.map(() => 1));
    const { most, bodies } = await endpoint.seen();
    expect(bodies).toHaveLength(EVENTS);
    expect(new Set(bodies).size).toBe(EVENTS);
    // The scenario held: more requests reached the endpoint at once than one pool's sockets.
    expect(most).toBeGreaterThan(POOL_SOCKETS);
    // Longer than the 90 s wait for the tries to settle and the ingest before it (the project's 60 s was not).
  }, 180_000);
});
