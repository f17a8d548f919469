import { describe, expect, it } from 'vitest';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';

const { call, sink } = gatewayWithSinkForFile();

describe('DELETE /v1/sources/{id}', () => {
  it('stops the ingest URL at once, removes the routes that name it, and keeps its events', async () => {
    const { key, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/src-del` });
    const route = await addRoute(call, key, { destination_id: dest.id, source_id: source.id });
    const id = (await ingest(call, source.path_token, '{"before":true}')).json.data.id as string;
    await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered');

    expect((await call('DELETE', `/v1/sources/${source.id}`, { key })).status).toBe(204);
    const after = await ingest(call, source.path_token, '{"after":true}');
    expect(after.status).toBe(401);
    expect((await call('GET', `/v1/sources/${source.id}`, { key })).status).toBe(404);
    expect((await call('GET', `/v1/routes/${route.id}`, { key })).status).toBe(404);
    expect((await eventDetail(call, key, id)).event).toMatchObject({ id, source_id: source.id, status: 'delivered' });
    expect((await call('DELETE', `/v1/sources/${source.id}`, { key })).status).toBe(404);
  });

  it('answers 404 for another account’s source, which keeps working', async () => {
    const owner = await accountWithSource(call);
    const other = await accountWithSource(call);
    expect((await call('DELETE', `/v1/sources/${owner.source.id}`, { key: other.key })).status).toBe(404);
    expect((await ingest(call, owner.source.path_token, '{}')).status).toBe(202);
  });
});

describe('DELETE /v1/destinations/{id}', () => {
  it('removes its routes and ends its waiting deliveries with destination_deleted, without another try', async () => {
    const { key, source } = await accountWithSource(call);
    sink.respondWith((req, res) => res.writeHead(req.path === '/dest-del' ? 500 : 200).end());
    const dest = await addDestination(call, key, { url: `${sink.url}/dest-del`, retry_schedule: [0, 3] });
    const route = await addRoute(call, key, { destination_id: dest.id });
    const id = (await ingest(call, source.path_token, '{"n":1}')).json.data.id as string;
    await sink.waitForPath('/dest-del', 1);
    await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'retry_scheduled');

    expect((await call('DELETE', `/v1/destinations/${dest.id}`, { key })).status).toBe(204);
    expect((await call('GET', `/v1/destinations/${dest.id}`, { key })).status).toBe(404);
    expect((await call('GET', `/v1/routes/${route.id}`, { key })).status).toBe(404);
    const detail = await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'dead_letter', 10_000);
    expect(detail.event.deliveries).toEqual([
      { destination_id: dest.id, status: 'dead_letter', attempts: 1, next_attempt_at: null, end_reason: 'destination_deleted', waiting: null },
    ]);
    expect(sink.received.filter((r) => r.path === '/dest-del')).toHaveLength(1);
    // A new event finds no route to it.
    const next = await ingest(call, source.path_token, '{"n":2}');
    expect(next.json.data.status).toBe('accepted');
  });

  it('answers 404 for another account’s destination and leaves it alone', async () => {
    const owner = await accountWithSource(call);
    const other = await accountWithSource(call);
    const dest = await addDestination(call, owner.key, { url: `${sink.url}/kept` });
    expect((await call('DELETE', `/v1/destinations/${dest.id}`, { key: other.key })).status).toBe(404);
    expect((await call('GET', `/v1/destinations/${dest.id}`, { key: owner.key })).status).toBe(200);
  });
});
