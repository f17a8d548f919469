import { describe, expect, it } from 'vitest';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';

const { call, sink } = gatewayWithSinkForFile();

/** The most requests that arrived within any window of `ms` (sliding, not calendar seconds). */
function busiestWindow(times: number[], ms: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= ms) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe('per-destination rate limit', () => {
  it('delivers 50 events to a destination limited to 5/s, never more than 5 in any second, all of them, no try spent', async () => {
    const { key, source } = await accountWithSource(call);
    const limited = await addDestination(call, key, { url: `${sink.url}/limited`, rate_limit_per_second: 5 });
    expect((await call('GET', `/v1/destinations/${limited.id}`, { key })).json.data.rate_limit_per_second).toBe(5);
    await addRoute(call, key, { destination_id: limited.id });

    const ids: string[] = [];
    for (let i = 0; i < 50; i++) ids.push((await ingest(call, source.path_token, JSON.stringify({ i }))).json.data.id as string);
    const got = await sink.waitForPath('/limited', 50, 30_000);
    const times = got.map((r) => r.at);
    // Sends are spaced 200 ms apart by their slots; the window allows 50 ms for the HTTP path's jitter.
    expect(busiestWindow(times, 950)).toBeLessThanOrEqual(5);
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(9_000);
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
