import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { typedClient } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually, startSink } from '../fixtures/sink';

const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const { call, sink } = gatewayWithSinkForFile();

/** Stripe's own verifier (the Stripe SDK): throws unless the header signs the payload with the secret. */
function verifyLikeStripe(payload: string, header: string, secret: string): void {
  const signature = new Stripe('sk_test_unused').webhooks.signature;
  if (!signature) throw new Error('the Stripe SDK has no signature verifier');
  signature.verifyHeader(payload, header, secret, 300);
}
const settled = (status: string) => ['delivered', 'dead_letter', 'accepted'].includes(status);

async function waitSettled(key: string, id: string) {
  return eventually(() => eventDetail(call, key, id), (d) => settled(d.event.status));
}

describe('inbound delivery', () => {
  it('persists, answers 202 and delivers the exact body signed so a Stripe verifier accepts it', async () => {
    const { key, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/orders` });
    await addRoute(call, key, { destination_id: dest.id });
    const body = JSON.stringify({ id: 'evt_1', amount: 4200, note: 'café ☕' });

    const res = await ingest(call, source.path_token, body, {
      'x-event-type': 'payment.succeeded',
      authorization: 'Bearer provider-secret',
      cookie: 'session=abc',
      'x-api-key': 'k',
      'x-custom': 'kept',
    });
    expect(res.status).toBe(202);
    expect(res.json).toEqual({ data: { id: expect.any(String), status: 'queued' }, duration_ms: expect.any(Number) });
    const id = res.json.data.id as string;

    const got = (await sink.waitForPath('/orders', 1)).at(-1)!;
    expect(got.body.toString('utf8')).toBe(body);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-webhook-id']).toBe(id);
    expect(got.headers['x-event-type']).toBe('payment.succeeded');
    expect(got.headers['user-agent']).toBe(`hookgate/${PACKAGE_VERSION}`);
    expect(got.headers['webhook-id']).toBeUndefined();
    const signature = String(got.headers['webhook-signature']);
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(() => verifyLikeStripe(got.body.toString('utf8'), signature, dest.signing_secret)).not.toThrow();
    expect(() => verifyLikeStripe(got.body.toString('utf8'), signature, 'whsec_wrong')).toThrow();

    const detail = await waitSettled(key, id);
    expect(detail.event).toMatchObject({
      id,
      direction: 'inbound',
      source_id: source.id,
      event_type: 'payment.succeeded',
      body,
      body_encoding: 'utf8',
      payload_hash: `sha256:${(await import('node:crypto')).createHash('sha256').update(body).digest('hex')}`,
      status: 'delivered',
      attempts_count: 1,
      created_by: 'ingest',
    });
    const headers = detail.event.headers as Record<string, string>;
    expect(headers['x-custom']).toBe('kept');
    for (const dropped of ['authorization', 'cookie', 'x-api-key']) expect(headers).not.toHaveProperty(dropped);
    expect(detail.attempts).toEqual([
      {
        id: expect.any(String),
        event_id: id,
        destination_id: dest.id,
        attempt_number: 1,
        outcome: 'success',
        response_status: 200,
        response_body: 'ok',
        error: null,
        attempted_at: expect.any(String),
        duration_ms: expect.any(Number),
      },
    ]);
  });

  it('fans out to every destination of every matching route, once each, honouring wildcards and sources', async () => {
    const { key, source } = await accountWithSource(call);
    const other = await typedClient(call, key).sources.create({ name: 'other' });
    const a = await addDestination(call, key, { url: `${sink.url}/a` });
    const b = await addDestination(call, key, { url: `${sink.url}/b` });
    const never = await addDestination(call, key, { url: `${sink.url}/never` });
    await addRoute(call, key, { destination_id: a.id, event_type_pattern: 'order.*' });
    await addRoute(call, key, { destination_id: a.id }); // a second route to the same destination: still one delivery
    await addRoute(call, key, { destination_id: b.id, source_id: source.id, event_type_pattern: 'order.created' });
    await addRoute(call, key, { destination_id: never.id, source_id: other.id });
    await addRoute(call, key, { destination_id: never.id, event_type_pattern: 'invoice.*' });

    const res = await ingest(call, source.path_token, '{"n":1}', { 'x-event-type': 'order.created' });
    const detail = await waitSettled(key, res.json.data.id);
    expect(detail.event.status).toBe('delivered');
    expect(detail.attempts.map((x) => x.destination_id).sort()).toEqual([a.id, b.id].sort());
    expect(sink.received.filter((r) => r.path === '/never')).toHaveLength(0);
  });

  it('ends an event that matches no route as accepted', async () => {
    const { key, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/x` });
    await addRoute(call, key, { destination_id: dest.id, event_type_pattern: 'only.this' });
    const res = await ingest(call, source.path_token, '{}', { 'x-event-type': 'something.else' });
    expect(res.json.data.status).toBe('accepted');
    const detail = await eventDetail(call, key, res.json.data.id);
    expect(detail.event.status).toBe('accepted');
    expect(detail.attempts).toEqual([]);
  });

  it('tries 5 times on the schedule, then dead_letter, recording every attempt', async () => {
    const failing = await startSink((_req, res) => res.writeHead(500).end('boom'));
    try {
      const { key, source } = await accountWithSource(call);
      const dest = await addDestination(call, key, { url: `${failing.url}/down` });
      await addRoute(call, key, { destination_id: dest.id });
      const res = await ingest(call, source.path_token, '{"try":true}');
      const detail = await eventually(() => eventDetail(call, key, res.json.data.id), (d) => d.event.status === 'dead_letter', 30_000);
      expect(detail.event.attempts_count).toBe(5);
      expect(detail.attempts.map((x) => [x.attempt_number, x.outcome, x.response_status, x.response_body])).toEqual(
        [1, 2, 3, 4, 5].map((n) => [n, 'http_error', 500, 'boom']),
      );
      expect(failing.received).toHaveLength(5);
      const gaps = failing.received.slice(1).map((r, i) => r.at - failing.received[i]!.at);
      for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(900); // the scaled schedule: 1 s between tries
      // Every try carries the same event id, so consumers can de-duplicate.
      expect(new Set(failing.received.map((r) => r.headers['x-webhook-id']))).toEqual(new Set([res.json.data.id]));
    } finally {
      await failing.close();
    }
  });

  it('succeeds after two failures: retry_scheduled in between, delivered at the end', async () => {
    let calls = 0;
    const flaky = await startSink((_req, res) => {
      calls++;
      res.writeHead(calls <= 2 ? 503 : 200).end(calls <= 2 ? 'not yet' : 'fine');
    });
    try {
      const { key, source } = await accountWithSource(call);
      const dest = await addDestination(call, key, { url: flaky.url });
      await addRoute(call, key, { destination_id: dest.id });
      const res = await ingest(call, source.path_token, '{"flaky":true}');
      const seen = new Set<string>();
      const detail = await eventually(
        async () => {
          const d = await eventDetail(call, key, res.json.data.id);
          seen.add(d.event.status);
          return d;
        },
        (d) => d.event.status === 'delivered',
        20_000,
      );
      expect(seen.has('retry_scheduled')).toBe(true);
      expect(detail.event.attempts_count).toBe(3);
      expect(detail.attempts.map((x) => x.outcome)).toEqual(['http_error', 'http_error', 'success']);
    } finally {
      await flaky.close();
    }
  });
});

