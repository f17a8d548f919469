import { transformSync } from 'esbuild';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hookgate, HookgateError, verifyWebhook, type DestinationWithSecret, type WebhookHeaders } from '../../clients/typescript/src/index';
import { bootGatewayWithSink } from '../fixtures/gateway';
import { readmeClientExample as readmeExample } from '../fixtures/readme';
import { eventually, type ReceivedRequest } from '../fixtures/sink';

/**
 * The TypeScript client (clients/typescript) against a real local gateway, and its `verifyWebhook`
 * against the gateway's own deliveries, received by a local sink.
 */
let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let hookgate: Hookgate;

beforeAll(async () => {
  env = await bootGatewayWithSink({ SCHEDULER_EXPORT_POLL_INTERVAL: '3600' });
  const { api_key } = await new Hookgate({ baseUrl: env.gateway.url }).accounts.create({ name: 'Client' });
  hookgate = new Hookgate({ baseUrl: env.gateway.url, apiKey: api_key.key });
});
afterAll(() => env?.stop());

const header = (request: ReceivedRequest, name: string) => {
  const value = request.headers[name];
  if (typeof value !== 'string') throw new Error(`delivery without ${name}`);
  return value;
};

describe('the README example', () => {
  it('is under ten lines', () => {
    const lines = readmeExample()
      .split('\n')
      .filter((line) => line.trim() !== '');
    expect(lines.length).toBeLessThanOrEqual(10);
  });

  it('publishes an event that arrives signed, and verifyWebhook accepts the real delivery and refuses a tampered one', async () => {
    // Run the README's code as written: only the import becomes the module itself, and the example
    // hosts become the local gateway and sink.
    const code = readmeExample()
      .replace(/^import .* from '@hookgate\/client';$/m, '')
      .replaceAll("'http://127.0.0.1:3000'", JSON.stringify(env.gateway.url))
      .replace("'https://consumer.example.com/hooks'", JSON.stringify(`${env.sink.url}/readme`));
    const js = transformSync(code, { loader: 'ts' }).code;
    const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
      ...args: string[]
    ) => (...values: unknown[]) => Promise<{ destination: DestinationWithSecret; isGenuine: (body: string, headers: WebhookHeaders) => boolean }>;
    const run = new AsyncFunction('Hookgate', 'verifyWebhook', `${js}\nreturn { destination, isGenuine };`);
    const { destination, isGenuine } = await run(Hookgate, verifyWebhook);

    const [delivery] = await env.sink.waitForPath('/readme', 1);
    if (!delivery) throw new Error('no delivery');
    const body = delivery.body.toString('utf8');
    const signature = header(delivery, 'webhook-signature');
    expect(body).toBe(JSON.stringify({ invoice: 'in_1' }));
    expect(header(delivery, 'x-event-type')).toBe('invoice.paid');
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(isGenuine(body, delivery.headers)).toBe(true);
    expect(isGenuine(body, new Headers(delivery.headers as Record<string, string>))).toBe(true);
    expect(isGenuine(body.replace('in_1', 'in_2'), delivery.headers)).toBe(false);
    expect(verifyWebhook(delivery.body, delivery.headers, destination.signing_secret)).toBe(true);
    expect(verifyWebhook(body, delivery.headers, 'whsec_not-the-secret')).toBe(false);
  });
});

