import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGatewayWithSink } from '../fixtures/gateway';
import type { CallOptions, CallResult } from '../fixtures/http-client';
import { committedOpenApi, documentedMessages, operationsOf, schemaValidator, type OperationObject } from '../fixtures/openapi';
import { eventually } from '../fixtures/sink';
import { challengeReceived } from '../fixtures/setup';

/**
 * Real answers of a real local gateway, each checked against the committed OpenAPI document: the
 * status must be documented for the operation, the body must match the documented schema (JSON
 * Schema 2020-12, strict, formats checked), and an error's message must be one of the documented ones.
 */
let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let dnsDir: string;
const document = committedOpenApi();
const schemas = schemaValidator(document);
const sampled = new Map<string, Set<number>>();
let errorAnswers = 0;

beforeAll(async () => {
  dnsDir = await mkdtemp(join(tmpdir(), 'hookgate-openapi-dns-'));
  await writeFile(join(dnsDir, 'txt.json'), '{}');
  env = await bootGatewayWithSink({ HOOKGATE_DNS_TXT_OVERRIDES: join(dnsDir, 'txt.json'), SCHEDULER_EXPORT_POLL_INTERVAL: '3600' });
});
afterAll(async () => {
  await env?.stop();
  await rm(dnsDir, { recursive: true, force: true });
});

function documented(method: string, template: string): OperationObject {
  const operation = document.paths[template]?.[method.toLowerCase()] as OperationObject | undefined;
  if (!operation) throw new Error(`${method} ${template} is not in the document`);
  return operation;
}

