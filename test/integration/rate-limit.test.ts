import { describe, expect, it } from 'vitest';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';

const { call, sink } = gatewayWithSinkForFile();

/**
 * How far ahead of a limit's schedule a series of arrivals ever got: the k-th arrival (in time order)
 * may come no sooner than k intervals after `start`. Under a starved CPU sends only come later than
 * their slots, never earlier, so this holds on a busy machine too (a sliding window does not: sends
 * delayed by a stall arrive together with the next ones), and a limiter that sends early breaks it.
 */
function aheadOfSchedule(times: number[], start: number, intervalMs: number): number {
  return Math.max(...[...times].sort((a, b) => a - b).map((at, k) => start + k * intervalMs - at));
}

describe('per-destination rate limit', () => {
  it('delivers 50 events to a destination limited to 5/s, never ahead of one per 200 ms, all of them, no try spent', async () => {
    const { key, source } = await accountWithSource(call);
    const limited = await addDestination(call, key, { url: `${sink.url}/limited`, rate_limit_per_second: 5 });
    expect((await call('GET', `/v1/destinations/${limited.id}`, { key })).json.data.rate_limit_per_second).toBe(5);
    await addRoute(call, key, { destination_id: limited.id });

    const ids: string[] = [];
    const start = Date.now();
    for (let i = 0; i < 50; i++) ids.push((await ingest(call, source.path_token, JSON.stringify({ i }))).json.data.id as string);
    const got = await sink.waitForPath('/limited', 50, 30_000);
    const times = got.map((r) => r.at);
    // Slots are 200 ms apart from the first one (taken after `start`); 20 ms allows for clock rounding.
    expect(aheadOfSchedule(times, start, 200)).toBeLessThanOrEqual(20);
    expect(new Set(got.map((r) => r.headers['x-webhook-id'])).size).toBe(50);
    for (const id of ids.slice(-5)) {
      const detail = await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered');
      expect(detail.attempts).toHaveLength(1); // waiting for its turn spent no try
    }
  });

  it('PATCH sets and clears the limit; 0 and decimals are refused', async () => {
    const { key } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/x` });
    expect((await call('PATCH', `/v1/destinations/${dest.id}`, { key, body: { rate_limit_per_second: 20 } })).json.data.rate_limit_per_second).toBe(20);
    expect((await call('PATCH', `/v1/destinations/${dest.id}`, { key, body: { rate_limit_per_second: null } })).json.data.rate_limit_per_second).toBeNull();
    for (const [value, message] of [
      [0, 'rate_limit_per_second must be at least 1'],
      [2.5, 'rate_limit_per_second must be an integer'],
    ] as const) {
      const res = await call('PATCH', `/v1/destinations/${dest.id}`, { key, body: { rate_limit_per_second: value } });
      expect(res.status).toBe(400);
      expect(res.json.error).toBe(message);
    }
  });
});
