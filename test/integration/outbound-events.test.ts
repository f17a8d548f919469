import { createHash } from 'node:crypto';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { sqsClient } from '../../lambdas/adapters/aws-clients';
import { runningFunction } from '../../local/sdk-hooks';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { createAccount, typedClient } from '../fixtures/http-client';
import { addDestination, addRoute, eventDetail } from '../fixtures/setup';
import { eventually, startSink } from '../fixtures/sink';

const { call, sink } = gatewayWithSinkForFile();

const publish = (key: string, body: unknown) => call('POST', '/v1/outbound-events', { key, body });
const detail = (key: string, id: string) => eventDetail(call, key, id, '/v1/outbound-events');

describe('POST /v1/outbound-events', () => {
  it('answers 201 {id, status: queued} and delivers the payload as JSON, signed for a Stripe-style verifier', async () => {
    const { key } = await createAccount(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/out` });
    await addRoute(call, key, { destination_id: dest.id });
    const payload = JSON.stringify({ invoice: 'in_1', total: 999 });
    const res = await publish(key, { payload, event_type: 'invoice.paid' });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ data: { id: expect.any(String), status: 'queued' }, duration_ms: expect.any(Number) });

    const got = (await sink.waitForPath('/out', 1)).at(-1)!;
    expect(got.body.toString()).toBe(payload);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-webhook-id']).toBe(res.json.data.id);
    expect(got.headers['x-event-type']).toBe('invoice.paid');
    const verifier = new Stripe('sk_test_unused').webhooks.signature;
    expect(() => verifier?.verifyHeader(payload, String(got.headers['webhook-signature']), dest.signing_secret, 300)).not.toThrow();

    const shown = await eventually(() => detail(key, res.json.data.id), (d) => d.event.status === 'delivered');
    expect(shown.event).toMatchObject({
      id: res.json.data.id,
      direction: 'outbound',
      event_type: 'invoice.paid',
      body: payload,
      payload_hash: `sha256:${createHash('sha256').update(payload).digest('hex')}`,
      created_by: 'api',
      attempts_count: 1,
    });
    expect(shown.attempts).toHaveLength(1);
  });

  it.each([
    [{}, 'payload is required'],
    [{ payload: '' }, 'payload is required'],
    [{ payload: null }, 'payload is required'],
    [{ payload: 'x', event_type: 7 }, 'event_type must be a string'],
    [{ payload: 'x', external_event_id: '' }, 'external_event_id is required'],
    [{ payload: 'x', extra: true }, 'unknown field: extra'],
  ])('refuses %j with 400', async (body, message) => {
    const { key } = await createAccount(call);
    const res = await publish(key, body);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: message, duration_ms: expect.any(Number) });
  });

  it('takes any JSON value as the payload and delivers its JSON text; a string goes byte for byte', async () => {
    const { key } = await createAccount(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/json-values` });
    await addRoute(call, key, { destination_id: dest.id });
    const sent = new Map<string, string>();
    const cases: Array<[unknown, string]> = [
      [{ invoice: 'in_1' }, '{"invoice":"in_1"}'],
      [[1, 'two', { three: 3 }], '[1,"two",{"three":3}]'],
      [42.5, '42.5'],
      [false, 'false'],
      [{}, '{}'],
      // Not parsed and re-serialised: spaces, key order and escapes arrive as published.
      [String.raw`{ "b": 2, "a": "\u00e9\t" }`, String.raw`{ "b": 2, "a": "\u00e9\t" }`],
      ['plain text', 'plain text'],
    ];
    for (const [payload, body] of cases) {
      const res = await publish(key, { payload, event_type: 'value.sent' });
      expect(res.status, JSON.stringify(payload)).toBe(201);
      sent.set(res.json.data.id, body);
    }
    const got = await sink.waitForPath('/json-values', cases.length);
    expect(new Map(got.map((r) => [String(r.headers['x-webhook-id']), r.body.toString()]))).toEqual(sent);
    for (const r of got) expect(r.headers['content-type']).toBe('application/json');
  });

  it('answers 401 Unauthorized without a valid key', async () => {
    const res = await call('POST', '/v1/outbound-events', { body: { payload: 'x' } });
    expect(res.status).toBe(401);
    expect(res.json.error).toBe('Unauthorized');
  });

  it('routes by event_type', async () => {
    const { key } = await createAccount(call);
    const invoices = await addDestination(call, key, { url: `${sink.url}/invoices` });
    const orders = await addDestination(call, key, { url: `${sink.url}/orders-only` });
    await addRoute(call, key, { destination_id: invoices.id, event_type_pattern: 'invoice.*' });
    await addRoute(call, key, { destination_id: orders.id, event_type_pattern: 'order.created' });
    const hookgate = typedClient(call, key);
    const inv = await hookgate.outboundEvents.publish({ payload: '{"i":1}', event_type: 'invoice.paid' });
    const ord = await hookgate.outboundEvents.publish({ payload: '{"o":1}', event_type: 'order.created' });
    const none = await hookgate.outboundEvents.publish({ payload: '{"n":1}', event_type: 'customer.updated' });
    await eventually(() => detail(key, inv.id), (d) => d.event.status === 'delivered');
    await eventually(() => detail(key, ord.id), (d) => d.event.status === 'delivered');
    expect((await sink.waitForPath('/invoices', 1)).map((r) => r.headers['x-webhook-id'])).toEqual([inv.id]);
    expect((await sink.waitForPath('/orders-only', 1)).map((r) => r.headers['x-webhook-id'])).toEqual([ord.id]);
    expect(none.status).toBe('queued');
    expect((await detail(key, none.id)).event.status).toBe('accepted');
  });
});

