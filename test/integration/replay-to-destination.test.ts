import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGatewayWithSink } from '../fixtures/gateway';
import { typedClient, type Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually, type Sink } from '../fixtures/sink';

let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let sink: Sink;
const down = new Set<string>();

beforeAll(async () => {
  env = await bootGatewayWithSink();
  ({ call, sink } = env);
  sink.respondWith((req, res) => res.writeHead(down.has(req.path) ? 503 : 200).end());
});
afterAll(() => env?.stop());

const count = (path: string) => sink.received.filter((r) => r.path === path).length;

describe('single-event replay to one destination', () => {
  it('after one endpoint’s outage, sends the event again to that endpoint only', async () => {
    const { key, source } = await accountWithSource(call);
    down.add('/broken');
    const broken = await addDestination(call, key, { url: `${sink.url}/broken`, retry_schedule: [0] });
    await addDestination(call, key, { url: `${sink.url}/fine` }).then((fine) => addRoute(call, key, { destination_id: fine.id }));
    await addRoute(call, key, { destination_id: broken.id });
    const id = (await ingest(call, source.path_token, '{"order":1}')).json.data.id as string;
    await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'dead_letter');
    expect([count('/broken'), count('/fine')]).toEqual([1, 1]);

    down.delete('/broken');
    const replay = await call('POST', `/v1/events/${id}/replay`, { key, body: { destination_id: broken.id } });
    expect(replay.status).toBe(202);
    const copy = await eventually(() => eventDetail(call, key, replay.json.data.replay_event_id), (d) => d.event.status === 'delivered');
    expect(copy.event.deliveries).toEqual([expect.objectContaining({ destination_id: broken.id, status: 'delivered' })]);
    expect(copy.event).toMatchObject({ replay_of: id, body: '{"order":1}' });
    expect((await eventDetail(call, key, id)).event).toMatchObject({ status: 'replayed', replayed_by: replay.json.data.replay_event_id });
    // The copy is settled with its one delivery (above): no task is left that could send to /fine.
    expect([count('/broken'), count('/fine')]).toEqual([2, 1]);
  });

  it('refuses a destination of another account, and an outbound replay takes the same body', async () => {
    const owner = await accountWithSource(call);
    const other = await accountWithSource(call);
    const foreign = await addDestination(call, other.key, { url: `${sink.url}/foreign` });
    const mine = await addDestination(call, owner.key, { url: `${sink.url}/mine` });
    const { id } = await typedClient(call, owner.key).outboundEvents.publish({ payload: '{"n":1}' });
    await eventually(() => eventDetail(call, owner.key, id, '/v1/outbound-events'), (d) => d.event.status === 'accepted');

    const refused = await call('POST', `/v1/outbound-events/${id}/replay`, { key: owner.key, body: { destination_id: foreign.id } });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toBe('destination_id does not match a destination of this account');
    expect((await call('POST', `/v1/outbound-events/${id}/replay`, { key: owner.key, body: { destination_id: 'x' } })).json.error).toBe('invalid destination_id');

    const replay = await call('POST', `/v1/outbound-events/${id}/replay`, { key: owner.key, body: { destination_id: mine.id } });
    expect(replay.status).toBe(202);
    await sink.waitForPath('/mine', 1);
    expect(count('/foreign')).toBe(0);
  });
});