function expectDocumented(method: string, template: string, res: CallResult): void {
  const label = `${method} ${template} → ${res.status} ${res.text.slice(0, 300)}`;
  const operation = documented(method, template);
  const response = operation.responses[String(res.status)];
  expect(response, `undocumented status: ${label}`).toBeDefined();
  const media = response?.content?.['application/json'];
  const served = Object.keys(response?.content ?? {}).find((type) => type !== 'application/json');
  if (served) {
    expect(res.headers.get('content-type'), label).toMatch(new RegExp(`^${served}`));
  } else if (media?.schema) {
    expect(res.headers.get('content-type'), label).toMatch(/^application\/json/);
    expect(schemas.errors(media.schema, res.json), label).toBeUndefined();
  } else {
    expect(res.text, label).toBe('');
  }
  if (res.status === 302) expect(res.headers.get('location'), label).toMatch(/^https?:\/\//);
  if (res.status >= 400) {
    expect(documentedMessages(response), label).toContain(res.json.error);
    errorAnswers++;
  }
  const statuses = sampled.get(operation.operationId) ?? new Set<number>();
  statuses.add(res.status);
  sampled.set(operation.operationId, statuses);
}

interface ApiCall extends CallOptions {
  params?: Record<string, string>;
  query?: Record<string, string>;
}

/** Calls `method template` on the gateway and checks the answer against the document. */
async function api(method: string, template: string, options: ApiCall = {}): Promise<CallResult> {
  const { params = {}, query, ...rest } = options;
  let path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  if (query) path += `?${new URLSearchParams(query)}`;
  const res = await env.call(method, path, rest);
  expectDocumented(method, template, res);
  return res;
}

let key: string;
const ids: Record<string, string> = {};
/** An id saved by an earlier step of this file. */
const saved = (name: string): string => {
  const value = ids[name];
  if (!value) throw new Error(`no ${name} yet: an earlier step failed`);
  return value;
};
const unknownId = '01970c6e-0000-7000-8000-000000000000';

describe('GET /openapi.json', () => {
  it('serves the committed document, not enveloped, with servers naming this gateway', async () => {
    const res = await api('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const { servers, ...served } = res.json;
    expect(servers).toEqual([{ url: env.gateway.url }]);
    const { servers: _committedServers, ...committed } = document;
    expect(served).toEqual(committed);
  });
});

describe('real answers match their documented schemas', () => {
  it('probes and accounts', async () => {
    expect((await api('GET', '/healthz')).status).toBe(200);
    expect((await api('GET', '/readyz')).status).toBe(200);
    const created = await api('POST', '/v1/accounts', { body: { name: 'OpenAPI', plan: 'pro' } });
    expect(created.status).toBe(201);
    key = created.json.data.api_key.key;
    expect((await api('POST', '/v1/accounts', { body: { plan: 'gold' } })).status).toBe(400);
    expect((await api('POST', '/v1/accounts', { body: { plan: 'pro', retention_days: 9 } })).status).toBe(400);
    expect((await api('POST', '/v1/accounts', { rawBody: '{"name":', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    expect((await api('POST', '/v1/accounts', { body: [] })).status).toBe(400);
    expect((await api('GET', '/v1/account', { key })).status).toBe(200);
    expect((await api('GET', '/v1/account', { key: 'hk_nope' })).status).toBe(401);
    expect((await api('GET', '/v1/account')).status).toBe(401);
    expect((await api('PATCH', '/v1/account', { key, body: { name: 'Renamed', plan: 'enterprise', retention_days: 400 } })).status).toBe(200);
    expect((await api('POST', '/v1/signing-keys/rotate', { key })).status).toBe(200);
    const accountId = (await api('GET', '/v1/account', { key })).json.data.id as string;
    expect((await api('GET', '/.well-known/jwks/{account_id}.json', { params: { account_id: accountId } })).json.keys).toHaveLength(1);
    expect((await api('GET', '/.well-known/jwks/{account_id}.json', { params: { account_id: 'nope' } })).status).toBe(404);
    expect((await api('POST', '/v1/signing-keys/rotate', { key, body: { customer: 'cus_openapi' } })).json.data.customer).toBe('cus_openapi');
    expect((await api('POST', '/v1/signing-keys/rotate', { key, body: { customer: '' } })).status).toBe(400);
    const customerJwks = await api('GET', '/.well-known/jwks/{account_id}/customers/{customer}.json', { params: { account_id: accountId, customer: 'cus_openapi' } });
    expect(customerJwks.json.keys).toHaveLength(1);
    expect((await api('GET', '/.well-known/jwks/{account_id}/customers/{customer}.json', { params: { account_id: 'nope', customer: 'cus_openapi' } })).status).toBe(404);
  });

  it('API keys', async () => {
    const created = await api('POST', '/v1/api-keys', { key, body: { name: 'second' } });
    expect(created.status).toBe(201);
    expect((await api('POST', '/v1/api-keys', { key, body: { nmae: 'typo' } })).status).toBe(400);
    expect((await api('GET', '/v1/api-keys', { key })).status).toBe(200);
    expect((await api('DELETE', '/v1/api-keys/{id}', { key, params: { id: created.json.data.id } })).status).toBe(204);
    expect((await api('DELETE', '/v1/api-keys/{id}', { key, params: { id: created.json.data.id } })).status).toBe(404);
    expect((await api('DELETE', '/v1/api-keys/{id}', { key, params: { id: 'nope' } })).status).toBe(400);
  });

  it('custom domains', async () => {
    const created = await api('POST', '/v1/custom-domains', { key, body: { domain: 'hooks.openapi-test.example.com' } });
    expect(created.status).toBe(201);
    ids.domain = created.json.data.id;
    expect((await api('POST', '/v1/custom-domains', { key, body: { domain: 'hooks.openapi-test.example.com' } })).json.error).toBe(
      'domain already registered',
    );
    expect((await api('POST', '/v1/custom-domains', { key, body: { domain: 'localhost' } })).status).toBe(400);
    expect((await api('POST', '/v1/custom-domains', { key, body: {} })).status).toBe(400);
    const pending = await api('POST', '/v1/custom-domains/{id}/verify', { key, params: { id: saved('domain') } });
    expect(pending.json.data).toMatchObject({ status: 'pending_verification', verification_error: expect.stringMatching(/^no TXT record/) });
    const record = created.json.data.verification_record;
    await writeFile(join(dnsDir, 'txt.json'), JSON.stringify({ [record.name]: record.value }));
    const verified = await api('POST', '/v1/custom-domains/{id}/verify', { key, params: { id: saved('domain') } });
    expect(verified.json.data).toMatchObject({ status: 'verified', verified_at: expect.any(String) });
    expect((await api('GET', '/v1/custom-domains', { key })).json.data).toHaveLength(1);
    expect((await api('GET', '/v1/custom-domains/{id}', { key, params: { id: saved('domain') } })).status).toBe(200);
    expect((await api('GET', '/v1/custom-domains/{id}', { key, params: { id: unknownId } })).status).toBe(404);
    const spare = await api('POST', '/v1/custom-domains', { key, body: { domain: 'spare.openapi-test.example.com' } });
    expect((await api('DELETE', '/v1/custom-domains/{id}', { key, params: { id: spare.json.data.id } })).status).toBe(204);
    expect((await api('DELETE', '/v1/custom-domains/{id}', { key, params: { id: spare.json.data.id } })).status).toBe(404);
    expect((await api('DELETE', '/v1/custom-domains/{id}', { key, params: { id: 'nope' } })).status).toBe(400);
  });

  it('AWS connections', async () => {
    const created = await api('POST', '/v1/aws-connections', { key, body: { aws_account_id: '123456789012', customer: 'cus_openapi' } });
    expect(created.status).toBe(201);
    expect((await api('POST', '/v1/aws-connections', { key, body: { aws_account_id: '123456789012', secret_access_key: 'x' } })).status).toBe(400);
    expect((await api('POST', '/v1/aws-connections', { key, body: { aws_account_id: '42' } })).status).toBe(400);
    expect((await api('GET', '/v1/aws-connections', { key, query: { customer: 'cus_openapi' } })).json.data).toHaveLength(1);
    const id = created.json.data.id as string;
    expect((await api('GET', '/v1/aws-connections/{id}', { key, params: { id } })).status).toBe(200);
    expect((await api('GET', '/v1/aws-connections/{id}/template', { key, params: { id } })).status).toBe(200);
    const sts = mockClient(STSClient);
    try {
      sts.on(AssumeRoleCommand).rejects(Object.assign(new Error('not authorized'), { name: 'AccessDenied' }));
      expect((await api('POST', '/v1/aws-connections/{id}/verify', { key, params: { id } })).json.data.status).toBe('failed');
    } finally {
      sts.restore();
    }
    expect((await api('DELETE', '/v1/aws-connections/{id}', { key, params: { id } })).status).toBe(204);
    expect((await api('GET', '/v1/aws-connections/{id}', { key, params: { id } })).status).toBe(404);
  });

  it('listen sessions', async () => {
    const body = { session_id: 'openapi-listen-1', event_type_pattern: 'invoice.*' };
    expect((await api('POST', '/v1/listen-sessions', { key, body })).status).toBe(201);
    const resumed = await api('POST', '/v1/listen-sessions', { key, body });
    expect(resumed.status).toBe(200);
    expect(resumed.json.data.resumed).toBe(true);
    expect((await api('POST', '/v1/listen-sessions', { key, body: { session_id: 'short' } })).status).toBe(400);
    expect((await api('DELETE', '/v1/listen-sessions/{session_id}', { key, params: { session_id: 'openapi-listen-1' } })).status).toBe(204);
    expect((await api('DELETE', '/v1/listen-sessions/{session_id}', { key, params: { session_id: 'openapi-listen-1' } })).status).toBe(404);
  });

  it('sources', async () => {
    const plain = await api('POST', '/v1/sources', { key, body: { name: 'plain' } });
    expect(plain.status).toBe(201);
    ids.source = plain.json.data.id;
    ids.token = plain.json.data.path_token;
    const verified = await api('POST', '/v1/sources', {
      key,
      body: { name: 'github', verification: { provider: 'github', secret: 'gh-secret' }, custom_domain_id: saved('domain') },
    });
    expect(verified.json.data).toMatchObject({ verification: { provider: 'github', configured: true } });
    expect(verified.json.data.ingest_url).toMatch(/^https:\/\/hooks\.openapi-test\.example\.com\/ingest\//);
    ids.verifiedToken = verified.json.data.path_token;
    expect((await api('POST', '/v1/sources', { key, body: {} })).json.error).toBe('name is required');
    expect((await api('POST', '/v1/sources', { key, body: { name: 'x', verification: { provider: 'paypal', secret: 's' } } })).status).toBe(400);
    expect((await api('POST', '/v1/sources', { key, body: { name: 'x', custom_domain_id: unknownId } })).status).toBe(400);
    expect((await api('GET', '/v1/sources', { key })).json.data).toHaveLength(2);
    expect((await api('GET', '/v1/sources/{id}', { key, params: { id: saved('source') } })).status).toBe(200);
    expect((await api('PATCH', '/v1/sources/{id}', { key, params: { id: saved('source') }, body: { name: 'renamed' } })).status).toBe(200);
    expect((await api('PATCH', '/v1/sources/{id}', { key, params: { id: unknownId }, body: { name: 'x' } })).status).toBe(404);
  });

  it('destinations and routes', async () => {
    const created = await api('POST', '/v1/destinations', {
      key,
      body: { name: 'sink', url: `${env.sink.url}/hooks`, auth: { type: 'header', name: 'X-Token', value: 'secret' } },
    });
    expect(created.status).toBe(201);
    ids.destination = created.json.data.id;
    expect((await api('POST', '/v1/destinations', { key, body: { name: 'x', url: 'ftp://x.example.com' } })).status).toBe(400);
    expect((await api('POST', '/v1/destinations', { key, body: { name: 'x', url: 'https://x.example.com', timeout_ms: 5 } })).status).toBe(400);
    expect((await api('GET', '/v1/destinations', { key })).status).toBe(200);
    expect((await api('GET', '/v1/destinations/{id}', { key, params: { id: saved('destination') } })).json.data.signing_secret).toMatch(/^whsec_/);
    expect((await api('PATCH', '/v1/destinations/{id}', { key, params: { id: saved('destination') }, body: { timeout_ms: 5000 } })).status).toBe(200);
    const verifying = await api('POST', '/v1/destinations', { key, body: { name: 'proves', url: `${env.sink.url}/proves`, verify_ownership: true } });
    expect(verifying.json.data.status).toBe('pending_verification');
    const proving = { key, params: { id: verifying.json.data.id as string } };
    const first = await challengeReceived(env.sink, '/proves');
    expect((await api('POST', '/v1/destinations/{id}/verification/resend', proving)).status).toBe(202);
    const resent = await eventually(() => challengeReceived(env.sink, '/proves'), (challenge) => challenge !== first);
    expect((await api('POST', '/v1/destinations/{id}/verify', { ...proving, body: { challenge: first } })).status).toBe(400);
    expect((await api('POST', '/v1/destinations/{id}/verify', { ...proving, body: { challenge: resent } })).json.data.status).toBe('active');
    expect((await api('POST', '/v1/destinations/{id}/verification/resend', proving)).status).toBe(400);
    expect((await api('POST', '/v1/destinations/{id}/end-held', { key, params: { id: saved('destination') } })).json.data).toEqual({ ended: 0, held: 0 });
    expect((await api('POST', '/v1/destinations/{id}/end-held', { key, params: { id: unknownId } })).status).toBe(404);

    const route = await api('POST', '/v1/routes', { key, body: { destination_id: saved('destination') } });
    expect(route.status).toBe(201);
    expect((await api('POST', '/v1/routes', { key, body: {} })).json.error).toBe('destination_id is required');
    expect((await api('POST', '/v1/routes', { key, body: { destination_id: 'abc' } })).json.error).toBe('invalid destination_id');
    expect((await api('POST', '/v1/routes', { key, body: { destination_id: unknownId } })).json.error).toBe(
      'destination_id does not match a destination of this account',
    );
    expect((await api('POST', '/v1/routes', { key, body: { destination_id: saved('destination'), event_type_pattern: 'a*b' } })).status).toBe(400);
    const spare = await api('POST', '/v1/routes', { key, body: { destination_id: saved('destination'), source_id: saved('source'), event_type_pattern: 'x.*', active: false } });
    expect((await api('GET', '/v1/routes', { key })).json.data).toHaveLength(2);
    expect((await api('GET', '/v1/routes/{id}', { key, params: { id: spare.json.data.id } })).status).toBe(200);
    expect((await api('PATCH', '/v1/routes/{id}', { key, params: { id: spare.json.data.id }, body: { event_type_pattern: null } })).status).toBe(200);
    expect((await api('DELETE', '/v1/routes/{id}', { key, params: { id: spare.json.data.id } })).status).toBe(204);
    expect((await api('GET', '/v1/routes/{id}', { key, params: { id: spare.json.data.id } })).status).toBe(404);
    const filtered = await api('POST', '/v1/routes', { key, body: { destination_id: saved('destination'), filter: { amount: { $gte: 10 } } } });
    expect(filtered.json.data.filter).toEqual({ amount: { $gte: 10 } });
    expect((await api('POST', '/v1/routes', { key, body: { destination_id: saved('destination'), filter: { a: { $regex: 'x' } } } })).json.error).toBe(
      'filter: unknown operator $regex',
    );
    expect((await api('DELETE', '/v1/routes/{id}', { key, params: { id: filtered.json.data.id } })).status).toBe(204);
  });

  it('deletes a source and a destination', async () => {
    const source = await api('POST', '/v1/sources', { key, body: { name: 'short-lived' } });
    expect((await api('DELETE', '/v1/sources/{id}', { key, params: { id: source.json.data.id } })).status).toBe(204);
    expect((await api('DELETE', '/v1/sources/{id}', { key, params: { id: source.json.data.id } })).status).toBe(404);
    const destination = await api('POST', '/v1/destinations', { key, body: { name: 'short-lived', url: 'https://consumer.example.com/x' } });
    expect((await api('DELETE', '/v1/destinations/{id}', { key, params: { id: destination.json.data.id } })).status).toBe(204);
    expect((await api('DELETE', '/v1/destinations/{id}', { key, params: { id: destination.json.data.id } })).status).toBe(404);
  });

  it('ingest', async () => {
    const accepted = await api('POST', '/ingest/{token}', {
      params: { token: saved('token') },
      rawBody: '{"id":"evt_1","amount":4200}',
      headers: { 'content-type': 'application/json', 'x-event-type': 'payment.succeeded', 'idempotency-key': 'evt_1' },
    });
    expect(accepted.status).toBe(202);
    expect(accepted.json.data.status).toBe('queued');
    ids.event = accepted.json.data.id;
    const binary = await api('POST', '/ingest/{token}', {
      params: { token: saved('token') },
      rawBody: Buffer.from([0xff, 0xfe, 0x00, 0x01]),
      headers: { 'content-type': 'application/octet-stream' },
    });
    ids.binaryEvent = binary.json.data.id;
    expect((await api('POST', '/ingest/{token}', { params: { token: 'x'.repeat(43) }, rawBody: '{}' })).json.error).toBe('Unauthorized');
    expect((await api('POST', '/ingest/{token}', { params: { token: saved('verifiedToken') }, rawBody: '{}' })).json.error).toBe(
      'invalid signature',
    );
    expect(
      (await api('POST', '/ingest/{token}', { params: { token: saved('token') }, rawBody: '{}', headers: { 'x-event-type': 't'.repeat(201) } })).status,
    ).toBe(400);
    const tooLarge = await api('POST', '/ingest/{token}', {
      params: { token: saved('token') },
      rawBody: Buffer.alloc(5 * 1024 * 1024 + 1, 0x61),
    });
    expect(tooLarge.status).toBe(413);
  });

  it('inbound events: list pages, detail with attempts, replay', async () => {
    await env.sink.waitFor(2);
    const delivered = await eventually(
      async () => (await api('GET', '/v1/events/{id}', { key, params: { id: saved('event') } })).json.data,
      (d) => d.event.status === 'delivered' && d.attempts.length === 1,
    );
    expect(delivered.event).toMatchObject({ body: '{"id":"evt_1","amount":4200}', body_encoding: 'utf8', created_by: 'ingest' });
    const binary = await api('GET', '/v1/events/{id}', { key, params: { id: saved('binaryEvent') } });
    expect(binary.json.data.event.body_encoding).toBe('base64');

    const first = await api('GET', '/v1/events', { key, query: { limit: '1' } });
    expect(first.json.data).toHaveLength(1);
    expect(first.json.next_cursor).toEqual(expect.any(String));
    const second = await api('GET', '/v1/events', { key, query: { limit: '1', cursor: first.json.next_cursor } });
    expect(second.json.data).toHaveLength(1);
    expect((await api('GET', '/v1/events', { key, query: { cursor: 'nonsense' } })).json.error).toBe('invalid cursor');
    expect((await api('GET', '/v1/events', { key, query: { limit: '0' } })).status).toBe(400);
    expect((await api('GET', '/v1/events', { key, query: { status: 'lost' } })).status).toBe(400);
    expect((await api('GET', '/v1/events/{id}', { key, params: { id: unknownId } })).status).toBe(404);

    const replay = await api('POST', '/v1/events/{id}/replay', { key, params: { id: saved('event') } });
    expect(replay.status).toBe(202);
    expect(replay.json.data).toMatchObject({ original_event_id: saved('event'), status: 'queued' });
    expect((await api('POST', '/v1/events/{id}/replay', { key, params: { id: unknownId } })).status).toBe(404);
  });

  it('outbound events: publish, duplicate, batch, list, detail, replay', async () => {
    const published = await api('POST', '/v1/outbound-events', {
      key,
      body: { payload: '{"invoice":"in_1"}', event_type: 'invoice.paid', external_event_id: 'in_1-paid' },
    });
    expect(published.status).toBe(201);
    const duplicate = await api('POST', '/v1/outbound-events', { key, body: { payload: '{"invoice":"in_1"}', external_event_id: 'in_1-paid' } });
    expect(duplicate.status).toBe(200);
    expect(duplicate.json.data).toMatchObject({ id: published.json.data.id, duplicate: true });
    expect((await api('POST', '/v1/outbound-events', { key, body: { payload: '' } })).json.error).toBe('payload is required');
    expect((await api('POST', '/v1/outbound-events', { key, body: { payload: 'x', event_type: 7 } })).json.error).toBe('event_type must be a string');
    const batch = await api('POST', '/v1/outbound-events/batch', {
      key,
      body: { events: [{ payload: '{"n":1}', external_event_id: 'b-1' }, { payload: '' }, { payload: '{"n":1}', external_event_id: 'b-1' }] },
    });
    expect(batch.json.data.map((r: { status: number }) => r.status)).toEqual([201, 400, 200]);
    expect((await api('POST', '/v1/outbound-events/batch', { key, body: { events: [] } })).json.error).toBe(
      'events must contain at least 1 item(s)',
    );
    expect((await api('GET', '/v1/outbound-events', { key })).json.data.length).toBeGreaterThanOrEqual(2);
    const detail = await eventually(
      async () => (await api('GET', '/v1/outbound-events/{id}', { key, params: { id: published.json.data.id } })).json.data,
      (d) => d.event.status === 'delivered',
    );
    expect(detail.event).toMatchObject({ direction: 'outbound', created_by: 'api', source_id: null, headers: {} });
    expect((await api('GET', '/v1/outbound-events/{id}', { key, params: { id: saved('event') } })).status).toBe(404);
    expect((await api('POST', '/v1/outbound-events/{id}/replay', { key, params: { id: published.json.data.id } })).status).toBe(202);
  });

  it('erasures: start one for a subject, follow it to done', async () => {
    expect((await api('POST', '/v1/outbound-events', { key, body: { payload: '{"email":"a@example.com"}', subject: 'user-openapi' } })).status).toBe(201);
    const started = await api('POST', '/v1/erasures', { key, body: { subject: 'user-openapi' } });
    expect(started.status).toBe(202);
    expect((await api('POST', '/v1/erasures', { key, body: { subject: '' } })).status).toBe(400);
    const done = await eventually(
      async () => (await api('GET', '/v1/erasures/{id}', { key, params: { id: started.json.data.id } })).json.data,
      (erasure) => erasure.status === 'done',
    );
    expect(done.events).toBe(1);
    expect((await api('GET', '/v1/erasures/{id}', { key, params: { id: unknownId } })).status).toBe(404);
  });

  it('exports: create, list, detail, download', async () => {
    const created = await api('POST', '/v1/exports', { key, body: { format: 'csv', filters: { direction: 'inbound' } } });
    expect(created.status).toBe(201);
    expect((await api('POST', '/v1/exports', { key, body: { format: 'xml' } })).status).toBe(400);
    expect(
      (await api('POST', '/v1/exports', { key, body: { filters: { date_from: '2026-02-01T00:00:00Z', date_to: '2026-01-01T00:00:00Z' } } })).json.error,
    ).toBe('filters.date_from must not be after filters.date_to');
    await eventually(
      async () => (await api('GET', '/v1/exports/{id}', { key, params: { id: created.json.data.id } })).json.data.status,
      (status) => status === 'ready',
    );
    expect((await api('GET', '/v1/exports', { key, query: { limit: '5' } })).status).toBe(200);
    expect((await api('GET', '/v1/exports', { key, query: { offset: '-1' } })).status).toBe(400);
    const download = await api('GET', '/v1/exports/{id}/download', { key, params: { id: created.json.data.id } });
    expect(download.status).toBe(302);
    expect((await api('GET', '/v1/exports/{id}/download', { key, params: { id: unknownId } })).status).toBe(404);
  });

  it('replays: dry run, create, list, detail', async () => {
    const dry = await api('POST', '/v1/replays', { key, body: { direction: 'inbound', status: ['dead_letter', 'delivered'], dry_run: true } });
    expect(dry.status).toBe(200);
    const created = await api('POST', '/v1/replays', { key, body: { direction: 'outbound' } });
    expect(created.status).toBe(202);
    expect((await api('POST', '/v1/replays', { key, body: { direction: 'sideways' } })).status).toBe(400);
    await eventually(
      async () => (await api('GET', '/v1/replays/{id}', { key, params: { id: created.json.data.id } })).json.data.status,
      (status) => status === 'done',
    );
    expect((await api('GET', '/v1/replays', { key, query: { limit: '5' } })).status).toBe(200);
    expect((await api('GET', '/v1/replays/{id}', { key, params: { id: unknownId } })).status).toBe(404);
  });

  it('brand settings', async () => {
    expect((await api('GET', '/v1/brand-settings', { key })).json.data.updated_at).toBeNull();
    expect((await api('POST', '/v1/brand-settings', { key, body: { company_name: 'Acme', primary_color: '#FF0066' } })).status).toBe(200);
    expect((await api('POST', '/v1/brand-settings', { key, body: { primary_color: 'red' } })).json.error).toBe(
      'primary_color must be a #rrggbb colour',
    );
    expect((await api('POST', '/v1/brand-settings', { key, body: { theme: 'dark' } })).json.error).toBe('unknown field: theme');
  });

  it('event types and the consumer portal', async () => {
    expect((await api('POST', '/v1/event-types', { key, body: { name: 'invoice.paid', schema: { type: 'object' } } })).status).toBe(201);
    expect((await api('POST', '/v1/event-types', { key, body: { name: 'invoice.paid', description: 'Paid.' } })).status).toBe(200);
    expect((await api('POST', '/v1/event-types', { key, body: { name: 'gone' } })).status).toBe(201);
    expect((await api('POST', '/v1/event-types', { key, body: { name: 'a*' } })).status).toBe(400);
    expect((await api('GET', '/v1/event-types', { key })).json.data.length).toBe(2);
    expect((await api('DELETE', '/v1/event-types/{name}', { key, params: { name: 'gone' } })).status).toBe(204);
    expect((await api('DELETE', '/v1/event-types/{name}', { key, params: { name: 'gone' } })).status).toBe(404);
    const session = await api('POST', '/v1/portal-sessions', { key, body: { customer: 'cus_1', expires_in_seconds: 600 } });
    expect(session.status).toBe(201);
    expect((await api('POST', '/v1/portal-sessions', { key, body: { customer: 'c', expires_in_seconds: 0 } })).status).toBe(400);
    const portal = { headers: { authorization: `Bearer ${session.json.data.url.split('#')[1]}` } };
    for (const path of ['/portal', '/portal/app.js', '/portal/app.css']) expect((await api('GET', path)).status).toBe(200);
    expect((await api('GET', '/v1/portal/session', portal)).status).toBe(200);
    expect((await api('GET', '/v1/portal/session', { key })).status).toBe(401);
    expect((await api('GET', '/v1/portal/event-types', portal)).status).toBe(200);
    const endpoint = await api('POST', '/v1/portal/endpoints', { ...portal, body: { url: `${env.sink.url}/portal`, event_types: ['invoice.paid'] } });
    expect(endpoint.status).toBe(201);
    const id = endpoint.json.data.id as string;
    // A customer's endpoint proves its ownership before it is sent its test event: here its customer
    // asks for a new challenge and pastes it from the endpoint's log.
    const firstChallenge = await challengeReceived(env.sink, '/portal');
    expect((await api('POST', '/v1/portal/endpoints/{id}/verification/resend', { ...portal, params: { id } })).json.data.status).toBe('pending_verification');
    const portalChallenge = await eventually(() => challengeReceived(env.sink, '/portal'), (challenge) => challenge !== firstChallenge);
    expect((await api('POST', '/v1/portal/endpoints/{id}/verify', { ...portal, params: { id }, body: { challenge: firstChallenge } })).status).toBe(400);
    expect((await api('POST', '/v1/portal/endpoints/{id}/verify', { ...portal, params: { id }, body: { challenge: portalChallenge } })).json.data.status).toBe('active');
    expect((await api('POST', '/v1/portal/endpoints', { ...portal, body: { url: 'ftp://x' } })).status).toBe(400);
    expect((await api('GET', '/v1/portal/endpoints', portal)).json.data.length).toBe(1);
    expect((await api('GET', '/v1/portal/endpoints/{id}', { ...portal, params: { id } })).status).toBe(200);
    expect((await api('GET', '/v1/portal/endpoints/{id}', { ...portal, params: { id: unknownId } })).status).toBe(404);
    expect((await api('PATCH', '/v1/portal/endpoints/{id}', { ...portal, params: { id }, body: { name: 'renamed' } })).status).toBe(200);
    expect((await api('POST', '/v1/portal/endpoints/{id}/rotate-secret', { ...portal, params: { id } })).status).toBe(200);
    const test = await api('POST', '/v1/portal/endpoints/{id}/test', { ...portal, params: { id } });
    expect(test.status).toBe(202);
    const eventId = test.json.data.event_id as string;
    await eventually(
      async () => (await api('GET', '/v1/portal/events/{id}', { ...portal, params: { id: eventId } })).json.data.event.status,
      (status) => status === 'delivered',
    );
    expect((await api('GET', '/v1/portal/events', { ...portal, query: { status: 'delivered' } })).json.data.length).toBe(1);
    expect((await api('GET', '/v1/portal/events', { ...portal, query: { cursor: 'nope' } })).status).toBe(400);
    expect((await api('POST', '/v1/portal/events/{id}/resend', { ...portal, params: { id: eventId }, body: { endpoint_id: id } })).status).toBe(202);
    expect((await api('DELETE', '/v1/portal/endpoints/{id}', { ...portal, params: { id } })).status).toBe(204);
    const connection = await api('POST', '/v1/portal/aws-connections', { ...portal, body: { aws_account_id: '123456789012' } });
    expect(connection.status).toBe(201);
    expect((await api('POST', '/v1/portal/aws-connections', { ...portal, body: { aws_account_id: '123456789012', customer: 'cus_2' } })).status).toBe(400);
    const connectionId = connection.json.data.id as string;
    expect((await api('GET', '/v1/portal/aws-connections', portal)).json.data).toHaveLength(1);
    expect((await api('GET', '/v1/portal/aws-connections/{id}', { ...portal, params: { id: connectionId } })).status).toBe(200);
    expect((await api('GET', '/v1/portal/aws-connections/{id}/template', { ...portal, params: { id: connectionId } })).status).toBe(200);
    const sts = mockClient(STSClient);
    try {
      sts.on(AssumeRoleCommand).rejects(Object.assign(new Error('not authorized'), { name: 'AccessDenied' }));
      expect((await api('POST', '/v1/portal/aws-connections/{id}/verify', { ...portal, params: { id: connectionId } })).json.data.status).toBe('failed');
    } finally {
      sts.restore();
    }
    expect((await api('DELETE', '/v1/portal/aws-connections/{id}', { ...portal, params: { id: connectionId } })).status).toBe(204);
    expect((await api('POST', '/v1/portal-sessions/revoke', { key, body: { customer: 'cus_1' } })).status).toBe(204);
    expect((await api('POST', '/v1/portal-sessions/revoke', { key, body: { customer: 'c d' } })).status).toBe(400);
    expect((await api('GET', '/v1/portal/session', portal)).status).toBe(401);
  });

  it('sampled a successful answer of every documented operation', () => {
    const missing = operationsOf(document)
      .filter(({ operation }) => ![...(sampled.get(operation.operationId) ?? [])].some((s) => s < 400))
      .map(({ method, path }) => `${method} ${path}`);
    expect(missing).toEqual([]);
    expect(errorAnswers).toBeGreaterThan(40);
  });
});