describe('the client against the gateway', () => {
  it('runs the inbound flow: source, destination, route, ingest, signed delivery, event detail, replay', async () => {
    const source = await hookgate.sources.create({ name: 'provider' });
    const destination = await hookgate.destinations.create({ name: 'inbound', url: `${env.sink.url}/inbound` });
    const route = await hookgate.routes.create({ destination_id: destination.id, source_id: source.id, event_type_pattern: 'payment.*' });
    expect(route).toMatchObject({ source_id: source.id, event_type_pattern: 'payment.*', active: true });
    expect((await hookgate.routes.list()).map((r) => r.id)).toContain(route.id);

    const payload = '{"id":"evt_42","amount":4200}';
    const accepted = await fetch(source.ingest_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-event-type': 'payment.succeeded' },
      body: payload,
    });
    expect(accepted.status).toBe(202);
    const { data: ingested } = (await accepted.json()) as { data: { id: string } };

    const [delivery] = await env.sink.waitForPath('/inbound', 1);
    if (!delivery) throw new Error('no delivery');
    expect(header(delivery, 'x-webhook-id')).toBe(ingested.id);
    expect(verifyWebhook(delivery.body, delivery.headers, destination.signing_secret)).toBe(true);
    expect(verifyWebhook(`${payload} `, delivery.headers, destination.signing_secret)).toBe(false);

    const detail = await eventually(() => hookgate.events.get(ingested.id), (d) => d.event.status === 'delivered');
    expect(detail.event).toMatchObject({ body: payload, event_type: 'payment.succeeded', source_id: source.id });
    expect(detail.attempts).toEqual([expect.objectContaining({ outcome: 'success', response_status: 200, attempt_number: 1 })]);

    const replay = await hookgate.events.replay(ingested.id);
    expect(replay).toMatchObject({ original_event_id: ingested.id, status: 'queued' });
    const [, redelivery] = await env.sink.waitForPath('/inbound', 2);
    if (!redelivery) throw new Error('no redelivery');
    // The copy keeps the original's webhook id (receivers de-duplicate on it) and names itself apart.
    expect(header(redelivery, 'x-webhook-id')).toBe(ingested.id);
    expect(header(redelivery, 'x-hookgate-event-id')).toBe(replay.replay_event_id);
    expect(verifyWebhook(redelivery.body, redelivery.headers, destination.signing_secret)).toBe(true);

    const page = await hookgate.events.list({ limit: 1, source_id: source.id });
    expect(page.data).toHaveLength(1);
    expect(page.next_cursor).toEqual(expect.any(String));
    const all: string[] = [];
    for await (const event of hookgate.events.all({ limit: 1, source_id: source.id })) all.push(event.id);
    expect(all.sort()).toEqual([ingested.id, replay.replay_event_id].sort());
  });

  it('verifies deliveries with either secret while a rotated-out one is valid', async () => {
    const destination = await hookgate.destinations.create({ name: 'rotating', url: `${env.sink.url}/rotating` });
    await hookgate.routes.create({ destination_id: destination.id, event_type_pattern: 'rotation.test' });
    const updated = await hookgate.destinations.update(destination.id, { signing_secret: 'whsec_rotated-secret-value' });
    expect(updated).not.toHaveProperty('signing_secret');
    expect((await hookgate.destinations.get(destination.id)).signing_secret).toBe('whsec_rotated-secret-value');

    await hookgate.outboundEvents.publish({ payload: '{"rotated":true}', event_type: 'rotation.test' });
    const [delivery] = await env.sink.waitForPath('/rotating', 1);
    if (!delivery) throw new Error('no delivery');
    expect(header(delivery, 'webhook-signature').split(',').filter((part) => part.startsWith('v1='))).toHaveLength(2);
    expect(verifyWebhook(delivery.body, delivery.headers, 'whsec_rotated-secret-value')).toBe(true);
    expect(verifyWebhook(delivery.body, delivery.headers, destination.signing_secret)).toBe(true);
    expect(verifyWebhook(delivery.body, delivery.headers, 'whsec_neither')).toBe(false);
  });

  it('proves a destination’s endpoint: a signed challenge, a new one on request, then verify with what the receiver logged', async () => {
    const destination = await hookgate.destinations.create({ name: 'proving', url: `${env.sink.url}/proving`, verify_ownership: true });
    expect(destination.status).toBe('pending_verification');
    const [first] = await env.sink.waitForPath('/proving', 1);
    if (!first) throw new Error('no challenge');
    expect(verifyWebhook(first.body, first.headers, destination.signing_secret)).toBe(true);
    const old = (JSON.parse(first.body.toString()) as { challenge: string }).challenge;
    expect((await hookgate.destinations.resendVerification(destination.id)).status).toBe('pending_verification');
    const [, second] = await env.sink.waitForPath('/proving', 2);
    const challenge = (JSON.parse(second!.body.toString()) as { challenge: string }).challenge;
    await expect(hookgate.destinations.verify(destination.id, old)).rejects.toMatchObject({ status: 400, message: 'challenge does not match the one last sent to the endpoint' });
    expect((await hookgate.destinations.verify(destination.id, challenge)).status).toBe('active');
  });

  it('verifies Standard Webhooks deliveries with the scheme standard_webhooks', async () => {
    const destination = await hookgate.destinations.create({ name: 'standard', url: `${env.sink.url}/standard`, signature_scheme: 'standard_webhooks' });
    await hookgate.routes.create({ destination_id: destination.id, event_type_pattern: 'standard.test' });
    const published = await hookgate.outboundEvents.publish({ payload: '{"n":1}', event_type: 'standard.test' });
    const [delivery] = await env.sink.waitForPath('/standard', 1);
    if (!delivery) throw new Error('no delivery');
    expect(header(delivery, 'webhook-id')).toBe(published.id);
    const standard = { scheme: 'standard_webhooks' } as const;
    expect(verifyWebhook(delivery.body, delivery.headers, destination.signing_secret, standard)).toBe(true);
    // The same arguments as Standard Webhooks' own library takes, which accepts the delivery too.
    expect(() => new Webhook(destination.signing_secret).verify(delivery.body.toString('utf8'), delivery.headers as Record<string, string>)).not.toThrow();
    expect(verifyWebhook(`${delivery.body.toString('utf8')} `, delivery.headers, destination.signing_secret, standard)).toBe(false);
    expect(verifyWebhook(delivery.body, delivery.headers, `whsec_${Buffer.alloc(32).toString('base64')}`, standard)).toBe(false);
    // The default scheme does not pass a Standard Webhooks delivery.
    expect(verifyWebhook(delivery.body, delivery.headers, destination.signing_secret)).toBe(false);
  });

  it('publishes outbound events singly and in batches, idempotently, and lists and replays them', async () => {
    const first = await hookgate.outboundEvents.publish({ payload: '{"n":1}', event_type: 'order.created', external_event_id: 'order-1' });
    expect(first).toEqual({ id: expect.any(String), status: 'queued' });
    const again = await hookgate.outboundEvents.publish({ payload: '{"n":1}', external_event_id: 'order-1' });
    expect(again).toMatchObject({ id: first.id, duplicate: true });
    const batch = await hookgate.outboundEvents.batch([{ payload: '{"n":2}' }, { payload: '' }, { payload: '{"n":1}', external_event_id: 'order-1' }]);
    expect(batch.map((r) => r.status)).toEqual([201, 400, 200]);
    expect(batch[1]).toEqual({ status: 400, error: 'payload is required' });

    const listed = await hookgate.outboundEvents.list({ event_type: 'order.created' });
    expect(listed.data.map((e) => e.id)).toEqual([first.id]);
    const settled = await eventually(() => hookgate.outboundEvents.get(first.id), (d) => d.event.status === 'accepted');
    expect(settled.event).toMatchObject({ direction: 'outbound', created_by: 'api', body: '{"n":1}' });
    expect(await hookgate.outboundEvents.replay(first.id)).toMatchObject({ original_event_id: first.id });
  });

  it('erases a data subject’s payloads and keeps the tombstones', async () => {
    const erased = await hookgate.outboundEvents.publish({ payload: { email: 'ts-erased@example.com' }, subject: 'ts-user-1' });
    const kept = await hookgate.outboundEvents.publish({ payload: { email: 'ts-kept@example.com' }, subject: 'ts-user-2' });
    const started = await hookgate.erasures.create('ts-user-1');
    expect(started).toMatchObject({ status: 'running', events: 0 });
    const done = await eventually(() => hookgate.erasures.get(started.id), (e) => e.status === 'done');
    expect(done).toMatchObject({ events: 1, request_bodies: 1 });
    expect((await hookgate.outboundEvents.get(erased.id)).event).toMatchObject({ payload_erased: true, body: null, payload_hash: null });
    await expect(hookgate.outboundEvents.replay(erased.id)).rejects.toMatchObject({ name: 'HookgateError', status: 409, message: 'payload erased' });
    expect((await hookgate.outboundEvents.get(kept.id)).event).toMatchObject({ payload_erased: false, body: '{"email":"ts-kept@example.com"}' });
  });

  it('throws HookgateError with the status and exact message', async () => {
    const anonymous = new Hookgate({ baseUrl: env.gateway.url });
    await expect(anonymous.sources.list()).rejects.toMatchObject({ name: 'HookgateError', status: 401, message: 'Unauthorized' });
    await expect(hookgate.routes.create({ destination_id: 'nope' })).rejects.toMatchObject({ status: 400, message: 'invalid destination_id' });
    await expect(hookgate.outboundEvents.publish({ payload: '' })).rejects.toMatchObject({ status: 400, message: 'payload is required' });
    const missing = await hookgate.events.get('01970c6e-0000-7000-8000-000000000000').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(HookgateError);
    expect(missing).toMatchObject({ status: 404, message: 'Not found', body: { error: 'Not found', duration_ms: expect.any(Number) } });
  });

  it('manages API keys, the account, exports, brand settings and custom domains', async () => {
    const created = await hookgate.apiKeys.create({ name: 'ci' });
    const second = hookgate.withApiKey(created.key);
    expect((await second.account.get()).name).toBe('Client');
    expect((await hookgate.apiKeys.list()).map((k) => k.id)).toContain(created.id);
    await hookgate.apiKeys.revoke(created.id);
    await expect(second.account.get()).rejects.toMatchObject({ status: 401 });
    expect(await hookgate.account.update({ plan: 'pro' })).toMatchObject({ plan: 'pro', retention_days: 30 });

    const job = await hookgate.exports.create({ format: 'csv', filters: { direction: 'inbound' } });
    expect(job).toMatchObject({ status: 'queued', format: 'csv', row_count: null });
    const ready = await eventually(() => hookgate.exports.get(job.id), (j) => j.status === 'ready');
    expect(ready.row_count).toBeGreaterThanOrEqual(2);
    expect((await hookgate.exports.list({ limit: 5 })).map((j) => j.id)).toContain(job.id);
    const file = await fetch(await hookgate.exports.downloadUrl(job.id));
    expect((await file.text()).split('\r\n')[0]).toBe('id,direction,event_type,external_event_id,status,attempts_count,received_at,created_at');

    expect(await hookgate.brandSettings.update({ company_name: 'Acme', primary_color: '#FF0066' })).toMatchObject({
      company_name: 'Acme',
      primary_color: '#ff0066',
    });
    expect((await hookgate.brandSettings.get()).company_name).toBe('Acme');

    const domain = await hookgate.customDomains.create({ domain: 'hooks.client-test.example.com' });
    expect(domain.verification_record).toEqual({ type: 'TXT', name: '_hookgate-challenge.hooks.client-test.example.com', value: domain.verification_token });
    expect((await hookgate.customDomains.list()).map((d) => d.id)).toEqual([domain.id]);
    expect((await hookgate.customDomains.get(domain.id)).status).toBe('pending_verification');
  });

  it('manages AWS connections and listen sessions', async () => {
    const connection = await hookgate.awsConnections.create({ aws_account_id: '123456789012' });
    expect(connection.external_id).toMatch(/^hookgate-/);
    expect((await hookgate.awsConnections.get(connection.id)).id).toBe(connection.id);
    expect((await hookgate.awsConnections.list()).map((c) => c.id)).toContain(connection.id);
    expect(await hookgate.awsConnections.template(connection.id)).toHaveProperty('Resources');
    await hookgate.awsConnections.delete(connection.id);
    await expect(hookgate.awsConnections.get(connection.id)).rejects.toMatchObject({ status: 404 });

    expect((await hookgate.listenSessions.open({ session_id: 'ts-client-1', event_type_pattern: 'invoice.*' })).resumed).toBe(false);
    expect((await hookgate.listenSessions.open({ session_id: 'ts-client-1', event_type_pattern: 'invoice.*' })).resumed).toBe(true);
    await hookgate.listenSessions.close('ts-client-1');
    await expect(hookgate.listenSessions.close('ts-client-1')).rejects.toMatchObject({ status: 404 });
  });
});