describe('idempotency on external_event_id', () => {
  it('answers a repeat with 200 {id, status, duplicate: true} and delivers once', async () => {
    const { key } = await createAccount(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/dup` });
    await addRoute(call, key, { destination_id: dest.id });
    const first = await publish(key, { payload: '{"a":1}', external_event_id: 'order-1' });
    expect(first.status).toBe(201);
    const again = await publish(key, { payload: '{"a":1}', external_event_id: 'order-1' });
    expect(again.status).toBe(200);
    expect(again.json.data).toEqual({ id: first.json.data.id, status: expect.any(String), duplicate: true });
    await eventually(() => detail(key, first.json.data.id), (d) => d.event.status === 'delivered');
    expect(sink.received.filter((r) => r.path === '/dup')).toHaveLength(1);
  });

  it('keeps exactly one event under 20 parallel duplicate publishes', async () => {
    const { key } = await createAccount(call);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => publish(key, { payload: '{"p":1}', external_event_id: 'race-1' })),
    );
    const created = results.filter((r) => r.status === 201);
    const duplicates = results.filter((r) => r.status === 200);
    expect(created).toHaveLength(1);
    expect(duplicates).toHaveLength(19);
    for (const dup of duplicates) expect(dup.json.data).toMatchObject({ id: created[0]!.json.data.id, duplicate: true });
    const list = await typedClient(call, key).outboundEvents.list();
    expect(list.data.map((e) => e.id)).toEqual([created[0]!.json.data.id]);
  });

  it('scopes the key to the account: another account may use the same external id', async () => {
    const a = await createAccount(call);
    const b = await createAccount(call);
    expect((await publish(a.key, { payload: 'x', external_event_id: 'shared' })).status).toBe(201);
    expect((await publish(b.key, { payload: 'x', external_event_id: 'shared' })).status).toBe(201);
  });
});

describe('list, detail and replay', () => {
  it('lists the 50 newest with exactly the spec’s fields, newest first', async () => {
    const { key } = await createAccount(call);
    const ids: string[] = [];
    const hookgate = typedClient(call, key);
    for (let i = 0; i < 52; i++) ids.push((await hookgate.outboundEvents.publish({ payload: String(i), event_type: 't' })).id);
    const list = await call('GET', '/v1/outbound-events', { key });
    expect(list.status).toBe(200);
    expect(list.json.data).toHaveLength(50);
    expect(list.json.data[0].id).toBe(ids[51]);
    expect(Object.keys(list.json.data[0]).sort()).toEqual(
      ['id', 'account_id', 'direction', 'event_type', 'external_event_id', 'status', 'attempts_count', 'received_at', 'created_at', 'source_id', 'customer'].sort(),
    );
    expect(list.json.data[0].direction).toBe('outbound');
    const rest = await hookgate.outboundEvents.list({ cursor: list.json.next_cursor });
    expect(rest.data.map((e) => e.id)).toEqual([ids[1], ids[0]]);
    // Inbound and outbound lists are separate.
    expect((await hookgate.events.list()).data).toEqual([]);
    expect((await call('GET', `/v1/events/${ids[0]}`, { key })).status).toBe(404);
  });

  it('replays a terminal event: 202, the original becomes replayed, the copy is delivered', async () => {
    const { key } = await createAccount(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/replay-out` });
    await addRoute(call, key, { destination_id: dest.id });
    const original = (await typedClient(call, key).outboundEvents.publish({ payload: '{"r":1}', event_type: 'x.y' })).id;
    await eventually(() => detail(key, original), (d) => d.event.status === 'delivered');
    const replay = await call('POST', `/v1/outbound-events/${original}/replay`, { key });
    expect(replay.status).toBe(202);
    expect(replay.json.data).toEqual({ original_event_id: original, replay_event_id: expect.any(String), status: 'queued' });
    const copy = await eventually(() => detail(key, replay.json.data.replay_event_id), (d) => d.event.status === 'delivered');
    expect(copy.event).toMatchObject({ body: '{"r":1}', event_type: 'x.y', created_by: 'api', direction: 'outbound' });
    expect((await detail(key, original)).event.status).toBe('replayed');
    expect((await sink.waitForPath('/replay-out', 2)).map((r) => r.body.toString())).toEqual(['{"r":1}', '{"r":1}']);
  });

  it('refuses to replay a non-terminal event (400) and unknown or foreign ids (404)', async () => {
    const hanging = await startSink(() => undefined); // never answers: the try stays in flight
    try {
      const { key } = await createAccount(call);
      const dest = await addDestination(call, key, { url: hanging.url, timeout_ms: 5000 });
      await addRoute(call, key, { destination_id: dest.id });
      const { id } = await typedClient(call, key).outboundEvents.publish({ payload: '{}' });
      const res = await call('POST', `/v1/outbound-events/${id}/replay`, { key });
      expect(res.status).toBe(400);
      expect(res.json.error).toBe('event is not in a terminal status');
      const stranger = await createAccount(call);
      expect((await call('POST', `/v1/outbound-events/${id}/replay`, { key: stranger.key })).status).toBe(404);
      expect((await call('GET', `/v1/outbound-events/${id}`, { key: stranger.key })).status).toBe(404);
      expect((await call('POST', '/v1/outbound-events/0191a5e4-0000-7000-8000-000000000000/replay', { key })).status).toBe(404);
      expect((await call('POST', '/v1/outbound-events/not-a-uuid/replay', { key })).status).toBe(400);
    } finally {
      await hanging.close();
    }
  });
});

