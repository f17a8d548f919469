import { describe, expect, it, vi } from 'vitest';
import { eventPartition } from '../../lambdas/events/record';
import { updateItem } from '../../lambdas/store/table';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { createAccount, typedClient } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually, type ReceivedRequest } from '../fixtures/sink';

const { call, sink } = gatewayWithSinkForFile();

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A delivered request's `traceparent`, split; it must be one valid version-00 header (two would be joined by a comma). */
function traceOfDelivery(request: ReceivedRequest) {
  const header = request.headers.traceparent;
  expect(typeof header, 'one traceparent header').toBe('string');
  const match = TRACEPARENT.exec(header as string);
  expect(match, String(header)).not.toBeNull();
  const [, traceId = '', spanId = '', flags = ''] = match ?? [];
  expect(traceId).not.toMatch(/^0+$/);
  expect(spanId).not.toMatch(/^0+$/);
  return { traceId, spanId, flags };
}

/** Paths under /flaky answer their first request 500 and every later one 200. */
const seen = new Set<string>();
const flakyThenOk = () =>
  sink.respondWith((req, res) => {
    const first = req.path.startsWith('/flaky') && !seen.has(req.path);
    seen.add(req.path);
    res.writeHead(first ? 500 : 200).end();
  });

async function publisher(path: string) {
  const { key } = await createAccount(call);
  const destination = await addDestination(call, key, { url: `${sink.url}${path}` });
  await addRoute(call, key, { destination_id: destination.id });
  return key;
}

const publish = (key: string, headers: Record<string, string> = {}, payload = '{"n":1}') =>
  call('POST', '/v1/outbound-events', { key, headers, body: { payload } });