describe('delivery concurrency', () => {
  it('runs the deliveries of a batch at the same time, not one after another', async () => {
    // Every try is held open until five are open at once: delivered one after another, no second would
    // ever come. Held, the ten can all be open (max_in_flight 10, the poller's slots), whenever they
    // arrive; how many were open at most once released is the machine's speed, printed, not asserted.
    let inFlight = 0;
    let maxInFlight = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const slow = await startSink((_req, res) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      void released.then(() => {
        inFlight--;
        res.writeHead(200).end();
      });
    });
    try {
      const { key, source } = await accountWithSource(call);
      const dest = await addDestination(call, key, { url: slow.url });
      await addRoute(call, key, { destination_id: dest.id });
      await Promise.all(Array.from({ length: 10 }, (_, i) => ingest(call, source.path_token, JSON.stringify({ i }))));
      try {
        await eventually(async () => inFlight, (n) => n >= 5, 20_000);
      } finally {
        release();
      }
      await slow.waitFor(10);
      console.info(`delivery concurrency: at most ${maxInFlight} of 10 tries open at once`);
    } finally {
      await slow.close();
    }
  });
});

describe('signatures, auth and secret rotation', () => {
  it('signs with Standard Webhooks when the destination asks, verified by the standardwebhooks library', async () => {
    const { key, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/std`, signature_scheme: 'standard_webhooks' });
    await addRoute(call, key, { destination_id: dest.id });
    const res = await ingest(call, source.path_token, '{"std":1}');
    const got = (await sink.waitForPath('/std', 1)).at(-1)!;
    expect(got.headers['webhook-id']).toBe(res.json.data.id);
    const verified = new Webhook(dest.signing_secret).verify(got.body.toString('utf8'), {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    });
    expect(verified).toEqual({ std: 1 });
  });

  it('applies bearer or custom-header auth, and signs with both secrets during a rotation', async () => {
    const { key, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, {
      url: `${sink.url}/auth`,
      signing_secret: 'first-secret-value',
      auth: { type: 'header', name: 'X-Api-Token', value: 'tok-123' },
    });
    await addRoute(call, key, { destination_id: dest.id });
    const hookgate = typedClient(call, key);
    await hookgate.destinations.update(dest.id, { signing_secret: 'second-secret-value' });
    await ingest(call, source.path_token, '{"rot":1}');
    const got = (await sink.waitForPath('/auth', 1)).at(-1)!;
    expect(got.headers['x-api-token']).toBe('tok-123');
    const signature = String(got.headers['webhook-signature']);
    expect(signature.match(/v1=/g)).toHaveLength(2);
    for (const secret of ['first-secret-value', 'second-secret-value']) {
      expect(() => verifyLikeStripe(got.body.toString('utf8'), signature, secret)).not.toThrow();
    }

    await hookgate.destinations.update(dest.id, { auth: { type: 'bearer', token: 'bear-456' } });
    await ingest(call, source.path_token, '{"rot":2}');
    expect((await sink.waitForPath('/auth', 2)).at(-1)!.headers.authorization).toBe('Bearer bear-456');
  });
});

describe('ingest edge cases', () => {
  it('answers an unknown or malformed token with 401 and stores nothing', async () => {
    for (const token of ['A'.repeat(43), 'short', 'has%20space']) {
      const res = await ingest(call, token, '{}');
      expect(res.status).toBe(401);
      expect(res.json.error).toBe('Unauthorized');
    }
  });

  it('is idempotent on the provider delivery id: a repeat gets the same id and nothing new', async () => {
    const { key, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/idem` });
    await addRoute(call, key, { destination_id: dest.id });
    const first = await ingest(call, source.path_token, '{"a":1}', { 'x-github-delivery': 'gh-123' });
    const again = await ingest(call, source.path_token, '{"a":1}', { 'x-github-delivery': 'gh-123' });
    const parallel = await Promise.all(
      Array.from({ length: 5 }, () => ingest(call, source.path_token, '{"a":1}', { 'x-github-delivery': 'gh-123' })),
    );
    for (const res of [again, ...parallel]) {
      expect(res.status).toBe(202);
      expect(res.json.data.id).toBe(first.json.data.id);
    }
    await waitSettled(key, first.json.data.id);
    const list = await typedClient(call, key).events.list();
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ id: first.json.data.id, external_event_id: 'gh-123' });
    expect(sink.received.filter((r) => r.path === '/idem')).toHaveLength(1);

    const stripeStyle = await ingest(call, source.path_token, JSON.stringify({ id: 'evt_42', type: 'x' }), { 'stripe-signature': 't=1,v1=00' });
    const stripeAgain = await ingest(call, source.path_token, JSON.stringify({ id: 'evt_42', type: 'x' }), { 'stripe-signature': 't=1,v1=00' });
    expect(stripeAgain.json.data.id).toBe(stripeStyle.json.data.id);
  });

  it('delivers a 3 MB binary body byte for byte, and refuses one over 5 MB with 413', async () => {
    const { key, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/binary` });
    await addRoute(call, key, { destination_id: dest.id });
    const bytes = Buffer.alloc(3 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 256;
    const res = await ingest(call, source.path_token, bytes, { 'content-type': 'application/octet-stream' });
    expect(res.status).toBe(202);
    const got = (await sink.waitForPath('/binary', 1)).at(-1)!;
    expect(got.headers['content-type']).toBe('application/octet-stream');
    expect(got.body.equals(bytes)).toBe(true);
    const detail = await waitSettled(key, res.json.data.id);
    expect(detail.event.body_encoding).toBe('base64');
    expect(Buffer.from(String(detail.event.body), 'base64').equals(bytes)).toBe(true);

    const tooBig = await ingest(call, source.path_token, Buffer.alloc(5 * 1024 * 1024 + 1), { 'content-type': 'application/octet-stream' });
    expect(tooBig.status).toBe(413);
    expect(tooBig.json.error).toBe('request body too large');
  });
});

describe('events API and replay', () => {
  it('lists newest first with limit, cursor and filters', async () => {
    const { key, source } = await accountWithSource(call);
    const ids: string[] = [];
    for (const type of ['a.one', 'b.two', 'a.three']) {
      ids.push((await ingest(call, source.path_token, '{}', { 'x-event-type': type })).json.data.id);
    }
    const hookgate = typedClient(call, key);
    const all = await hookgate.events.list();
    expect(all.data.map((e) => e.id)).toEqual([...ids].reverse());
    expect(Object.keys(all.data[0]!).sort()).toEqual(
      ['account_id', 'attempts_count', 'created_at', 'direction', 'event_type', 'external_event_id', 'id', 'received_at', 'source_id', 'status', 'customer'].sort(),
    );
    expect(all.next_cursor).toBeNull();

    const first = await hookgate.events.list({ limit: 2 });
    expect(first.data.map((e) => e.id)).toEqual([ids[2], ids[1]]);
    const second = await hookgate.events.list({ limit: 2, cursor: first.next_cursor ?? undefined });
    expect(second.data.map((e) => e.id)).toEqual([ids[0]]);
    expect(second.next_cursor).toBeNull();

    const typed = await hookgate.events.list({ event_type: 'b.two' });
    expect(typed.data.map((e) => e.id)).toEqual([ids[1]]);
    const byStatus = await hookgate.events.list({ status: 'accepted' });
    expect(byStatus.data).toHaveLength(3);
    const bySource = await hookgate.events.list({ source_id: source.id, limit: 1 });
    expect(bySource.data).toHaveLength(1);

    for (const [query, message] of [
      ['limit=0', 'limit must be at least 1'],
      ['limit=201', 'limit must be at most 200'],
      ['limit=abc', 'limit must be a number'],
      ['status=lost', 'status must be one of: received, accepted, queued, delivering, delivered, retry_scheduled, dead_letter, replayed'],
      ['cursor=nonsense', 'invalid cursor'],
      ['source_id=xyz', 'invalid source_id'],
    ]) {
      const res = await call('GET', `/v1/events?${query}`, { key });
      expect(res.status, query).toBe(400);
      expect(res.json.error).toBe(message);
    }
  });

  it('replays a settled event as a new queued event; refuses a non-terminal one', async () => {
    // The first try is held open until the early replay has been refused, then answered: in flight for
    // as long as the check takes, however slow the machine. The replay's own try is answered at once.
    let answerFirst: () => void = () => undefined;
    const firstHeld = new Promise<void>((resolve) => (answerFirst = resolve));
    let tries = 0;
    const slow = await startSink((_req, res) => {
      const wait = tries++ === 0 ? firstHeld : Promise.resolve();
      void wait.then(() => res.writeHead(200).end('slow'));
    });
    try {
      const { key, source } = await accountWithSource(call);
      const dest = await addDestination(call, key, { url: `${slow.url}/r` });
      await addRoute(call, key, { destination_id: dest.id });
      const res = await ingest(call, source.path_token, '{"replay":1}', { 'x-event-type': 'r.t', 'x-extra': 'h' });
      const id = res.json.data.id as string;
      const inFlight = await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivering');
      expect(inFlight.event.status).toBe('delivering');
      const early = await call('POST', `/v1/events/${id}/replay`, { key });
      expect(early.status).toBe(400);
      expect(early.json.error).toBe('event is not in a terminal status');
      answerFirst();

      await waitSettled(key, id);
      const replay = await call('POST', `/v1/events/${id}/replay`, { key });
      expect(replay.status).toBe(202);
      expect(replay.json.data).toEqual({ original_event_id: id, replay_event_id: expect.any(String), status: 'queued' });
      const newId = replay.json.data.replay_event_id;
      expect(newId).not.toBe(id);
      const replayed = await eventually(() => eventDetail(call, key, newId), (d) => d.event.status === 'delivered');
      expect(replayed.event).toMatchObject({ body: '{"replay":1}', event_type: 'r.t', replay_of: id });
      expect((replayed.event.headers as Record<string, string>)['x-extra']).toBe('h');
      expect((await eventDetail(call, key, id)).event).toMatchObject({ status: 'replayed', replayed_by: newId });
      expect(slow.received.map((r) => r.headers['x-hookgate-event-id'])).toEqual([id, newId]);
      expect(slow.received.map((r) => r.headers['x-webhook-id'])).toEqual([id, id]);
    } finally {
      await slow.close();
    }
  });

  it('answers unknown, malformed and other accounts’ event ids with 404 / 400', async () => {
    const owner = await accountWithSource(call);
    const intruder = await accountWithSource(call);
    const id = (await ingest(call, owner.source.path_token, '{}')).json.data.id;
    for (const path of [`/v1/events/${id}`, `/v1/events/${id}/replay`]) {
      const method = path.endsWith('replay') ? 'POST' : 'GET';
      expect((await call(method, path, { key: intruder.key })).status).toBe(404);
    }
    expect((await call('GET', '/v1/events/0191a5e4-0000-7000-8000-000000000000', { key: owner.key })).status).toBe(404);
    expect((await call('GET', '/v1/events/nope', { key: owner.key })).json.error).toBe('invalid id');
    expect((await typedClient(call, intruder.key).events.list()).data).toEqual([]);
  });
});
