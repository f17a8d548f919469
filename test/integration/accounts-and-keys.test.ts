import { ScanCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway } from '../fixtures/gateway';
import { createAccount, type Call } from '../fixtures/http-client';

let env: Awaited<ReturnType<typeof bootGateway>>;
let call: Call;

beforeAll(async () => {
  env = await bootGateway();
  call = env.call;
});
afterAll(() => env?.stop());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /v1/accounts', () => {
  it('creates a free account with a bootstrap key shown once', async () => {
    const { res } = await createAccount(call, { name: 'Acme' });
    const { account, api_key } = res.json.data;
    expect(account).toEqual({ id: expect.stringMatching(UUID), name: 'Acme', plan: 'free', retention_days: 1, created_at: expect.stringMatching(ISO) });
    expect(api_key).toEqual({
      id: expect.stringMatching(UUID),
      name: 'bootstrap',
      key: expect.stringMatching(/^hk_[A-Za-z0-9_-]{43}$/),
      prefix: api_key.key.slice(0, 10),
      created_at: expect.stringMatching(ISO),
    });
    expect(res.json.duration_ms).toEqual(expect.any(Number));
  });

  it('accepts an empty body and applies plan defaults', async () => {
    const empty = await call('POST', '/v1/accounts');
    expect(empty.status).toBe(201);
    expect(empty.json.data.account).toMatchObject({ name: null, plan: 'free', retention_days: 1 });
    expect((await createAccount(call, { plan: 'pro' })).res.json.data.account.retention_days).toBe(30);
    expect((await createAccount(call, { plan: 'enterprise' })).res.json.data.account.retention_days).toBe(90);
    expect((await createAccount(call, { plan: 'enterprise', retention_days: 365 })).res.json.data.account.retention_days).toBe(365);
  });

  it.each([
    [{ plan: 'gold' }, 'plan must be one of: free, pro, enterprise'],
    [{ plan: 'pro', retention_days: 10 }, 'retention_days can only be set on the enterprise plan'],
    [{ plan: 'enterprise', retention_days: 0 }, 'retention_days must be at least 1'],
    [{ plan: 'enterprise', retention_days: 3651 }, 'retention_days must be at most 3650'],
    [{ plan: 'enterprise', retention_days: 1.5 }, 'retention_days must be an integer'],
    [{ plan: 'enterprise', retention_days: '30' }, 'retention_days must be a number'],
    [{ name: '' }, 'name is required'],
    [{ name: ['a'] }, 'name must be a string'],
  ])('refuses %j with 400', async (body, message) => {
    const res = await call('POST', '/v1/accounts', { body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(message);
  });
});

describe('GET and PATCH /v1/account', () => {
  it('shows and changes the caller’s account', async () => {
    const { key, accountId } = await createAccount(call, { name: 'Before' });
    const got = await call('GET', '/v1/account', { key });
    expect(got.status).toBe(200);
    expect(got.json.data).toMatchObject({ id: accountId, name: 'Before', plan: 'free' });

    const renamed = await call('PATCH', '/v1/account', { key, body: { name: 'After', plan: 'pro' } });
    expect(renamed.status).toBe(200);
    expect(renamed.json.data).toMatchObject({ id: accountId, name: 'After', plan: 'pro', retention_days: 30 });

    const enterprise = await call('PATCH', '/v1/account', { key, body: { plan: 'enterprise', retention_days: 120 } });
    expect(enterprise.json.data).toMatchObject({ plan: 'enterprise', retention_days: 120 });
    const keepsWindow = await call('PATCH', '/v1/account', { key, body: { name: 'Renamed' } });
    expect(keepsWindow.json.data).toMatchObject({ plan: 'enterprise', retention_days: 120 });

    const refused = await call('PATCH', '/v1/account', { key, body: { plan: 'free', retention_days: 5 } });
    expect(refused.status).toBe(400);
    expect((await call('GET', '/v1/account', { key })).json.data).toMatchObject({ plan: 'enterprise', retention_days: 120 });
  });
});

describe('API keys', () => {
  it('creates keys shown once and lists them without the key or its hash', async () => {
    const { key } = await createAccount(call);
    const created = await call('POST', '/v1/api-keys', { key, body: { name: 'ci' } });
    expect(created.status).toBe(201);
    expect(created.json.data).toEqual({
      id: expect.stringMatching(UUID),
      name: 'ci',
      key: expect.stringMatching(/^hk_[A-Za-z0-9_-]{43}$/),
      prefix: created.json.data.key.slice(0, 10),
      created_at: expect.stringMatching(ISO),
    });
    const second = created.json.data.key as string;
    expect((await call('GET', '/v1/account', { key: second })).status).toBe(200);

    const list = await call('GET', '/v1/api-keys', { key: second });
    expect(list.status).toBe(200);
    expect(list.json.data).toHaveLength(2);
    expect(list.json.data[0]).toEqual({
      id: created.json.data.id,
      name: 'ci',
      prefix: created.json.data.prefix,
      created_at: created.json.data.created_at,
      last_used_at: expect.stringMatching(ISO),
    });
    expect(list.text).not.toContain(second);
    expect(list.text).not.toMatch(/hash/);
  });

  it('refuses a revoked key on the very next request', async () => {
    const { key } = await createAccount(call);
    const extra = (await call('POST', '/v1/api-keys', { key, body: {} })).json.data;
    expect((await call('GET', '/v1/sources', { key: extra.key })).status).toBe(200);
    const revoked = await call('DELETE', `/v1/api-keys/${extra.id}`, { key });
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');
    const next = await call('GET', '/v1/sources', { key: extra.key });
    expect(next.status).toBe(401);
    expect(next.json.error).toBe('Unauthorized');
    expect((await call('GET', '/v1/api-keys', { key })).json.data.map((k: { id: string }) => k.id)).not.toContain(extra.id);
    expect((await call('DELETE', `/v1/api-keys/${extra.id}`, { key })).status).toBe(404);
  });

  it('lets a key revoke itself', async () => {
    const { key } = await createAccount(call);
    const own = (await call('GET', '/v1/api-keys', { key })).json.data[0];
    expect((await call('DELETE', `/v1/api-keys/${own.id}`, { key })).status).toBe(204);
    expect((await call('GET', '/v1/account', { key })).status).toBe(401);
  });

  it('stores only the SHA-256 of a key, never the key itself', async () => {
    const { key } = await createAccount(call);
    const dynamo = new DynamoDBClient({ endpoint: env.gateway.endpoints.dynamodb, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const scan = await dynamo.send(new ScanCommand({ TableName: process.env.TABLE_NAME }));
    const dump = JSON.stringify(scan.Items);
    expect(dump).not.toContain(key);
    const { createHash } = await import('node:crypto');
    expect(dump).toContain(createHash('sha256').update(key).digest('hex'));
  });
});
