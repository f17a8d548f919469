import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGatewayWithSink } from '../fixtures/gateway';
import { typedClient, type Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually, type Sink } from '../fixtures/sink';

let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let sink: Sink;

beforeAll(async () => {
  // The deployment's schedule stays the default: every short wait below is the destination's own.
  env = await bootGatewayWithSink({ HOOKGATE_RETRY_SCHEDULE: '' });
  ({ call, sink } = env);
  sink.respondWith((req, res) => res.writeHead(req.path.startsWith('/fail') ? 500 : 200).end());
});
afterAll(() => env?.stop());

describe('per-destination retry schedule', () => {
  it('follows the destination’s own steps, try by try, and dead-letters after its last step', async () => {
    const { key, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/fail/steps`, retry_schedule: [0, 1, 3] });
    expect((await typedClient(call, key).destinations.get(dest.id)).retry_schedule).toEqual([0, 1, 3]);
    await addRoute(call, key, { destination_id: dest.id });

    const id = (await ingest(call, source.path_token, '{"n":1}')).json.data.id as string;
    // Three tries within 20 s: the default schedule's second step alone is 30 s.
    const tries = await sink.waitForPath('/fail/steps', 3, 20_000);
    const gaps = [tries[1]!.at - tries[0]!.at, tries[2]!.at - tries[1]!.at];
    // Never before its step; how much later on a busy machine is not the schedule's promise.
    expect(gaps[0]).toBeGreaterThanOrEqual(900);
    expect(gaps[1]).toBeGreaterThanOrEqual(2_900);
    const detail = await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'dead_letter');
    expect(detail.attempts).toHaveLength(3);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(sink.received.filter((r) => r.path === '/fail/steps')).toHaveLength(3);
  });

  it('waits a day-long step as a stored due time, and a PATCH back to null restores the default', async () => {
    const { key, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/fail/day`, retry_schedule: [0, 86_400] });
    await addRoute(call, key, { destination_id: dest.id });
    const id = (await ingest(call, source.path_token, '{"n":2}')).json.data.id as string;
    await sink.waitForPath('/fail/day', 1);
    const detail = await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'retry_scheduled');
    const delivery = (detail.event.deliveries as Array<{ next_attempt_at: string }>)[0]!;
    const wait = Date.parse(delivery.next_attempt_at) - Date.now();
    expect(wait).toBeGreaterThan(86_000_000);
    expect(wait).toBeLessThanOrEqual(86_400_000);

    const patched = await call('PATCH', `/v1/destinations/${dest.id}`, { key, body: { retry_schedule: null } });
    expect(patched.status).toBe(200);
    expect(patched.json.data.retry_schedule).toEqual([0, 30, 120, 600, 3600]);
  });

  it.each([
    [[], 'retry_schedule must contain at least 1 item(s)'],
    [Array.from({ length: 21 }, () => 1), 'retry_schedule must contain at most 20 items'],
    [[0, 86_401], 'retry_schedule.1 must be at most 86400'],
    [[0, -1], 'retry_schedule.1 must be at least 0'],
    [[0, 1.5], 'retry_schedule.1 must be an integer'],
  ])('refuses the schedule %j: %s', async (schedule, message) => {
    const { key } = await accountWithSource(call);
    const res = await call('POST', '/v1/destinations', { key, body: { name: 'd', url: `${sink.url}/x`, retry_schedule: schedule } });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(message);
  });
});