describe('POST /v1/outbound-events/batch', () => {
  it('publishes up to 100 events in one call, each answered like the single call', async () => {
    const { key } = await createAccount(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/batch` });
    await addRoute(call, key, { destination_id: dest.id });
    const res = await call('POST', '/v1/outbound-events/batch', {
      key,
      body: {
        events: [
          { payload: '{"b":1}', event_type: 'b.one', external_event_id: 'b-1' },
          { payload: '' },
          { payload: '{"b":3}' },
          { payload: '{"b":1}', external_event_id: 'b-1' },
          { payload: { b: 5 } },
          { payload: null },
          {},
        ],
      },
    });
    expect(res.status).toBe(200);
    const [one, bad, three, dup, object, nothing, absent] = res.json.data;
    expect(one).toEqual({ status: 201, data: { id: expect.any(String), status: 'queued' } });
    expect(bad).toEqual({ status: 400, error: 'payload is required' });
    expect(three).toEqual({ status: 201, data: { id: expect.any(String), status: 'queued' } });
    expect(dup).toEqual({ status: 200, data: { id: one.data.id, status: expect.any(String), duplicate: true } });
    expect(object).toEqual({ status: 201, data: { id: expect.any(String), status: 'queued' } });
    expect(nothing).toEqual({ status: 400, error: 'payload is required' });
    expect(absent).toEqual({ status: 400, error: 'payload is required' });
    expect((await sink.waitForPath('/batch', 3)).map((r) => r.body.toString()).sort()).toEqual(['{"b":1}', '{"b":3}', '{"b":5}']);

    const hundred = Array.from({ length: 100 }, (_, i) => ({ payload: String(i) }));
    const full = await call('POST', '/v1/outbound-events/batch', { key, body: { events: hundred } });
    expect(full.status).toBe(200);
    expect(full.json.data.every((r: { status: number }) => r.status === 201)).toBe(true);
  });

  it('sends the delivery tasks of a batch together: one SendMessageBatch per ten, and every event arrives', async () => {
    const { key, accountId } = await createAccount(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/together` });
    await addRoute(call, key, { destination_id: dest.id });
    // Counts this account's sends on the api handler's own SQS client (the module instance the gateway loaded).
    let sends = 0;
    const client = sqsClient();
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const entries = (args.input as { Entries?: Array<{ MessageBody?: string }> }).Entries ?? [];
        // The api function's own: deliveries of the same account run in this process too (a parked
        // one's slot check, a release), on the same client.
        if (context.commandName === 'SendMessageBatchCommand' && runningFunction() === 'hookgate-api' && entries.some((e) => e.MessageBody?.includes(accountId))) sends++;
        return next(args);
      },
      { step: 'initialize', name: 'countBatchSends' },
    );
    let res;
    try {
      res = await call('POST', '/v1/outbound-events/batch', { key, body: { events: Array.from({ length: 25 }, (_, i) => ({ payload: `{"n":${i}}` })) } });
    } finally {
      client.middlewareStack.remove('countBatchSends');
    }
    expect(res.status).toBe(200);
    expect(sends).toBe(3);
    const bodies = (await sink.waitForPath('/together', 25)).map((r) => r.body.toString());
    expect(new Set(bodies).size).toBe(25);
  });

  it.each([
    [{}, 'events is required'],
    [{ events: [] }, 'events must contain at least 1 item(s)'],
    [{ events: Array.from({ length: 101 }, () => ({ payload: 'x' })) }, 'events must contain at most 100 items'],
    [{ events: 'x' }, 'events must be an array'],
  ])('refuses %j with 400', async (body, message) => {
    const { key } = await createAccount(call);
    const res = await call('POST', '/v1/outbound-events/batch', { key, body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(message);
  });
});
