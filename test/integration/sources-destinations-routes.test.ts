import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS } from '../../local/aws-clients';
import { bootGateway } from '../fixtures/gateway';
import type { Hookgate } from '../../clients/typescript/src/index';
import { createAccount, typedClient, type Call } from '../fixtures/http-client';

let env: Awaited<ReturnType<typeof bootGateway>>;
let call: Call;
let key: string;
let accountId: string;
let hookgate: Hookgate;

beforeAll(async () => {
  env = await bootGateway({ HOOKGATE_PUBLIC_URL: 'https://hooks.example.test' });
  call = env.call;
  ({ key, accountId } = await createAccount(call));
  hookgate = typedClient(call, key);
});
afterAll(() => env?.stop());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('sources', () => {
  it('creates a source with a long random path token and an absolute ingest URL', async () => {
    const res = await call('POST', '/v1/sources', { key, body: { name: 'Stripe' } });
    expect(res.status).toBe(201);
    const source = res.json.data;
    expect(source).toEqual({
      id: expect.stringMatching(UUID),
      account_id: accountId,
      name: 'Stripe',
      path_token: expect.stringMatching(/^[A-Za-z0-9_-]{32,}$/),
      ingest_url: `https://hooks.example.test/ingest/${source.path_token}`,
      verification: null,
      custom_domain_id: null,
      subject_pointer: null,
      ordering_key_pointer: null,
      created_at: expect.stringMatching(ISO),
    });
    expect(await hookgate.sources.get(source.id)).toEqual(source);
    const other = await hookgate.sources.create({ name: 'GitHub' });
    expect(other.path_token).not.toBe(source.path_token);
    const list = await hookgate.sources.list();
    expect(list.map((s) => s.id)).toEqual([other.id, source.id]);
  });

  it.each([
    [{}, 'name is required'],
    [{ name: '' }, 'name is required'],
    [{ name: 7 }, 'name must be a string'],
    [{ name: 'x', custom_domain_id: 'nope' }, 'invalid custom_domain_id'],
    [{ name: 'x', custom_domain_id: '0191a5e4-0000-7000-8000-000000000000' }, 'custom_domain_id does not match a custom domain of this account'],
    [{ name: 'x', verification: { provider: 'paypal', secret: 's' } }, 'verification.provider must be one of: stripe, github, shopify, slack, standard_webhooks, hmac_sha256'],
  ])('refuses %j with 400', async (body, message) => {
    const res = await call('POST', '/v1/sources', { key, body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(message);
  });

  it('answers an unknown source id with 404', async () => {
    const res = await call('GET', '/v1/sources/0191a5e4-0000-7000-8000-000000000000', { key });
    expect(res.status).toBe(404);
    expect(res.json.error).toBe('Not found');
  });
});

describe('destinations', () => {
  it('generates a whsec_ secret, shows it on create and get only, and never returns auth values', async () => {
    const res = await call('POST', '/v1/destinations', {
      key,
      body: { name: 'Orders', url: 'https://consumer.example.com/hooks', auth: { type: 'bearer', token: 'tok-secret-123' } },
    });
    expect(res.status).toBe(201);
    const dest = res.json.data;
    expect(dest).toEqual({
      id: expect.stringMatching(UUID),
      account_id: accountId,
      name: 'Orders',
      type: 'http',
      config: null,
      role_arn: null,
      connection_id: null,
      external_id: null,
      url: 'https://consumer.example.com/hooks',
      active: true,
      auth: { type: 'bearer' },
      timeout_ms: 15000,
      signature_scheme: 'hookgate',
      disabled_reason: null,
      status: 'active',
      verify_ownership: false,
      verified_at: null,
      health: { state: 'healthy', consecutive_failures: 0, last_success_at: null, last_failure_at: null, open_until: null, held: 0, oldest_held_since: null },
      customer: null,
      retry_schedule: [0, 30, 120, 600, 3600],
      auto_disable_after_hours: 120,
      rate_limit_per_second: null,
      max_in_flight: 10,
      ordering: 'none',
      signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    const got = await call('GET', `/v1/destinations/${dest.id}`, { key });
    expect(got.json.data.signing_secret).toBe(dest.signing_secret);
    const list = await call('GET', '/v1/destinations', { key });
    expect(list.json.data.find((d: { id: string }) => d.id === dest.id)).not.toHaveProperty('signing_secret');
    for (const text of [res.text, got.text, list.text]) expect(text).not.toContain('tok-secret-123');
  });

  it('keeps a given secret, custom header auth write-only, timeout and scheme', async () => {
    const res = await call('POST', '/v1/destinations', {
      key,
      body: {
        name: 'Custom',
        url: 'http://93.184.216.34:8080/in',
        signing_secret: 'my-own-secret-value',
        auth: { type: 'header', name: 'X-Api-Token', value: 'hdr-secret-456' },
        timeout_ms: 5000,
        active: false,
      },
    });
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({
      signing_secret: 'my-own-secret-value',
      auth: { type: 'header', header_name: 'X-Api-Token' },
      timeout_ms: 5000,
      active: false,
    });
    expect(res.text).not.toContain('hdr-secret-456');
  });

  it.each([
    [{ url: 'https://x.example.com' }, 'name is required'],
    [{ name: 'a' }, 'url is required'],
    [{ name: 'a', url: 'ftp://x.example.com' }, 'url must be an http or https URL'],
    [{ name: 'a', url: 'not a url' }, 'url must be an http or https URL'],
    [{ name: 'a', url: 'http://127.0.0.1:9000/' }, 'url must not point to a private or reserved address'],
    [{ name: 'a', url: 'http://169.254.169.254/latest' }, 'url must not point to a private or reserved address'],
    [{ name: 'a', url: 'http://localhost/' }, 'url must not point to a private or reserved address'],
    [{ name: 'a', url: 'http://[::ffff:10.0.0.1]/' }, 'url must not point to a private or reserved address'],
    [{ name: 'a', url: 'http://user:pw@example.com/' }, 'url must not contain credentials'],
    [{ name: 'a', url: 'https://x.example.com', timeout_ms: 50 }, 'timeout_ms must be at least 100'],
    [{ name: 'a', url: 'https://x.example.com', timeout_ms: 60000 }, 'timeout_ms must be at most 30000'],
    [{ name: 'a', url: 'https://x.example.com', active: 'yes' }, 'active must be a boolean'],
    [{ name: 'a', url: 'https://x.example.com', auth: { type: 'basic' } }, 'auth.type must be one of: bearer, header'],
    [{ name: 'a', url: 'https://x.example.com', auth: { type: 'bearer' } }, 'auth.token is required'],
    [{ name: 'a', url: 'https://x.example.com', auth: { type: 'header', name: 'Bad Header', value: 'v' } }, 'auth.name must be a valid HTTP header name'],
    [{ name: 'a', url: 'https://x.example.com', auth: { type: 'header', name: 'Host', value: 'v' } }, 'auth.name is a header the gateway sets itself'],
    [{ name: 'a', url: 'https://x.example.com', auth: { type: 'header', name: 'X-A', value: 'a\r\nb' } }, 'auth.value must be printable ASCII without leading or trailing spaces (it is sent as an HTTP header)'],
    [{ name: 'a', url: 'https://x.example.com', signature_scheme: 'svix' }, 'signature_scheme must be one of: hookgate, standard_webhooks, ed25519'],
    [{ name: 'a', url: 'https://x.example.com', signing_secret: 'short' }, 'signing_secret must be at least 8 characters'],
    [
      { name: 'a', url: 'https://x.example.com', signature_scheme: 'standard_webhooks', signing_secret: 'not-a-whsec-secret' },
      'signing_secret must be whsec_ followed by base64 of 24 to 64 bytes for standard_webhooks',
    ],
    [{ name: 'a', url: `https://x.example.com/${'p'.repeat(3000)}` }, 'url must be at most 2048 characters'],
  ])('refuses %j with 400', async (body, message) => {
    const res = await call('POST', '/v1/destinations', { key, body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(message);
  });

  it('patches fields, rotates the secret and keeps the old one for 24 hours', async () => {
    const dest = await hookgate.destinations.create({ name: 'P', url: 'https://p.example.com' });
    const patched = await call('PATCH', `/v1/destinations/${dest.id}`, {
      key,
      body: { name: 'P2', url: 'https://p2.example.com/x', timeout_ms: 2000, active: false, signing_secret: 'rotated-secret-1', auth: { type: 'bearer', token: 't0ken-value' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.json.data).toMatchObject({ name: 'P2', url: 'https://p2.example.com/x', timeout_ms: 2000, active: false, auth: { type: 'bearer' } });
    expect(patched.json.data).not.toHaveProperty('signing_secret');
    expect(patched.text).not.toContain('t0ken-value');
    expect(patched.json.data.updated_at >= dest.updated_at).toBe(true);
    const got = await hookgate.destinations.get(dest.id);
    expect(got.signing_secret).toBe('rotated-secret-1');
    expect(got.name).toBe('P2');

    const cleared = await hookgate.destinations.update(dest.id, { auth: null });
    expect(cleared.auth).toBeNull();

    const bad = await call('PATCH', `/v1/destinations/${dest.id}`, { key, body: { url: 'http://10.1.2.3/' } });
    expect(bad.status).toBe(400);
    const switchScheme = await call('PATCH', `/v1/destinations/${dest.id}`, { key, body: { signature_scheme: 'standard_webhooks' } });
    expect(switchScheme.status).toBe(400);
    expect((await hookgate.destinations.get(dest.id)).url).toBe('https://p2.example.com/x');
  });

  it('sets max_in_flight on create and PATCH, refuses what is not 1..1000, and shows 10 for a destination stored before it', async () => {
    const created = await call('POST', '/v1/destinations', { key, body: { name: 'Capped', url: 'https://cap.example.com', max_in_flight: 3 } });
    expect(created.status).toBe(201);
    expect(created.json.data.max_in_flight).toBe(3);
    const id = created.json.data.id as string;
    expect((await call('PATCH', `/v1/destinations/${id}`, { key, body: { max_in_flight: 1000 } })).json.data.max_in_flight).toBe(1000);
    expect((await hookgate.destinations.get(id)).max_in_flight).toBe(1000);
    for (const [value, message] of [
      [0, 'max_in_flight must be at least 1'],
      [1001, 'max_in_flight must be at most 1000'],
      [2.5, 'max_in_flight must be an integer'],
      ['10', 'max_in_flight must be a number'],
      [null, 'max_in_flight must be a number'],
    ] as const) {
      for (const res of [
        await call('PATCH', `/v1/destinations/${id}`, { key, body: { max_in_flight: value } }),
        await call('POST', '/v1/destinations', { key, body: { name: 'a', url: 'https://x.example.com', max_in_flight: value } }),
      ]) {
        expect(res.status).toBe(400);
        expect(res.json.error).toBe(message);
      }
    }
    expect((await hookgate.destinations.get(id)).max_in_flight).toBe(1000);

    // A destination written before the setting existed has no such attribute.
    const table = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: env.gateway.endpoints.dynamodb, credentials: LOCAL_CREDENTIALS }));
    await table.send(
      new UpdateCommand({ TableName: env.gateway.resources.tableName, Key: { pk: `ACCT#${accountId}`, sk: `ACCOUNT#DEST#${id}` }, UpdateExpression: 'REMOVE max_in_flight' }),
    );
    table.destroy();
    expect((await hookgate.destinations.get(id)).max_in_flight).toBe(10);
    const listed = (await call('GET', '/v1/destinations', { key })).json.data.find((d: { id: string }) => d.id === id);
    expect(listed.max_in_flight).toBe(10);
  });

  it('answers PATCH of an unknown destination with 404', async () => {
    const res = await call('PATCH', '/v1/destinations/0191a5e4-0000-7000-8000-000000000000', { key, body: { name: 'x' } });
    expect(res.status).toBe(404);
  });
});

describe('routes', () => {
  it('creates, lists, gets, deactivates and deletes routes', async () => {
    const dest = await hookgate.destinations.create({ name: 'R', url: 'https://r.example.com' });
    const source = await hookgate.sources.create({ name: 'S' });
    const all = await call('POST', '/v1/routes', { key, body: { destination_id: dest.id } });
    expect(all.status).toBe(201);
    expect(all.json.data).toEqual({
      id: expect.stringMatching(UUID),
      account_id: accountId,
      source_id: null,
      destination_id: dest.id,
      event_type_pattern: null,
      active: true,
      filter: null,
      created_at: expect.stringMatching(ISO),
    });
    const bound = await call('POST', '/v1/routes', { key, body: { destination_id: dest.id, source_id: source.id, event_type_pattern: 'payment.*' } });
    expect(bound.status).toBe(201);
    expect(bound.json.data).toMatchObject({ source_id: source.id, event_type_pattern: 'payment.*' });

    const list = await hookgate.routes.list();
    expect(list.map((r) => r.id)).toEqual([bound.json.data.id, all.json.data.id]);
    expect(await hookgate.routes.get(all.json.data.id)).toEqual(all.json.data);

    const off = await call('PATCH', `/v1/routes/${all.json.data.id}`, { key, body: { active: false } });
    expect(off.status).toBe(200);
    expect(off.json.data.active).toBe(false);

    expect((await call('DELETE', `/v1/routes/${all.json.data.id}`, { key })).status).toBe(204);
    expect((await call('GET', `/v1/routes/${all.json.data.id}`, { key })).status).toBe(404);
    expect((await call('DELETE', `/v1/routes/${all.json.data.id}`, { key })).status).toBe(404);
  });

  it.each([
    [{}, 'destination_id is required'],
    [{ destination_id: 'abc' }, 'invalid destination_id'],
    [{ destination_id: 12 }, 'destination_id must be a string'],
    [{ destination_id: '0191a5e4-0000-7000-8000-000000000000', source_id: 'nope' }, 'invalid source_id'],
    [{ destination_id: '0191a5e4-0000-7000-8000-000000000000' }, 'destination_id does not match a destination of this account'],
    [{ destination_id: '0191a5e4-0000-7000-8000-000000000000', event_type_pattern: '*.created' }, 'event_type_pattern may contain * only as its last character'],
  ])('refuses %j with 400', async (body, message) => {
    const res = await call('POST', '/v1/routes', { key, body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(message);
  });

  it('refuses an unknown source_id in the account', async () => {
    const dest = await hookgate.destinations.create({ name: 'R', url: 'https://r.example.com' });
    const res = await call('POST', '/v1/routes', { key, body: { destination_id: dest.id, source_id: '0191a5e4-0000-7000-8000-000000000000' } });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('source_id does not match a source of this account');
  });
});
