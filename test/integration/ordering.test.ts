import { CreateQueueCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { sqsClient } from '../../lambdas/adapters/aws-clients';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../../local/aws-clients';
import { newId } from '../../lambdas/shared/secrets';
import { joinLine } from '../../lambdas/store/ordering-lines';
import { hashOrderingKey } from '../../lambdas/events/subject-index';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { addDestination, addRoute, accountWithSource, eventDetail, ingest } from '../fixtures/setup';
import { eventually, type ReceivedRequest } from '../fixtures/sink';
import { typedClient, type Call } from '../fixtures/http-client';

// Ordered delivery per key, through real HTTP: a `per_key` destination tries each ordering key's
// events one after the other, in the order they were accepted, while other keys and unkeyed events
// flow. The sink tells the events apart by their payload and fails what each test says.

const FIFO_QUEUE = 'ordered-keys.fifo';
// The deliver role's grant for the FIFO queue (docs/aws-destinations.md), as an operator would list it.
// A short missing-event grace: a line's head whose accept died is given up twice that long after it joined.
const GRACE_SECONDS = 10;
/**
 * When a dead accept's place joined: long enough ago that it is given up `leftMs` from now. Its line
 * cannot tell a place left earlier from one left now, so the tests need not wait out the whole grace;
 * what is left is ample for a delivery to be seen waiting behind it first.
 */
const joinedBefore = (leftMs = 6_000) => Date.now() - 2 * GRACE_SECONDS * 1000 + leftMs;
const { call, sink } = gatewayWithSinkForFile({ HOOKGATE_MISSING_EVENT_GRACE_SECONDS: String(GRACE_SECONDS) }, { stack: { awsDestinationTargets: [`arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${FIFO_QUEUE}`] } });

type Payload = { key?: string; n: number; test: string };

const publish = (key: string, body: unknown) => call('POST', '/v1/outbound-events', { key, body });
const detail = (key: string, id: string) => eventDetail(call, key, id, '/v1/outbound-events');
const payloadOf = (request: ReceivedRequest) => JSON.parse(request.body.toString('utf8')) as Payload;

/** An account with one route to a `per_key` destination at `path` of the sink. */
async function orderedDestination(c: Call, path: string, retrySchedule: number[]) {
  const { key, accountId, source } = await accountWithSource(c);
  const destination = await addDestination(c, key, { url: `${sink.url}${path}`, ordering: 'per_key', retry_schedule: retrySchedule });
  await addRoute(c, key, { destination_id: destination.id });
  return { key, accountId, source, destination };
}

async function published(key: string, payload: Payload, orderingKey?: string): Promise<string> {
  const res = await publish(key, { payload, ...(orderingKey && { ordering_key: orderingKey }) });
  expect(res.status).toBe(201);
  return res.json.data.id as string;
}

describe('ordered delivery per key', () => {
  it('holds a failing event’s own key only: its later events wait, in order, while other keys and unkeyed events go', async () => {
    const path = '/ordered';
    const { key, destination } = await orderedDestination(call, path, [0, 2, 2]);
    let a1Tries = 0;
    // a1's first try is held open until key b and the unkeyed event were delivered: they went while a1
    // was failing, however slow the machine, and would never go if they waited behind it.
    let releaseA1!: () => void;
    const a1Held = new Promise<void>((resolve) => (releaseA1 = resolve));
    sink.respondWith((request, res) => {
      const payload = request.path === path ? payloadOf(request) : undefined;
      // The receiver fails key a's first event twice.
      if (payload?.test === 'order' && payload.key === 'a' && payload.n === 1 && ++a1Tries <= 2) {
        if (a1Tries === 1) return void a1Held.then(() => res.writeHead(503).end('not yet'));
        return res.writeHead(503).end('not yet');
      }
      res.writeHead(200).end('ok');
    });

    const a1 = await published(key, { test: 'order', key: 'a', n: 1 }, 'a');
    const a2 = await published(key, { test: 'order', key: 'a', n: 2 }, 'a');
    const a3 = await published(key, { test: 'order', key: 'a', n: 3 }, 'a');
    const b1 = await published(key, { test: 'order', key: 'b', n: 1 }, 'b');
    const b2 = await published(key, { test: 'order', key: 'b', n: 2 }, 'b');
    const u1 = await published(key, { test: 'order', n: 1 });

    // While a1 fails, a2 waits behind it, and says so.
    const waiting = await eventually(
      () => detail(key, a2),
      (d) => d.event.deliveries[0]?.waiting?.reason === 'ordering',
    );
    expect(waiting.event.ordering_key).toBe('a');
    expect(waiting.event.deliveries[0]).toMatchObject({ destination_id: destination.id, status: 'queued', attempts: 0, waiting: { reason: 'ordering', until: null, behind: a1 } });

    try {
      for (const id of [b1, b2, u1]) await eventually(() => detail(key, id), (d) => d.event.status === 'delivered', 20_000);
    } finally {
      releaseA1();
    }
    for (const id of [a1, a2, a3]) await eventually(() => detail(key, id), (d) => d.event.status === 'delivered', 20_000);

    const tries = sink.received.filter((r) => r.path === path).map(payloadOf).filter((p) => p.test === 'order');
    const aTries = tries.filter((p) => p.key === 'a').map((p) => p.n);
    // Key a in order, a2 never before a1 succeeded (its third try), each of the others once.
    expect(aTries).toEqual([1, 1, 1, 2, 3]);
    const a1Success = tries.findIndex((p, i) => p.key === 'a' && p.n === 1 && tries.slice(0, i).filter((q) => q.key === 'a' && q.n === 1).length === 2);
    const indexOf = (k: string | undefined, n: number) => tries.findIndex((p) => p.key === k && p.n === n);
    // Key b and the unkeyed event went while a1 was failing.
    for (const [k, n] of [['b', 1], ['b', 2], [undefined, 1]] as const) expect(indexOf(k, n)).toBeLessThan(a1Success);
    expect(indexOf('b', 1)).toBeLessThan(indexOf('b', 2));
    expect((await detail(key, a1)).event.attempts_count).toBe(3);
    expect((await detail(key, a2)).event.attempts_count).toBe(1);
  });

  it('puts a replay at the end of its key’s line', async () => {
    const path = '/ordered-replay';
    const { key } = await orderedDestination(call, path, [0, 1, 1, 1, 1]);
    let open = false;
    sink.respondWith((request, res) => {
      const payload = request.path === path ? payloadOf(request) : undefined;
      // c2 fails until the test lets it through.
      if (payload?.test === 'replay' && payload.n === 2 && !open) return res.writeHead(503).end('not yet');
      res.writeHead(200).end('ok');
    });

    const c1 = await published(key, { test: 'replay', key: 'c', n: 1 }, 'c');
    await eventually(() => detail(key, c1), (d) => d.event.status === 'delivered');
    const c2 = await published(key, { test: 'replay', key: 'c', n: 2 }, 'c');
    await eventually(() => detail(key, c2), (d) => d.event.attempts_count >= 1);

    const replay = await call('POST', `/v1/outbound-events/${c1}/replay`, { key });
    expect(replay.status).toBe(202);
    const copy = replay.json.data.replay_event_id as string;
    const waiting = await eventually(() => detail(key, copy), (d) => d.event.deliveries[0]?.waiting?.reason === 'ordering');
    expect(waiting.event.ordering_key).toBe('c');
    expect(waiting.event.deliveries[0]?.waiting).toEqual({ reason: 'ordering', until: null, behind: c2 });

    open = true;
    await eventually(() => detail(key, copy), (d) => d.event.status === 'delivered', 20_000);
    const tries = sink.received.filter((r) => r.path === path).map(payloadOf);
    const lastC2 = tries.map((p) => p.n).lastIndexOf(2);
    // The copy (c1's payload again) went only after c2 was delivered.
    expect(tries.slice(lastC2 + 1).map((p) => p.n)).toEqual([1]);
    expect(tries.slice(0, lastC2).filter((p) => p.n === 1)).toHaveLength(1);
  });

  it('keeps a batch’s events of one key in the batch’s order', async () => {
    const path = '/ordered-batch';
    const { key } = await orderedDestination(call, path, [0]);
    sink.respondWith((_request, res) => res.writeHead(200).end('ok'));
    const events = Array.from({ length: 12 }, (_, n) => ({ payload: { test: 'batch', key: n % 2 ? 'odd' : 'even', n }, ordering_key: n % 2 ? 'odd' : 'even' }));
    // Through the TypeScript client: its generated types carry `ordering_key`.
    const results = await typedClient(call, key).outboundEvents.batch(events);
    const ids = results.map((item) => (item.status === 201 ? item.data.id : ''));
    expect(ids.every(Boolean)).toBe(true);
    for (const id of ids) await eventually(() => detail(key, id), (d) => d.event.status === 'delivered');
    const tries = sink.received.filter((r) => r.path === path).map(payloadOf);
    for (const k of ['even', 'odd']) {
      const ns = tries.filter((p) => p.key === k).map((p) => p.n);
      expect(ns).toEqual([...ns].sort((x, y) => x - y));
      expect(ns).toHaveLength(6);
    }
  });

  it('reads an inbound event’s key with its source’s pointer, and orders inbound events by it', async () => {
    const path = '/ordered-inbound';
    // Its route names no source: it takes every source's events.
    const { key, source } = await orderedDestination(call, path, [0, 2]);
    const changed = await call('PATCH', `/v1/sources/${source.id}`, { key, body: { ordering_key_pointer: '/customer/id' } });
    expect(changed.status).toBe(200);
    expect(changed.json.data.ordering_key_pointer).toBe('/customer/id');
    let firstTries = 0;
    sink.respondWith((request, res) => {
      const payload = request.path === path ? (JSON.parse(request.body.toString('utf8')) as { n?: number }) : undefined;
      // The first webhook fails once.
      if (payload?.n === 1 && ++firstTries === 1) return res.writeHead(503).end('not yet');
      res.writeHead(200).end('ok');
    });

    const ingested = async (body: unknown) => (await ingest(call, source.path_token, JSON.stringify(body))).json.data.id as string;
    const first = await ingested({ n: 1, customer: { id: 'cus_7' } });
    const second = await ingested({ n: 2, customer: { id: 'cus_7' } });
    const numbered = await ingested({ n: 3, customer: { id: 42 } });
    const unkeyed = await ingested({ n: 4, customer: { id: { nested: true } } });
    expect((await eventDetail(call, key, first)).event.ordering_key).toBe('cus_7');
    expect((await eventDetail(call, key, numbered)).event.ordering_key).toBe('42');
    expect((await eventDetail(call, key, unkeyed)).event.ordering_key).toBeNull();

    const waiting = await eventually(() => eventDetail(call, key, second), (d) => d.event.deliveries[0]?.waiting?.reason === 'ordering');
    expect(waiting.event.deliveries[0]?.waiting).toEqual({ reason: 'ordering', until: null, behind: first });
    for (const id of [first, second]) await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered');
    const ns = sink.received.filter((r) => r.path === path).map((r) => (JSON.parse(r.body.toString('utf8')) as { n: number }).n);
    expect(ns.filter((n) => n <= 2)).toEqual([1, 1, 2]);
  });

  it('releases the next of a line when a delivery ends without a try (its destination deleted)', async () => {
    const path = '/ordered-deleted';
    const { key, destination } = await orderedDestination(call, path, [0, 3]);
    sink.respondWith((request, res) => (request.path === path ? res.writeHead(503).end('down') : res.writeHead(200).end('ok')));
    const d1 = await published(key, { test: 'deleted', n: 1 }, 'd');
    const d2 = await published(key, { test: 'deleted', n: 2 }, 'd');
    await eventually(() => detail(key, d1), (d) => d.event.attempts_count === 1);
    await eventually(() => detail(key, d2), (d) => d.event.deliveries[0]?.waiting?.reason === 'ordering');
    expect((await call('DELETE', `/v1/destinations/${destination.id}`, { key })).status).toBe(204);
    for (const id of [d1, d2]) {
      const ended = await eventually(() => detail(key, id), (d) => d.event.status === 'dead_letter');
      expect(ended.event.deliveries[0]).toMatchObject({ status: 'dead_letter', end_reason: 'destination_deleted', waiting: null });
    }
    expect((await detail(key, d2)).event.attempts_count).toBe(0);
  });

  it('refuses bad ordering keys, orderings and pointers with 400', async () => {
    const { key, source } = await accountWithSource(call);
    const bad: Array<[unknown, string]> = [
      ['', 'ordering_key must be 1 to 128 characters'],
      ['x'.repeat(129), 'ordering_key must be 1 to 128 characters'],
      ['has space', 'ordering_key must be visible characters only (no spaces or control characters)'],
      ['tab\there', 'ordering_key must be visible characters only (no spaces or control characters)'],
      [7, 'ordering_key must be a string'],
    ];
    for (const [orderingKey, error] of bad) {
      const res = await publish(key, { payload: { n: 1 }, ordering_key: orderingKey });
      expect(res.status, String(orderingKey)).toBe(400);
      expect(res.json.error).toBe(error);
    }
    // 128 visible characters, any script, is a key.
    expect((await publish(key, { payload: { n: 1 }, ordering_key: 'é'.repeat(128) })).status).toBe(201);
    const batch = await call('POST', '/v1/outbound-events/batch', { key, body: { events: [{ payload: 'x', ordering_key: 'a b' }, { payload: 'y', ordering_key: 'ok' }] } });
    expect(batch.json.data.map((item: { status: number }) => item.status)).toEqual([400, 201]);
    expect(batch.json.data[0].error).toBe('ordering_key must be visible characters only (no spaces or control characters)');

    const destination = await call('POST', '/v1/destinations', { key, body: { name: 'd', url: `${sink.url}/x`, ordering: 'fifo' } });
    expect(destination.status).toBe(400);
    expect(destination.json.error).toMatch(/^ordering must be one of/);
    for (const pointer of ['customer/id', '/a~2b']) {
      const res = await call('PATCH', `/v1/sources/${source.id}`, { key, body: { ordering_key_pointer: pointer } });
      expect(res.status, pointer).toBe(400);
      expect(res.json.error).toBe('ordering_key_pointer must be a JSON pointer (RFC 6901) such as /customer/id');
    }
  });

  it('gives an SQS FIFO target the ordering key as the message group (the destination’s for an unkeyed event)', async () => {
    const { key } = await accountWithSource(call);
    const { QueueUrl: queueUrl } = await sqsClient().send(new CreateQueueCommand({ QueueName: FIFO_QUEUE, Attributes: { FifoQueue: 'true' } }));
    if (!queueUrl) throw new Error('no queue');
    const destination = await addDestination(call, key, { type: 'aws_sqs', config: { queue_url: queueUrl } });
    await addRoute(call, key, { destination_id: destination.id });
    const keyed = await published(key, { test: 'fifo', n: 1 }, 'cus_9');
    const unkeyed = await published(key, { test: 'fifo', n: 2 });
    const messages: Message[] = [];
    await eventually(
      async () => {
        const out = await sqsClient().send(new ReceiveMessageCommand({ QueueUrl: queueUrl, AttributeNames: ['All'], MessageAttributeNames: ['All'], MaxNumberOfMessages: 10 }));
        messages.push(...(out.Messages ?? []));
        return messages.length;
      },
      (n) => n >= 2,
    );
    const groupOf = (id: string) => messages.find((m) => m.MessageAttributes?.['x-hookgate-event-id']?.StringValue === id)?.Attributes?.MessageGroupId;
    expect(groupOf(keyed)).toBe('cus_9');
    expect(groupOf(unkeyed)).toBe(destination.id);
  });

  it('gives up a line’s head whose accept died, once its event can no longer be written', async () => {
    const path = '/ordered-orphan';
    const { key, accountId, destination } = await orderedDestination(call, path, [0]);
    sink.respondWith((_request, res) => res.writeHead(200).end('ok'));
    // What an accept that died after joining leaves: a place whose event is never written.
    const orphan = newId();
    await joinLine(accountId, destination.id, await hashOrderingKey(accountId, 'o'), orphan, joinedBefore(), Math.floor(Date.now() / 1000) + 3600);
    const o1 = await published(key, { test: 'orphan', n: 1 }, 'o');
    const waiting = await eventually(() => detail(key, o1), (d) => d.event.deliveries[0]?.waiting?.reason === 'ordering');
    expect(waiting.event.deliveries[0]?.waiting).toEqual({ reason: 'ordering', until: null, behind: orphan });
    const delivered = await eventually(() => detail(key, o1), (d) => d.event.status === 'delivered', 4 * GRACE_SECONDS * 1000);
    expect(delivered.event.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 1, waiting: null });
  });

  it('releases past a place whose accept died behind the head: the delivery after it goes once that place is given up', async () => {
    const path = '/ordered-orphan-behind';
    const { key, accountId, destination } = await orderedDestination(call, path, [0, 1]);
    let firstTries = 0;
    sink.respondWith((request, res) => {
      // The head's first try fails, so the dead accept's place joins behind it while it waits.
      if (request.path === path && payloadOf(request).n === 1 && ++firstTries === 1) return res.writeHead(503).end('not yet');
      res.writeHead(200).end('ok');
    });
    const p1 = await published(key, { test: 'orphan-behind', n: 1 }, 'p');
    await eventually(() => detail(key, p1), (d) => d.event.deliveries[0]?.waiting?.reason === 'retry');
    const orphan = newId();
    await joinLine(accountId, destination.id, await hashOrderingKey(accountId, 'p'), orphan, joinedBefore(), Math.floor(Date.now() / 1000) + 3600);
    const p2 = await published(key, { test: 'orphan-behind', n: 2 }, 'p');
    await eventually(() => detail(key, p1), (d) => d.event.status === 'delivered');
    // p1's release found the dead accept's place next: p2 goes once that place is given up, not never.
    const delivered = await eventually(() => detail(key, p2), (d) => d.event.status === 'delivered', 4 * GRACE_SECONDS * 1000);
    expect(delivered.event.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 1, waiting: null });
    expect(sink.received.filter((r) => r.path === path).map((r) => payloadOf(r).n)).toEqual([1, 1, 2]);
  });
});
