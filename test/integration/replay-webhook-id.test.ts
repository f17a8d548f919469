import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { createAccount, typedClient } from '../fixtures/http-client';
import { openPortalSession } from '../fixtures/portal';
import { addDestination, addRoute, eventDetail } from '../fixtures/setup';
import { eventually, type ReceivedRequest } from '../fixtures/sink';

const { call, sink } = gatewayWithSinkForFile();

const detail = (key: string, id: string) => eventDetail(call, key, id, '/v1/outbound-events');
const settled = (key: string, id: string) => eventually(() => detail(key, id), (d) => ['delivered', 'replayed'].includes(d.event.status));

/** The deliveries of one event (its own id in `X-Hookgate-Event-Id`) to one path. */
const deliveriesOf = (eventId: string, path: string): ReceivedRequest[] =>
  sink.received.filter((r) => r.path === path && r.headers['x-hookgate-event-id'] === eventId);

describe('a replayed copy keeps its original’s webhook id', () => {
  it('single replay, a replay of the copy, a bulk replay and a portal resend all carry the first event’s id, each signed with it', async () => {
    const { key } = await createAccount(call);
    const plain = await addDestination(call, key, { url: `${sink.url}/plain`, customer: 'cus_1' });
    const standard = await addDestination(call, key, { url: `${sink.url}/std`, customer: 'cus_1', signature_scheme: 'standard_webhooks' });
    await addRoute(call, key, { destination_id: plain.id });
    await addRoute(call, key, { destination_id: standard.id });

    const hookgate = typedClient(call, key);
    const { id: original } = await hookgate.outboundEvents.publish({ payload: '{"invoice":"in_1"}', customer: 'cus_1' });
    await settled(key, original);

    const { replay_event_id: copy } = await hookgate.outboundEvents.replay(original);
    await settled(key, copy);
    const { replay_event_id: chained } = await hookgate.outboundEvents.replay(copy);
    await settled(key, chained);

    const bulk = await call('POST', '/v1/replays', { key, body: { direction: 'outbound', status: ['delivered'] } });
    expect(bulk.status).toBe(202);
    const bulkCopy = (
      await eventually(() => detail(key, chained), (d) => d.event.replayed_by !== null)
    ).event.replayed_by as string;
    await settled(key, bulkCopy);

    const { secret } = await openPortalSession(call, key, 'cus_1');
    const resend = await call('POST', `/v1/portal/events/${bulkCopy}/resend`, {
      key: undefined,
      headers: { authorization: `Bearer ${secret}` },
      body: { endpoint_id: standard.id },
    });
    expect(resend.status).toBe(202);
    const resent = resend.json.data.event_id as string;
    await settled(key, resent);

    const copies = [copy, chained, bulkCopy, resent];
    for (const id of [original, ...copies]) {
      const { event } = await detail(key, id);
      expect(event.webhook_id, id).toBe(original);
      const paths = id === resent ? ['/std'] : ['/plain', '/std'];
      for (const path of paths) {
        const got = deliveriesOf(id, path);
        expect(got.length, `${id} ${path}`).toBe(1);
        expect(got[0]?.headers['x-webhook-id']).toBe(original);
      }
    }
    expect((await detail(key, copy)).event.replay_of).toBe(original);
    expect((await detail(key, chained)).event.replay_of).toBe(copy);
    expect((await detail(key, resent)).event.replay_of).toBe(bulkCopy);

    for (const got of sink.received.filter((r) => r.path === '/std')) {
      expect(got.headers['webhook-id']).toBe(original);
      const verified = new Webhook(standard.signing_secret).verify(got.body.toString('utf8'), {
        'webhook-id': String(got.headers['webhook-id']),
        'webhook-timestamp': String(got.headers['webhook-timestamp']),
        'webhook-signature': String(got.headers['webhook-signature']),
      });
      expect(verified).toEqual({ invoice: 'in_1' });
    }
    expect(sink.received.filter((r) => r.path === '/std')).toHaveLength(5);
  });
});