describe('W3C trace context', () => {
  it('a published traceparent: each try carries its trace id and flags with a span of its own, and the detail shows the trace', async () => {
    flakyThenOk();
    const key = await publisher('/flaky/published');
    const published = await publish(key, { traceparent: `00-${TRACE}-${SPAN}-00` });
    expect(published.status).toBe(201);
    const id = published.json.data.id as string;

    const tries = await sink.waitForPath('/flaky/published', 2);
    const [first, second] = tries.map(traceOfDelivery);
    expect(first?.traceId).toBe(TRACE);
    expect(second?.traceId).toBe(TRACE);
    expect(first?.flags).toBe('00');
    expect(second?.flags).toBe('00');
    expect(first?.spanId).not.toBe(SPAN);
    expect(second?.spanId).not.toBe(SPAN);
    expect(first?.spanId).not.toBe(second?.spanId);

    const detail = await eventually(() => eventDetail(call, key, id, '/v1/outbound-events'), (d) => d.event.status === 'delivered');
    expect(detail.event.trace_id).toBe(TRACE);
    expect(detail.attempts).toHaveLength(2);
  });

  it('a replayed copy stays in its original’s trace, with new spans', async () => {
    const key = await publisher('/replayed');
    const id = (await publish(key, { traceparent: `00-${TRACE}-${SPAN}-01` })).json.data.id as string;
    await eventually(() => eventDetail(call, key, id, '/v1/outbound-events'), (d) => d.event.status === 'delivered');
    const { replay_event_id: copy } = await typedClient(call, key).outboundEvents.replay(id);
    const tries = (await sink.waitForPath('/replayed', 2)).map(traceOfDelivery);
    expect(tries.map((t) => t.traceId)).toEqual([TRACE, TRACE]);
    expect(new Set([SPAN, ...tries.map((t) => t.spanId)]).size).toBe(3);
    expect((await eventDetail(call, key, copy, '/v1/outbound-events')).event.trace_id).toBe(TRACE);
  });

  it('an event stored before traces were kept: its trace is made from its id, and a replay keeps it', async () => {
    const { key, accountId } = await createAccount(call);
    const destination = await addDestination(call, key, { url: `${sink.url}/legacy` });
    await addRoute(call, key, { destination_id: destination.id });
    const id = (await publish(key)).json.data.id as string;
    await eventually(() => eventDetail(call, key, id, '/v1/outbound-events'), (d) => d.event.status === 'delivered');
    // As an older version wrote it: a body item without a trace.
    await updateItem({ pk: eventPartition(accountId, id), sk: 'BODY' }, { remove: ['trace'] });

    const fromId = id.replaceAll('-', '');
    expect((await eventDetail(call, key, id, '/v1/outbound-events')).event.trace_id).toBe(fromId);
    const { replay_event_id: copy } = await typedClient(call, key).outboundEvents.replay(id);
    const [, replayed] = await sink.waitForPath('/legacy', 2);
    expect(traceOfDelivery(replayed as ReceivedRequest).traceId).toBe(fromId);
    expect((await eventDetail(call, key, copy, '/v1/outbound-events')).event.trace_id).toBe(fromId);
  });

  it('an ingested traceparent is the delivery’s trace, sent once; the stored headers keep it as received', async () => {
    const { key, source } = await accountWithSource(call);
    const destination = await addDestination(call, key, { url: `${sink.url}/ingested` });
    await addRoute(call, key, { destination_id: destination.id });
    const sent = `00-${TRACE}-${SPAN}-01`;
    const answer = await ingest(call, source.path_token, '{"n":2}', { traceparent: sent });
    expect(answer.status).toBe(202);

    const [delivered] = await sink.waitForPath('/ingested', 1);
    const trace = traceOfDelivery(delivered as ReceivedRequest);
    expect(trace).toMatchObject({ traceId: TRACE, flags: '01' });
    expect(trace.spanId).not.toBe(SPAN);
    const { event } = await eventDetail(call, key, answer.json.data.id as string);
    expect(event.trace_id).toBe(TRACE);
    expect(event.headers.traceparent).toBe(sent);
  });

  it('without a traceparent Hookgate starts a sampled trace, a new one per event', async () => {
    const key = await publisher('/untraced');
    const ids = [(await publish(key)).json.data.id as string, (await publish(key, {}, '{"n":2}')).json.data.id as string];
    const tries = (await sink.waitForPath('/untraced', 2)).map(traceOfDelivery);
    expect(tries.map((t) => t.flags)).toEqual(['01', '01']);
    expect(tries[0]?.traceId).not.toBe(tries[1]?.traceId);
    const shown = await Promise.all(ids.map(async (id) => (await eventDetail(call, key, id, '/v1/outbound-events')).event.trace_id));
    expect(shown.sort()).toEqual(tries.map((t) => t.traceId).sort());
  });

  it.each([
    ['upper-case hex', '/invalid/upper', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['an all-zero trace id', '/invalid/zero', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['an unknown version', '/invalid/version', `01-${TRACE}-${SPAN}-01`],
  ])('an invalid traceparent (%s) is ignored, never refused: a fresh trace goes out', async (_, path, header) => {
    const { key, source } = await accountWithSource(call);
    const destination = await addDestination(call, key, { url: `${sink.url}${path}` });
    await addRoute(call, key, { destination_id: destination.id });
    const ingested = await ingest(call, source.path_token, '{"n":3}', { traceparent: header });
    expect(ingested.status).toBe(202);
    const published = await publish(key, { traceparent: header });
    expect(published.status).toBe(201);

    const tries = (await sink.waitForPath(path, 2)).map(traceOfDelivery);
    for (const trace of tries) {
      expect(trace.traceId).not.toBe(TRACE);
      expect(trace.traceId).not.toMatch(/^0+$/);
      expect(trace.flags).toBe('01');
    }
    expect(tries[0]?.traceId).not.toBe(tries[1]?.traceId);
  });

  it('a destination’s custom auth header cannot be the traceparent every try carries', async () => {
    const { key } = await createAccount(call);
    const answer = await call('POST', '/v1/destinations', {
      key,
      body: { name: 'd', url: `${sink.url}/auth`, auth: { type: 'header', name: 'Traceparent', value: 'v' } },
    });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toBe('auth.name is a header the gateway sets itself');
  });

  it('a batch’s traceparent is every event’s', async () => {
    const key = await publisher('/batch');
    const answer = await call('POST', '/v1/outbound-events/batch', {
      key,
      headers: { traceparent: `00-${TRACE}-${SPAN}-01` },
      body: { events: [{ payload: '{"n":1}' }, { payload: '{"n":2}' }] },
    });
    expect(answer.status).toBe(200);
    const tries = (await sink.waitForPath('/batch', 2)).map(traceOfDelivery);
    expect(tries.map((t) => t.traceId)).toEqual([TRACE, TRACE]);
  });

  it('log lines carry the trace id: ingest’s, and the deliver function’s for the event', async () => {
    const lines: string[] = [];
    for (const method of ['info', 'warn'] as const) vi.spyOn(console, method).mockImplementation((line: unknown) => void lines.push(String(line)));
    const level = process.env.HOOKGATE_LOG_LEVEL;
    process.env.HOOKGATE_LOG_LEVEL = 'info';
    try {
      const { key } = await createAccount(call);
      const source = await typedClient(call, key).sources.create({ name: 'signed', verification: { provider: 'hmac_sha256', secret: 'shh', header: 'x-signature' } });
      const rejected = await ingest(call, source.path_token, '{}', { traceparent: `00-${TRACE}-${SPAN}-01`, 'x-signature': 'wrong' });
      expect(rejected.status).toBe(401);
      expect(lines.find((line) => line.includes('webhook signature rejected'))).toContain(`trace_id=${TRACE}`);

      flakyThenOk();
      const other = '0af7651916cd43dd8448eb211c80319c';
      const publisherKey = await publisher('/flaky/logged');
      const id = (await publish(publisherKey, { traceparent: `00-${other}-${SPAN}-01` })).json.data.id as string;
      await sink.waitForPath('/flaky/logged', 2);
      expect(lines.find((line) => line.includes('delivery attempt failed') && line.includes(`event_id=${id}`))).toContain(`trace_id=${other}`);
    } finally {
      process.env.HOOKGATE_LOG_LEVEL = level;
      vi.restoreAllMocks();
    }
  });
});
