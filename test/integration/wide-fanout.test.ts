import { describe, expect, it } from 'vitest';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';

// One event to 200 destinations, half of which answer 500: each delivery is an item of its own, so
// none waits on another's write and none is sent again because another's write raced it.

const { call, sink } = gatewayWithSinkForFile({ HOOKGATE_RETRY_SCHEDULE: '0,1' });
const WIDTH = 200;
const failing = (n: number) => n % 2 === 1;

describe('one event to 200 destinations', () => {
  it('settles every delivery exactly (half delivered once, half dead-lettered after two tries) and the event by the contract', async () => {
    const { key, source } = await accountWithSource(call);
    const paths = new Map<string, string>();
    for (let n = 0; n < WIDTH; n++) {
      // The longest timeout a destination takes: the sink shares the test's thread with the 200 tries, and
      // beside two busy loops it answered one of them after the default 15 s (two timeouts, a dead letter).
      const destination = await addDestination(call, key, { url: `${sink.url}/wide-${n}`, timeout_ms: 30_000 });
      await addRoute(call, key, { destination_id: destination.id });
      paths.set(destination.id, `/wide-${n}`);
    }
    sink.respondWith((request, res) => {
      const n = Number(request.path.split('-')[1]);
      res.writeHead(failing(n) ? 500 : 200).end(failing(n) ? 'down' : 'ok');
    });

    const res = await ingest(call, source.path_token, '{"wide":true}');
    expect(res.status).toBe(202);
    const id = res.json.data.id as string;

    // While deliveries are open the event never shows settled, whatever mix its deliveries are in.
    const seen = new Set<string>();
    const detail = await eventually(
      async () => {
        const current = await eventDetail(call, key, id);
        seen.add(current.event.status);
        return current;
      },
      (d) => d.event.status === 'dead_letter' || d.event.status === 'delivered',
      120_000,
    );
    expect([...seen].filter((status) => !['queued', 'delivering', 'retry_scheduled', 'dead_letter'].includes(status))).toEqual([]);

    expect(detail.event.status).toBe('dead_letter');
    expect(detail.event.deliveries).toHaveLength(WIDTH);
    for (const delivery of detail.event.deliveries as Array<{ destination_id: string; status: string; attempts: number }>) {
      const n = Number(paths.get(delivery.destination_id)?.split('-')[1]);
      // A mismatch names the delivery's tries: what came back, and when.
      const tries = (detail.attempts as Array<{ destination_id: string; attempt_number: number; outcome: string; error: string | null; attempted_at: string; duration_ms: number }>)
        .filter((a) => a.destination_id === delivery.destination_id)
        .map(({ attempt_number, outcome, error, attempted_at, duration_ms }) => ({ attempt_number, outcome, error, attempted_at, duration_ms }));
      expect(delivery, JSON.stringify(tries)).toMatchObject(failing(n) ? { status: 'dead_letter', attempts: 2 } : { status: 'delivered', attempts: 1 });
    }
    expect(detail.event.attempts_count).toBe(WIDTH / 2 + WIDTH);
    expect(detail.attempts).toHaveLength(WIDTH / 2 + WIDTH);

    // Each healthy endpoint got it once; each failing one once per try, never more.
    for (const [destinationId, path] of paths) {
      const n = Number(path.split('-')[1]);
      const received = sink.received.filter((r) => r.path === path);
      expect(received, destinationId).toHaveLength(failing(n) ? 2 : 1);
    }

    // The list says what the detail says.
    const listed = await call('GET', `/v1/events?limit=5`, { key });
    expect(listed.json.data.find((e: { id: string }) => e.id === id)).toMatchObject({ status: 'dead_letter', attempts_count: WIDTH / 2 + WIDTH });
  }, 300_000);
});
