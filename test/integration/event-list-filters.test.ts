import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway } from '../fixtures/gateway';
import { typedClient, type Call } from '../fixtures/http-client';
import { accountWithSource, ingest } from '../fixtures/setup';

let env: Awaited<ReturnType<typeof bootGateway>>;
let call: Call;

beforeAll(async () => {
  env = await bootGateway();
  ({ call } = env);
});
afterAll(() => env?.stop());

const listed = async (key: string, path: string) => {
  const res = await call('GET', path, { key });
  expect(res.status, res.text).toBe(200);
  return (res.json.data as Array<{ id: string }>).map((e) => e.id);
};

describe('finding an event in the lists', () => {
  it('filters inbound events by external_event_id and by a date range', async () => {
    const { key, source } = await accountWithSource(call);
    const first = (await ingest(call, source.path_token, '{}', { 'idempotency-key': 'dlv_1' })).json.data.id as string;
    await new Promise((resolve) => setTimeout(resolve, 30));
    const middle = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const second = (await ingest(call, source.path_token, '{}', { 'idempotency-key': 'dlv_2' })).json.data.id as string;
    const third = (await ingest(call, source.path_token, '{}')).json.data.id as string;

    expect(await listed(key, '/v1/events?external_event_id=dlv_2')).toEqual([second]);
    expect(await listed(key, '/v1/events?external_event_id=nope')).toEqual([]);
    expect(await listed(key, `/v1/events?date_from=${middle}`)).toEqual([third, second]);
    expect(await listed(key, `/v1/events?date_to=${middle}`)).toEqual([first]);
    expect(await listed(key, `/v1/events?date_from=${middle}&external_event_id=dlv_1`)).toEqual([]);
  });

  it('filters outbound events the same way, and refuses bad bounds', async () => {
    const { key } = await accountWithSource(call);
    const before = new Date(Date.now() - 60_000).toISOString();
    const hookgate = typedClient(call, key);
    const published = await hookgate.outboundEvents.publish({ payload: '{}', external_event_id: 'ord-7' });
    await hookgate.outboundEvents.publish({ payload: '{}', external_event_id: 'ord-8' });
    expect(await listed(key, `/v1/outbound-events?external_event_id=ord-7&date_from=${before}`)).toEqual([published.id]);

    for (const [query, message] of [
      ['date_from=yesterday', 'date_from must be an ISO 8601 timestamp'],
      ['date_to=2026-13-45', 'date_to must be an ISO 8601 timestamp'],
      ['date_from=2026-02-01T00:00:00Z&date_to=2026-01-01T00:00:00Z', 'date_from must not be after date_to'],
    ]) {
      const res = await call('GET', `/v1/events?${query}`, { key });
      expect(res.status).toBe(400);
      expect(res.json.error).toBe(message);
    }
  });
});
