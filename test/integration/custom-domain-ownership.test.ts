import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway } from '../fixtures/gateway';
import { createAccount, typedClient, type Call } from '../fixtures/http-client';
import { openPortalSession } from '../fixtures/portal';
import { accountWithSource } from '../fixtures/setup';

/**
 * A verified custom domain belongs to one account: on its host (the `Host` header, as API Gateway
 * passes it on as the request's domain name) only that account's API key, ingest tokens and portal
 * sessions are served. And only a verified domain is exclusive: the first to prove the hostname owns it.
 */
let env: Awaited<ReturnType<typeof bootGateway>>;
let call: Call;
let dnsDir: string;
let dnsFile: string;
const published: Record<string, string[]> = {};

/** Adds a TXT record to what the local resolver answers (HOOKGATE_DNS_TXT_OVERRIDES), as a DNS provider would. */
async function publishTxt(name: string, value: string) {
  (published[name] ??= []).push(value);
  await writeFile(dnsFile, JSON.stringify(published));
}

async function registerAndVerify(key: string, domain: string) {
  const hookgate = typedClient(call, key);
  const created = await hookgate.customDomains.create({ domain });
  await publishTxt(created.verification_record.name, created.verification_token);
  const verified = await hookgate.customDomains.verify(created.id);
  expect(verified.status).toBe('verified');
  return created;
}

beforeAll(async () => {
  dnsDir = await mkdtemp(join(tmpdir(), 'hookgate-domain-owner-'));
  dnsFile = join(dnsDir, 'txt.json');
  await writeFile(dnsFile, '{}');
  env = await bootGateway({ HOOKGATE_DNS_TXT_OVERRIDES: dnsFile });
  call = env.call;
});
afterAll(async () => {
  await env?.stop();
  if (dnsDir) await rm(dnsDir, { recursive: true, force: true });
});

