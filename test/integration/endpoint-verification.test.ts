import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookgateSignature } from '../../lambdas/domain/signing';
import { bootGatewayWithSink } from '../fixtures/gateway';
import type { Call } from '../fixtures/http-client';
import { addEventTypes, openPortalSession } from '../fixtures/portal';
import { accountWithSource, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually, type ReceivedRequest, type Sink } from '../fixtures/sink';

// Proof of endpoint ownership (issue 39, part 3) through real HTTP: the challenge's POST to the
// sink, the hold of everything else until the proof, and the release of what was held.

let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let sink: Sink;
/** Paths whose receiver echoes the challenge of a verification POST; every other path answers 200 "ok". */
const echoing = new Set<string>();

beforeAll(async () => {
  // One resend, a second after the first try: what follows it is seen without waiting out the default 10 s.
  env = await bootGatewayWithSink({ HOOKGATE_VERIFICATION_RESEND_SECONDS: '1' });
  ({ call, sink } = env);
  sink.respondWith((request, res) => {
    const body = parsed(request);
    if (body?.type === 'hookgate.endpoint.verification' && echoing.has(request.path)) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: body.challenge }));
      return;
    }
    res.writeHead(200).end('ok');
  });
});
afterAll(async () => {
  await env?.stop();
});

function parsed(request: ReceivedRequest): Record<string, unknown> | undefined {
  try {
    return JSON.parse(request.body.toString()) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

const isChallenge = (request: ReceivedRequest) => parsed(request)?.type === 'hookgate.endpoint.verification';
const challengesTo = (path: string) => sink.received.filter((r) => r.path === path && isChallenge(r));
const othersTo = (path: string) => sink.received.filter((r) => r.path === path && !isChallenge(r));
const challengeOf = (request: ReceivedRequest) => parsed(request)?.challenge as string;

const destination = async (key: string, id: string) => (await call('GET', `/v1/destinations/${id}`, { key })).json.data as Record<string, unknown>;

async function verifyingDestination(key: string, path: string, extra: Record<string, unknown> = {}) {
  const res = await call('POST', '/v1/destinations', { key, body: { name: path, url: `${sink.url}${path}`, verify_ownership: true, ...extra } });
  expect(res.status).toBe(201);
  expect(res.json.data).toMatchObject({ status: 'pending_verification', verify_ownership: true, verified_at: null });
  return res.json.data as { id: string; signing_secret: string };
}

async function heldEvents(key: string, token: string, label: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n++) ids.push((await ingest(call, token, JSON.stringify({ [label]: n }))).json.data.id as string);
  for (const id of ids) await eventually(() => eventDetail(call, key, id), (d) => d.event.deliveries[0]?.waiting?.reason === 'unverified');
  return ids;
}

describe('proof of endpoint ownership', () => {
  it('POSTs one signed challenge (never a GET) and never shows it through the API', async () => {
    const { key } = await accountWithSource(call);
    const created = await verifyingDestination(key, '/signed');
    const [first] = await sink.waitForPath('/signed', 1);
    expect(first!.method).toBe('POST');
    const body = parsed(first!);
    expect(body).toMatchObject({ type: 'hookgate.endpoint.verification', destination_id: created.id });
    expect(challengeOf(first!)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first!.headers['x-event-type']).toBe('hookgate.endpoint.verification');
    const t = Number(/t=(\d+)/.exec(String(first!.headers['webhook-signature']))?.[1]);
    expect(first!.headers['webhook-signature']).toBe(hookgateSignature(first!.body, t, [created.signing_secret]));
    // Only the endpoint learns it: neither the create answer, the detail nor the list carries it.
    const shown = JSON.stringify([created, await destination(key, created.id), (await call('GET', '/v1/destinations', { key })).json.data]);
    expect(shown).not.toContain(challengeOf(first!));
    expect(sink.received.filter((r) => r.method !== 'POST')).toEqual([]);
  });

  it('an echoing endpoint is verified, then gets what was held meanwhile, the first accepted first', async () => {
    const { key, source } = await accountWithSource(call);
    // One at a time: at a cap of 1 each release page is the one due first (the exact order across the
    // held shards), a page a second.
    const dest = await verifyingDestination(key, '/echo-later', { max_in_flight: 1 });
    await addRoute(call, key, { destination_id: dest.id });
    // Its first try and the one resend, both unanswered: no more come on their own.
    const [unanswered] = await sink.waitForPath('/echo-later', 2);
    const held = await heldEvents(key, source.path_token, 'held', 3);
    expect(othersTo('/echo-later')).toEqual([]);

    // Its receiver learns to echo; its owner asks for a new challenge, as no resend is coming.
    echoing.add('/echo-later');
    const resent = await call('POST', `/v1/destinations/${dest.id}/verification/resend`, { key });
    expect(resent.status).toBe(202);
    expect(resent.json.data.status).toBe('pending_verification');
    const shown = await eventually(() => destination(key, dest.id), (d) => d.status === 'active', 10_000);
    expect(shown.verified_at).not.toBeNull();
    const echoed = challengesTo('/echo-later').at(-1)!;
    expect(challengeOf(echoed)).not.toBe(challengeOf(unanswered!));

    for (const id of held) await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered');
    const delivered = othersTo('/echo-later');
    expect(delivered[0]!.body.toString()).toBe(JSON.stringify({ held: 0 }));
    expect(delivered.map((r) => r.body.toString()).sort()).toEqual([0, 1, 2].map((n) => JSON.stringify({ held: n })));
    expect(delivered.every((r) => r.at >= echoed.at)).toBe(true);
    // Events after the proof go straight through.
    const after = (await ingest(call, source.path_token, JSON.stringify({ after: 1 }))).json.data.id as string;
    await eventually(() => eventDetail(call, key, after), (d) => d.event.status === 'delivered');
  });

  it('an endpoint that does not echo stays pending: sent its challenge again later, and nothing else', async () => {
    const { key, source } = await accountWithSource(call);
    const dest = await verifyingDestination(key, '/silent');
    await addRoute(call, key, { destination_id: dest.id });
    const [event] = await heldEvents(key, source.path_token, 'silent', 1);
    // The resend comes after its backoff (1 s here, 10 s by default): the same challenge, until its owner asks for a new one.
    const tries = await sink.waitForPath('/silent', 2, 20_000);
    expect(tries.every(isChallenge)).toBe(true);
    expect(challengeOf(tries[1]!)).toBe(challengeOf(tries[0]!));
    expect(await destination(key, dest.id)).toMatchObject({ status: 'pending_verification', verified_at: null });
    expect((await eventDetail(call, key, event!)).event.deliveries[0]).toMatchObject({ status: 'queued', attempts: 0, waiting: { reason: 'unverified' } });
  }, 30_000);

  it('by hand: the challenge its receiver logged verifies it and lets what it held go; another is refused', async () => {
    const { key, source } = await accountWithSource(call);
    const dest = await verifyingDestination(key, '/by-hand');
    await addRoute(call, key, { destination_id: dest.id });
    const [logged] = await sink.waitForPath('/by-hand', 1);
    const [event] = await heldEvents(key, source.path_token, 'by-hand', 1);

    const wrong = await call('POST', `/v1/destinations/${dest.id}/verify`, { key, body: { challenge: 'not-the-challenge' } });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error).toBe('challenge does not match the one last sent to the endpoint');
    expect((await destination(key, dest.id)).status).toBe('pending_verification');

    const right = await call('POST', `/v1/destinations/${dest.id}/verify`, { key, body: { challenge: challengeOf(logged!) } });
    expect(right.status).toBe(200);
    expect(right.json.data).toMatchObject({ status: 'active', verify_ownership: true });
    await eventually(() => eventDetail(call, key, event!), (d) => d.event.status === 'delivered');
    expect(othersTo('/by-hand').map((r) => r.body.toString())).toEqual([JSON.stringify({ 'by-hand': 0 })]);

    const again = await call('POST', `/v1/destinations/${dest.id}/verify`, { key, body: { challenge: challengeOf(logged!) } });
    expect(again.status).toBe(400);
    expect(again.json.error).toBe('the destination is not waiting for verification');
    const other = await accountWithSource(call);
    expect((await call('POST', `/v1/destinations/${dest.id}/verify`, { key: other.key, body: { challenge: challengeOf(logged!) } })).status).toBe(404);
  });

  it('a URL change starts over: pending again, a new challenge to the new URL, the old one no longer verifies', async () => {
    const { key, source } = await accountWithSource(call);
    const dest = await verifyingDestination(key, '/before-move');
    await addRoute(call, key, { destination_id: dest.id });
    const [old] = await sink.waitForPath('/before-move', 1);
    expect((await call('POST', `/v1/destinations/${dest.id}/verify`, { key, body: { challenge: challengeOf(old!) } })).status).toBe(200);

    const moved = await call('PATCH', `/v1/destinations/${dest.id}`, { key, body: { url: `${sink.url}/after-move` } });
    expect(moved.status).toBe(200);
    expect(moved.json.data).toMatchObject({ status: 'pending_verification', verified_at: null });
    const [fresh] = await sink.waitForPath('/after-move', 1);
    expect(challengeOf(fresh!)).not.toBe(challengeOf(old!));
    await heldEvents(key, source.path_token, 'moved', 1);
    const stale = await call('POST', `/v1/destinations/${dest.id}/verify`, { key, body: { challenge: challengeOf(old!) } });
    expect(stale.status).toBe(400);
    expect(othersTo('/after-move')).toEqual([]);
    expect(othersTo('/before-move')).toEqual([]);
  });

  it('a destination that does not ask is delivered to at once, and an AWS one cannot ask', async () => {
    const { key } = await accountWithSource(call);
    const plain = await call('POST', '/v1/destinations', { key, body: { name: 'plain', url: `${sink.url}/plain` } });
    expect(plain.json.data).toMatchObject({ status: 'active', verify_ownership: false, verified_at: null });
    const aws = await call('POST', '/v1/destinations', {
      key,
      body: { name: 'q', type: 'aws_sqs', config: { queue_url: 'https://sqs.eu-west-1.amazonaws.com/123456789012/q' }, verify_ownership: true },
    });
    expect(aws.status).toBe(400);
    expect(aws.json.error).toBe('verify_ownership is only for http destinations');
  });

  it('the portal: a customer’s endpoint always waits for its proof, and its events wait with it', async () => {
    const { key } = await accountWithSource(call);
    await addEventTypes(call, key, 'invoice.paid');
    const { secret } = await openPortalSession(call, key, 'cus_v');
    const portal = { key: undefined, headers: { authorization: `Bearer ${secret}` } };
    const made = await call('POST', '/v1/portal/endpoints', { ...portal, body: { url: `${sink.url}/portal-endpoint`, event_types: ['invoice.paid'] } });
    expect(made.status).toBe(201);
    expect(made.json.data).toMatchObject({ status: 'pending_verification', verified_at: null });
    expect(made.json.data).not.toHaveProperty('verify_ownership');
    const [challenge] = await sink.waitForPath('/portal-endpoint', 1);
    expect(isChallenge(challenge!)).toBe(true);

    const published = await call('POST', '/v1/outbound-events', { key, body: { event_type: 'invoice.paid', customer: 'cus_v', payload: JSON.stringify({ n: 1 }) } });
    expect(published.status).toBe(201);
    const id = published.json.data.id as string;
    await eventually(() => eventDetail(call, key, id, '/v1/outbound-events'), (d) => d.event.deliveries[0]?.waiting?.reason === 'unverified');
    expect(othersTo('/portal-endpoint')).toEqual([]);

    // The account verifies it with what the customer's receiver logged; the held event goes.
    expect((await call('POST', `/v1/destinations/${made.json.data.id}/verify`, { key, body: { challenge: challengeOf(challenge!) } })).status).toBe(200);
    await eventually(() => eventDetail(call, key, id, '/v1/outbound-events'), (d) => d.event.status === 'delivered');
    const shown = await call('GET', `/v1/portal/endpoints/${made.json.data.id}`, portal);
    expect(shown.json.data.status).toBe('active');
  });
});
