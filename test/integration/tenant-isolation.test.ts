import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway } from '../fixtures/gateway';
import { createAccount, typedClient, type Call } from '../fixtures/http-client';

let env: Awaited<ReturnType<typeof bootGateway>>;
let call: Call;
const owner = { key: '', keyId: '', sourceId: '', destinationId: '', routeId: '' };
let intruderKey: string;

beforeAll(async () => {
  env = await bootGateway();
  call = env.call;
  owner.key = (await createAccount(call, { name: 'Owner' })).key;
  intruderKey = (await createAccount(call, { name: 'Intruder' })).key;
  const asOwner = typedClient(call, owner.key);
  owner.keyId = (await asOwner.apiKeys.create({ name: 'second' })).id;
  owner.sourceId = (await asOwner.sources.create({ name: 'src' })).id;
  owner.destinationId = (await asOwner.destinations.create({ name: 'dst', url: 'https://owner.example.com' })).id;
  owner.routeId = (await asOwner.routes.create({ destination_id: owner.destinationId })).id;
});
afterAll(() => env?.stop());

describe('two accounts cannot see or change each other’s resources', () => {
  it('answers every id-addressed endpoint with 404 for another account’s ids', async () => {
    const attempts: Array<[string, string, unknown?]> = [
      ['GET', `/v1/sources/${owner.sourceId}`],
      ['GET', `/v1/destinations/${owner.destinationId}`],
      ['PATCH', `/v1/destinations/${owner.destinationId}`, { name: 'hijacked' }],
      ['GET', `/v1/routes/${owner.routeId}`],
      ['PATCH', `/v1/routes/${owner.routeId}`, { active: false }],
      ['DELETE', `/v1/routes/${owner.routeId}`],
      ['DELETE', `/v1/api-keys/${owner.keyId}`],
    ];
    for (const [method, path, body] of attempts) {
      const res = await call(method, path, { key: intruderKey, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json.error).toBe('Not found');
    }
    // Nothing changed for the owner.
    const asOwner = typedClient(call, owner.key);
    expect((await asOwner.destinations.get(owner.destinationId)).name).toBe('dst');
    expect((await asOwner.routes.get(owner.routeId)).active).toBe(true);
    expect(await asOwner.apiKeys.list()).toHaveLength(2);
  });

  it('refuses to route to another account’s destination or source', async () => {
    const viaDestination = await call('POST', '/v1/routes', { key: intruderKey, body: { destination_id: owner.destinationId } });
    expect(viaDestination.status).toBe(400);
    const ownDestination = (await typedClient(call, intruderKey).destinations.create({ name: 'mine', url: 'https://intruder.example.com' })).id;
    const viaSource = await call('POST', '/v1/routes', {
      key: intruderKey,
      body: { destination_id: ownDestination, source_id: owner.sourceId },
    });
    expect(viaSource.status).toBe(400);
  });

  it('never lists another account’s resources', async () => {
    for (const path of ['/v1/sources', '/v1/destinations', '/v1/routes', '/v1/api-keys']) {
      const res = await call('GET', path, { key: intruderKey });
      expect(res.status).toBe(200);
      for (const id of Object.values(owner)) expect(res.text, path).not.toContain(id);
    }
    const account = await call('GET', '/v1/account', { key: intruderKey });
    expect(account.json.data.name).toBe('Intruder');
  });
});