describe('a verified custom domain serves only the account that owns it', () => {
  const HOST = 'hooks.acme.example';
  let acme: Awaited<ReturnType<typeof accountWithSource>>;
  let globex: Awaited<ReturnType<typeof accountWithSource>>;
  let acmePortal: string;
  let globexPortal: string;
  let domainId: string;

  beforeAll(async () => {
    acme = await accountWithSource(call);
    globex = await accountWithSource(call);
    domainId = (await registerAndVerify(acme.key, HOST)).id;
    acmePortal = (await openPortalSession(call, acme.key, 'cus_1')).secret;
    globexPortal = (await openPortalSession(call, globex.key, 'cus_1')).secret;
  });

  /** The three ways a request acts for an account, on a given host (undefined: the gateway's own). */
  const asAccount = (who: { key: string; source: { path_token: string } }, portal: string, host?: string) => ({
    apiKey: () => call('GET', '/v1/account', { key: who.key, host }),
    ingest: () => call('POST', `/ingest/${who.source.path_token}`, { rawBody: '{"n":1}', headers: { 'content-type': 'application/json' }, host }),
    portal: () => call('GET', '/v1/portal/session', { key: portal, host }),
  });

  it('the owner’s API key, ingest token and portal session work on its host', async () => {
    const on = asAccount(acme, acmePortal, HOST);
    const account = await on.apiKey();
    expect(account.status).toBe(200);
    expect(account.json.data.id).toBe(acme.accountId);
    expect((await on.ingest()).status).toBe(202);
    const portal = await on.portal();
    expect(portal.status).toBe(200);
    expect(portal.json.data.customer).toBe('cus_1');
    // Its portal links are on its domain.
    expect((await openPortalSession(call, acme.key, 'cus_2')).url).toMatch(/^https:\/\/hooks\.acme\.example\/portal#ps_/);
  });

  it('another account’s API key, ingest token and portal session are 404 Not found there, and work elsewhere', async () => {
    const events = () => typedClient(call, globex.key).events.list();
    const before = (await events()).data.length;
    for (const [name, send] of Object.entries(asAccount(globex, globexPortal, HOST))) {
      const res = await send();
      expect(res.status, name).toBe(404);
      expect(res.json, name).toEqual({ error: 'Not found', duration_ms: expect.any(Number) });
    }
    // The refused webhook was not stored.
    expect((await events()).data).toHaveLength(before);

    const elsewhere = asAccount(globex, globexPortal);
    expect((await elsewhere.apiKey()).status).toBe(200);
    expect((await elsewhere.ingest()).status).toBe(202);
    expect((await elsewhere.portal()).status).toBe(200);
    expect((await events()).data).toHaveLength(before + 1);
  });

  it('binds every spelling of the host, every /v1 route and writes too; a bad credential is still 401', async () => {
    for (const host of ['HOOKS.Acme.Example', 'hooks.acme.example.', 'hooks.acme.example:443']) {
      expect((await call('GET', '/v1/account', { key: globex.key, host })).status, host).toBe(404);
      expect((await call('GET', '/v1/account', { key: acme.key, host })).status, host).toBe(200);
    }
    const write = await call('POST', '/v1/sources', { key: globex.key, host: HOST, body: { name: 'branded-by-someone-else' } });
    expect(write.status).toBe(404);
    expect((await call('GET', '/v1/sources', { key: globex.key })).text).not.toContain('branded-by-someone-else');
    expect((await call('POST', '/v1/portal-sessions', { key: globex.key, host: HOST, body: { customer: 'cus_1' } })).status).toBe(404);
    expect((await call('GET', '/v1/portal/endpoints', { key: globexPortal, host: HOST })).status).toBe(404);
    expect((await call('GET', '/v1/account', { key: `hk_${'x'.repeat(43)}`, host: HOST })).status).toBe(401);
    expect((await call('POST', `/ingest/${'x'.repeat(40)}`, { rawBody: '{}', host: HOST })).status).toBe(401);
  });

  it('is not a sign-up page; open pages (portal page, probes) are served', async () => {
    const signUp = await call('POST', '/v1/accounts', { host: HOST, body: { name: 'Impostor' } });
    expect(signUp.status).toBe(404);
    expect(signUp.json.error).toBe('Not found');
    expect((await call('GET', '/portal', { host: HOST })).status).toBe(200);
    expect((await call('GET', '/healthz', { host: HOST })).status).toBe(200);
    expect((await call('POST', '/v1/accounts', { body: { name: 'Elsewhere' } })).status).toBe(201);
  });

  it('an unverified registration binds nothing', async () => {
    const pending = await typedClient(call, acme.key).customDomains.create({ domain: 'pending.acme.example' });
    expect(pending.status).toBe('pending_verification');
    expect((await call('GET', '/v1/account', { key: globex.key, host: 'pending.acme.example' })).status).toBe(200);
    expect((await call('POST', '/v1/accounts', { host: 'pending.acme.example', body: {} })).status).toBe(201);
  });

  it('once the owner deletes the domain, its host serves every account again', async () => {
    expect((await call('DELETE', `/v1/custom-domains/${domainId}`, { key: acme.key })).status).toBe(204);
    const on = asAccount(globex, globexPortal, HOST);
    expect((await on.apiKey()).status).toBe(200);
    expect((await on.ingest()).status).toBe(202);
    expect((await on.portal()).status).toBe(200);
  });
});

describe('squatting: only a verified registration is exclusive, and the first to verify owns the hostname', () => {
  const HOST = 'hooks.bigcorp.example';

  it('a squatter’s earlier registration blocks nobody; it fails once the owner has verified', async () => {
    const owner = await createAccount(call, { name: 'BigCorp' });
    const squatter = await createAccount(call, { name: 'Squatter' });
    const asSquatter = typedClient(call, squatter.key);
    const squat = await asSquatter.customDomains.create({ domain: HOST });
    expect(squat.status).toBe('pending_verification');

    const mine = await call('POST', '/v1/custom-domains', { key: owner.key, body: { domain: HOST } });
    expect(mine.status).toBe(201);
    expect(mine.json.data.verification_token).not.toBe(squat.verification_token);
    // The same account registering it twice is still refused.
    expect((await call('POST', '/v1/custom-domains', { key: owner.key, body: { domain: HOST } })).json.error).toBe('domain already registered');

    // Only the owner can publish the record; the squatter's verify finds its token absent meanwhile.
    await publishTxt(mine.json.data.verification_record.name, mine.json.data.verification_token);
    const early = await asSquatter.customDomains.verify(squat.id);
    expect(early).toMatchObject({
      status: 'pending_verification',
      verification_error: `the TXT records at _hookgate-challenge.${HOST} do not contain the verification token`,
    });
    const verified = await typedClient(call, owner.key).customDomains.verify(mine.json.data.id);
    expect(verified).toMatchObject({ status: 'verified', verification_error: null });

    // The squatter's next verify fails its registration for good, and says why.
    const late = await call('POST', `/v1/custom-domains/${squat.id}/verify`, { key: squatter.key });
    expect(late.status).toBe(200);
    expect(late.json.data).toMatchObject({
      status: 'failed',
      verified_at: null,
      verification_error: 'another registration of this domain was verified first; only the first to verify owns a hostname',
    });
    expect((await asSquatter.customDomains.get(squat.id)).status).toBe('failed');
    // Even with its own token published now, it is too late.
    await publishTxt(squat.verification_record.name, squat.verification_token);
    expect((await asSquatter.customDomains.verify(squat.id)).status).toBe('failed');

    // Verified, the hostname is exclusive: no new registration, and its host serves the owner only.
    const again = await call('POST', '/v1/custom-domains', { key: squatter.key, body: { domain: HOST } });
    expect(again.status).toBe(400);
    expect(again.json.error).toBe('domain already registered');
    expect((await call('GET', '/v1/account', { key: squatter.key, host: HOST })).status).toBe(404);
    expect((await call('GET', '/v1/account', { key: owner.key, host: HOST })).status).toBe(200);
  });

  it('with both records published, whoever verifies first owns it; the other fails', async () => {
    const first = await createAccount(call);
    const second = await createAccount(call);
    const host = 'shared.bigcorp.example';
    const [asFirst, asSecond] = [typedClient(call, first.key), typedClient(call, second.key)];
    const a = await asFirst.customDomains.create({ domain: host });
    const b = await asSecond.customDomains.create({ domain: host });
    await publishTxt(a.verification_record.name, a.verification_token);
    await publishTxt(b.verification_record.name, b.verification_token);
    // The later registration verifies first: registration order does not matter.
    expect((await asSecond.customDomains.verify(b.id)).status).toBe('verified');
    expect((await asFirst.customDomains.verify(a.id)).status).toBe('failed');
  });
});
