import { describe, expect, it } from 'vitest';
import { ENV } from '../../lambdas/shared/resource-definitions';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';

// Issue 37's "sent twice in vain" at test scale: a healthy endpoint that answers every request well
// within its destination's timeout, a cap high enough for a backlog to be in flight at once, and more
// requests in flight than one connection pool has sockets (50). A try's timeout counts from the
// moment its request is on the wire, and each batch has a container's connections: every event
// reaches the endpoint once, in one successful try. Before, the requests queued behind the pool's 50
// sockets spent their timeout waiting, were cut off after the endpoint had them, and were sent again.

const ANSWER_MS = 1_500;
// Four answers: room for a loaded machine's lag on the wire, and less than the wait of a request
// queued behind five rounds of the pool's sockets, which the backlog below makes.
const TIMEOUT_MS = 6_000;
const EVENTS = 300;
const POOL_SOCKETS = 50;

// The endpoint is slow (1.5 s), so its tries keep to slots and to the account's share of the deliver
// concurrency (25 tries): the share is raised here, where the backlog in flight is the point.
const { call, sink } = gatewayWithSinkForFile({ [ENV.accountTries]: '1000' });

describe('a try times out on the wire only', () => {
  it('a healthy endpoint with a backlog in flight gets each event once, each in one successful try', async () => {
    let open = 0;
    let most = 0;
    sink.respondWith((_request, res) => {
      open++;
      most = Math.max(most, open);
      setTimeout(() => {
        open--;
        res.writeHead(200).end('ok');
      }, ANSWER_MS);
    });
    const { key, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/slow`, timeout_ms: TIMEOUT_MS, max_in_flight: 1000 });
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
    const bodies = sink.received.filter((r) => r.path === '/slow').map((r) => r.body.toString());
    expect(bodies).toHaveLength(EVENTS);
    expect(new Set(bodies).size).toBe(EVENTS);
    // The scenario held: more requests reached the endpoint at once than one pool's sockets.
    expect(most).toBeGreaterThan(POOL_SOCKETS);
  });
});
