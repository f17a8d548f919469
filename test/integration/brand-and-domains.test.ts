import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACMClient, DeleteCertificateCommand, DescribeCertificateCommand, RequestCertificateCommand } from '@aws-sdk/client-acm';
import {
  ApiGatewayV2Client,
  CreateApiMappingCommand,
  CreateDomainNameCommand,
  DeleteApiMappingCommand,
  DeleteDomainNameCommand,
  GetApiMappingsCommand,
  GetDomainNameCommand,
} from '@aws-sdk/client-apigatewayv2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway } from '../fixtures/gateway';
import { createAccount, typedClient, type Call } from '../fixtures/http-client';

let env: Awaited<ReturnType<typeof bootGateway>>;
let call: Call;
let dnsDir: string;
let dnsFile: string;
let key: string;
let otherKey: string;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN_ID = '0191a5e4-0000-7000-8000-000000000000';
const DEFAULTS = {
  company_name: null,
  logo_url: null,
  primary_color: '#4f46e5',
  accent_color: null,
  docs_title: 'Webhooks',
};

/** What the local resolver answers for TXT lookups (HOOKGATE_DNS_TXT_OVERRIDES), read per lookup. */
const publishTxt = (records: Record<string, string | string[]>) => writeFile(dnsFile, JSON.stringify(records));

beforeAll(async () => {
  dnsDir = await mkdtemp(join(tmpdir(), 'hookgate-dns-it-'));
  dnsFile = join(dnsDir, 'txt.json');
  await publishTxt({});
  env = await bootGateway({ HOOKGATE_DNS_TXT_OVERRIDES: dnsFile });
  call = env.call;
  key = (await createAccount(call, { name: 'Acme' })).key;
  otherKey = (await createAccount(call, { name: 'Globex' })).key;
});
afterAll(async () => {
  await env?.stop();
  if (dnsDir) await rm(dnsDir, { recursive: true, force: true });
});

describe('brand settings', () => {
  it('answers the defaults before anything was set', async () => {
    const res = await call('GET', '/v1/brand-settings', { key });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ ...DEFAULTS, updated_at: null });
  });

  it.each([
    [{ primary_color: 'red' }, 'primary_color must be a #rrggbb colour'],
    [{ primary_color: '#fff' }, 'primary_color must be a #rrggbb colour'],
    [{ accent_color: '22c55e' }, 'accent_color must be a #rrggbb colour'],
    [{ accent_color: 5 }, 'accent_color must be a string'],
    [{ logo_url: 'http://cdn.example.com/logo.png' }, 'logo_url must be an https URL'],
    [{ logo_url: 'not a url' }, 'logo_url must be an https URL'],
    [{ logo_url: `https://cdn.example.com/${'a'.repeat(2048)}` }, 'logo_url must be at most 2048 characters'],
    [{ company_name: '' }, 'company_name must not be empty (use null to clear it)'],
    [{ company_name: 'x'.repeat(101) }, 'company_name must be at most 100 characters'],
    [{ company_name: 'a\u0000b' }, 'company_name must not contain control characters'],
    [{ docs_title: 42 }, 'docs_title must be a string'],
    [{ docs_title: 'y'.repeat(101) }, 'docs_title must be at most 100 characters'],
    [{ theme: 'dark' }, 'unknown field: theme'],
    [[], 'request body must be a JSON object'],
  ])('refuses %j with 400', async (body, message) => {
    const res = await call('POST', '/v1/brand-settings', { key, body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(message);
  });

  it('refuses a body that is not JSON, and needs a key', async () => {
    const bad = await call('POST', '/v1/brand-settings', { key, rawBody: '{nope', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('invalid JSON body');
    expect((await call('GET', '/v1/brand-settings')).status).toBe(401);
    expect((await call('POST', '/v1/brand-settings', { body: { docs_title: 'x' } })).status).toBe(401);
  });

  it('merges: fields left out keep their value, null clears a field back to its default', async () => {
    const first = await call('POST', '/v1/brand-settings', {
      key,
      body: { company_name: 'Acme Inc.', primary_color: '#FF0066', logo_url: 'https://cdn.acme.com/logo.svg' },
    });
    expect(first.status).toBe(200);
    expect(first.json.data).toEqual({
      ...DEFAULTS,
      company_name: 'Acme Inc.',
      primary_color: '#ff0066',
      logo_url: 'https://cdn.acme.com/logo.svg',
      updated_at: expect.stringMatching(ISO),
    });

    const second = await call('POST', '/v1/brand-settings', { key, body: { docs_title: 'Acme webhooks', accent_color: '#000000' } });
    expect(second.json.data).toEqual({
      company_name: 'Acme Inc.',
      logo_url: 'https://cdn.acme.com/logo.svg',
      primary_color: '#ff0066',
      accent_color: '#000000',
      docs_title: 'Acme webhooks',
      updated_at: expect.stringMatching(ISO),
    });

    const cleared = await call('POST', '/v1/brand-settings', { key, body: { logo_url: null, primary_color: null } });
    expect(cleared.json.data).toMatchObject({ logo_url: null, primary_color: DEFAULTS.primary_color, company_name: 'Acme Inc.' });

    // An empty body changes nothing, not even updated_at; GET shows the same settings.
    const empty = await call('POST', '/v1/brand-settings', { key });
    expect(empty.status).toBe(200);
    expect(empty.json.data).toEqual(cleared.json.data);
    const got = await call('GET', '/v1/brand-settings', { key });
    expect(got.json.data).toEqual(empty.json.data);
    expect(got.json.data).toMatchObject({ company_name: 'Acme Inc.', docs_title: 'Acme webhooks', accent_color: '#000000' });
  });

  it('a failed update changes nothing', async () => {
    const hookgate = typedClient(call, key);
    const before = await hookgate.brandSettings.get();
    const res = await call('POST', '/v1/brand-settings', { key, body: { company_name: 'Renamed', primary_color: 'blue' } });
    expect(res.status).toBe(400);
    expect(await hookgate.brandSettings.get()).toEqual(before);
  });

  it('is per account: another account still sees its own defaults', async () => {
    const res = await call('GET', '/v1/brand-settings', { key: otherKey });
    expect(res.json.data).toEqual({ ...DEFAULTS, updated_at: null });
    await typedClient(call, otherKey).brandSettings.update({ company_name: 'Globex' });
    expect((await typedClient(call, key).brandSettings.get()).company_name).toBe('Acme Inc.');
  });
});

describe('custom domains', () => {
  const create = (k: string, domain: unknown) => call('POST', '/v1/custom-domains', { key: k, body: { domain } });

  it('registers a hostname (normalised) and answers how to verify it', async () => {
    const res = await create(key, 'Hooks.Acme-Example.COM.');
    expect(res.status).toBe(201);
    const d = res.json.data;
    expect(d).toEqual({
      id: expect.stringMatching(UUID),
      domain: 'hooks.acme-example.com',
      verification_token: expect.stringMatching(/^hgv_[A-Za-z0-9_-]{32}$/),
      verification_record: { type: 'TXT', name: '_hookgate-challenge.hooks.acme-example.com', value: d.verification_token },
      status: 'pending_verification',
      verification_error: null,
      tls_status: 'pending',
      tls_validation_record: null,
      dns_target: null,
      tls_error: null,
      created_at: expect.stringMatching(ISO),
      verified_at: null,
    });
    expect((await call('GET', `/v1/custom-domains/${d.id}`, { key })).json.data).toEqual(d);
  });

  it.each([
    [{}, 'domain is required'],
    [{ domain: 7 }, 'domain must be a string'],
    [{ domain: null }, 'domain must be a string'],
    [{ domain: '' }, 'domain must be a valid hostname'],
    [{ domain: 'localhost' }, 'domain must be a valid hostname'],
    [{ domain: 'hooks.localhost' }, 'domain must be a valid hostname'],
    [{ domain: '192.168.1.10' }, 'domain must be a valid hostname'],
    [{ domain: '[::1]' }, 'domain must be a valid hostname'],
    [{ domain: 'example' }, 'domain must be a valid hostname'],
    [{ domain: '*.example.com' }, 'domain must be a valid hostname'],
    [{ domain: '-bad.example.com' }, 'domain must be a valid hostname'],
    [{ domain: 'https://hooks.example.com/' }, 'domain must be a valid hostname'],
    [{ domain: 'bücher.example' }, 'domain must be a valid hostname'],
    [{ domain: `${'a'.repeat(64)}.example.com` }, 'domain must be a valid hostname'],
    [{ domain: `${'a.'.repeat(120)}com` }, 'domain must be at most 233 characters'],
    [{ domain: 'ok.example.com', extra: true }, 'unknown field: extra'],
  ])('refuses %j with 400', async (body, message) => {
    const res = await call('POST', '/v1/custom-domains', { key, body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(message);
  });

  it('accepts punycode (internationalised names in their xn-- form)', async () => {
    const res = await create(key, 'xn--bcher-kva.example');
    expect(res.status).toBe(201);
    expect(res.json.data.domain).toBe('xn--bcher-kva.example');
  });

  it('an account registers a hostname once, in any spelling; another account may register it too until one verifies', async () => {
    expect((await create(key, 'dup.example.com')).status).toBe(201);
    for (const spelling of ['dup.example.com', 'DUP.example.com.']) {
      const res = await create(key, spelling);
      expect(res.status).toBe(400);
      expect(res.json.error).toBe('domain already registered');
    }
    const theirs = await create(otherKey, 'DUP.example.com.');
    expect(theirs.status).toBe(201);
    expect((await call('GET', '/v1/custom-domains', { key })).text).not.toContain(theirs.json.data.id);
  });

  it('lists newest first, only the account’s own', async () => {
    const first = (await create(key, 'list-a.example.com')).json.data;
    const second = (await create(key, 'list-b.example.com')).json.data;
    const mine = (await call('GET', '/v1/custom-domains', { key })).json.data as Array<{ id: string }>;
    const ids = mine.map((d) => d.id);
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
    expect(ids.indexOf(second.id)).toBe(0);
    const theirs = await call('GET', '/v1/custom-domains', { key: otherKey });
    expect(theirs.status).toBe(200);
    for (const id of ids) expect(theirs.text).not.toContain(id);
  });

  it('answers 404 for unknown and foreign ids, 400 for malformed ones', async () => {
    const own = (await create(key, 'private.example.com')).json.data;
    for (const [method, path] of [
      ['GET', `/v1/custom-domains/${UNKNOWN_ID}`],
      ['POST', `/v1/custom-domains/${UNKNOWN_ID}/verify`],
    ] as const) {
      const res = await call(method, path, { key });
      expect(res.status).toBe(404);
      expect(res.json.error).toBe('Not found');
    }
    await publishTxt({ '_hookgate-challenge.private.example.com': own.verification_token });
    for (const [method, path] of [
      ['GET', `/v1/custom-domains/${own.id}`],
      ['POST', `/v1/custom-domains/${own.id}/verify`],
    ] as const) {
      const res = await call(method, path, { key: otherKey });
      expect(res.status).toBe(404);
      expect(res.json.error).toBe('Not found');
    }
    // The intruder's verify attempt did nothing to the owner's domain.
    expect((await call('GET', `/v1/custom-domains/${own.id}`, { key })).json.data.status).toBe('pending_verification');
    const malformed = await call('GET', '/v1/custom-domains/not-an-id', { key });
    expect(malformed.status).toBe(400);
    expect(malformed.json.error).toBe('invalid id');
    expect((await call('GET', '/v1/custom-domains', {})).status).toBe(401);
  });

  it('verify without the TXT record, or with another value: 200, still pending, and the reason', async () => {
    const d = (await create(key, 'verify-me.example.com')).json.data;
    await publishTxt({});
    const absent = await call('POST', `/v1/custom-domains/${d.id}/verify`, { key });
    expect(absent.status).toBe(200);
    expect(absent.json.data).toMatchObject({
      status: 'pending_verification',
      verified_at: null,
      verification_error: 'no TXT record found at _hookgate-challenge.verify-me.example.com',
    });

    await publishTxt({ '_hookgate-challenge.verify-me.example.com': ['v=spf1 -all', 'hgv_somebody-elses-token'] });
    const wrong = await call('POST', `/v1/custom-domains/${d.id}/verify`, { key });
    expect(wrong.status).toBe(200);
    expect(wrong.json.data).toMatchObject({
      status: 'pending_verification',
      verification_error: 'the TXT records at _hookgate-challenge.verify-me.example.com do not contain the verification token',
    });
    // The last check's outcome is kept on the domain.
    expect((await call('GET', `/v1/custom-domains/${d.id}`, { key })).json.data.verification_error).toBe(
      wrong.json.data.verification_error,
    );
  });

  it('verify with the record published (among others): verified, TLS set-up pending; verifying again changes nothing', async () => {
    const d = (await create(key, 'ok.acme-example.com')).json.data;
    await publishTxt({ '_hookgate-challenge.ok.acme-example.com.': ['google-site-verification=x', d.verification_token] });
    const res = await call('POST', `/v1/custom-domains/${d.id}/verify`, { key });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({
      ...d,
      status: 'verified',
      verified_at: expect.stringMatching(ISO),
      verification_error: null,
      tls_status: 'pending',
    });
    const got = (await call('GET', `/v1/custom-domains/${d.id}`, { key })).json.data;
    expect(got).toEqual(res.json.data);

    await publishTxt({}); // removing the record later does not un-verify
    const again = await call('POST', `/v1/custom-domains/${d.id}/verify`, { key });
    expect(again.status).toBe(200);
    expect(again.json.data).toEqual(got);
    // Still nobody else's to take.
    expect((await create(otherKey, 'ok.acme-example.com')).json.error).toBe('domain already registered');
  });
});

describe('deleting and owning hostnames', () => {
  it('DELETE: 204, then gone (404, unlisted); another account’s id is a 404; the hostname is free for anyone again', async () => {
    const hookgate = typedClient(call, key);
    const pending = await hookgate.customDomains.create({ domain: 'gone.example.com' });
    const verified = await hookgate.customDomains.create({ domain: 'gone-verified.example.com' });
    await publishTxt({ '_hookgate-challenge.gone-verified.example.com': verified.verification_token });
    expect((await hookgate.customDomains.verify(verified.id)).status).toBe('verified');
    const held = await call('POST', '/v1/custom-domains', { key: otherKey, body: { domain: verified.domain } });
    expect(held.json.error).toBe('domain already registered');

    const foreign = await call('DELETE', `/v1/custom-domains/${pending.id}`, { key: otherKey });
    expect(foreign.status).toBe(404);
    expect(foreign.json.error).toBe('Not found');
    expect((await call('GET', `/v1/custom-domains/${pending.id}`, { key })).status).toBe(200);
    expect((await call('DELETE', `/v1/custom-domains/${UNKNOWN_ID}`, { key })).status).toBe(404);
    expect((await call('DELETE', '/v1/custom-domains/not-an-id', { key })).json.error).toBe('invalid id');
    expect((await call('DELETE', `/v1/custom-domains/${pending.id}`, {})).status).toBe(401);

    for (const d of [pending, verified]) {
      const res = await call('DELETE', `/v1/custom-domains/${d.id}`, { key });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect((await call('GET', `/v1/custom-domains/${d.id}`, { key })).status).toBe(404);
      expect((await call('POST', `/v1/custom-domains/${d.id}/verify`, { key })).status).toBe(404);
      expect((await call('DELETE', `/v1/custom-domains/${d.id}`, { key })).status).toBe(404);
      const listed = await hookgate.customDomains.list();
      expect(listed.map((l) => l.id)).not.toContain(d.id);
      // Locally nothing requested a certificate, so a verified hostname is free at once, for another account too.
      const taken = await call('POST', '/v1/custom-domains', { key: otherKey, body: { domain: d.domain } });
      expect(taken.status).toBe(201);
    }
  });

  it('a verified registration is never taken over', async () => {
    const owner = await createAccount(call, { name: 'Owner' });
    const asOwner = typedClient(call, owner.key);
    const d = await asOwner.customDomains.create({ domain: 'api.owned.example' });
    await publishTxt({ '_hookgate-challenge.api.owned.example': d.verification_token });
    expect((await asOwner.customDomains.verify(d.id)).status).toBe('verified');
    const res = await call('POST', '/v1/custom-domains', { key: otherKey, body: { domain: 'api.owned.example' } });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('domain already registered');
  });
});

describe('TLS provisioning against the local table (ACM and API Gateway mocked; not wired in the local runtime)', () => {
  it('a verified domain shows the certificate CNAME, then its DNS target once issued', async () => {
    const acm = mockClient(ACMClient);
    const apigw = mockClient(ApiGatewayV2Client);
    try {
      const owner = await createAccount(call, { name: 'TLS' });
      const asOwner = typedClient(call, owner.key);
      const d = await asOwner.customDomains.create({ domain: 'in.tls-example.com' });
      await publishTxt({ '_hookgate-challenge.in.tls-example.com': d.verification_token });
      await asOwner.customDomains.verify(d.id);

      const certificateArn = 'arn:aws:acm:us-east-1:123456789012:certificate/abc';
      const certificate = (Status: 'PENDING_VALIDATION' | 'ISSUED') => ({
        Certificate: {
          CertificateArn: certificateArn,
          Status,
          DomainValidationOptions: [
            { DomainName: 'in.tls-example.com', ResourceRecord: { Name: '_x1.in.tls-example.com.', Type: 'CNAME' as const, Value: '_y2.acm-validations.aws.' } },
          ],
        },
      });
      acm.on(RequestCertificateCommand).resolves({ CertificateArn: certificateArn });
      acm.on(DescribeCertificateCommand).resolves(certificate('PENDING_VALIDATION'));
      const { provisionDomains } = await import('../../lambdas/custom-domains/provisioning');
      await provisionDomains({ apiId: 'api123', now: () => new Date() });

      const pending = await asOwner.customDomains.get(d.id);
      expect(pending).toMatchObject({
        status: 'verified',
        tls_status: 'pending',
        tls_validation_record: { type: 'CNAME', name: '_x1.in.tls-example.com', value: '_y2.acm-validations.aws' },
        dns_target: null,
      });

      acm.on(DescribeCertificateCommand).resolves(certificate('ISSUED'));
      apigw.on(CreateDomainNameCommand).resolves({
        DomainNameConfigurations: [{ ApiGatewayDomainName: 'd-abc.execute-api.us-east-1.amazonaws.com', CertificateArn: certificateArn }],
      });
      apigw.on(CreateApiMappingCommand).resolves({});
      await provisionDomains({ apiId: 'api123', now: () => new Date() });

      const issued = await asOwner.customDomains.get(d.id);
      expect(issued).toMatchObject({ tls_status: 'issued', dns_target: 'd-abc.execute-api.us-east-1.amazonaws.com', tls_error: null });
      // Earlier tests' verified domains are provisioned by the same runs; look at this one's calls.
      const mappings = apigw.commandCalls(CreateApiMappingCommand).map((c) => c.args[0].input);
      expect(mappings).toContainEqual({ DomainName: 'in.tls-example.com', ApiId: 'api123', Stage: '$default' });
      // Out of the work index: another run touches none of them.
      const report = await provisionDomains({ apiId: 'api123', now: () => new Date() });
      expect(report.examined).toBe(0);
      const created = apigw.commandCalls(CreateDomainNameCommand).filter((c) => c.args[0].input.DomainName === 'in.tls-example.com');
      expect(created).toHaveLength(1);
    } finally {
      acm.restore();
      apigw.restore();
    }
  });
});

describe('deleting a custom domain that has a certificate (ACM and API Gateway mocked)', () => {
  it('is gone for the API at once; the provisioner removes mapping, domain name and certificate, and only then frees the hostname', async () => {
    const acm = mockClient(ACMClient);
    const apigw = mockClient(ApiGatewayV2Client);
    try {
      const owner = await createAccount(call, { name: 'Leaving' });
      const hostname = 'out.tls-example.com';
      const asOwner = typedClient(call, owner.key);
      const d = await asOwner.customDomains.create({ domain: hostname });
      await publishTxt({ [`_hookgate-challenge.${hostname}`]: d.verification_token });
      await asOwner.customDomains.verify(d.id);
      const certificateArn = 'arn:aws:acm:us-east-1:123456789012:certificate/out';
      acm.on(RequestCertificateCommand).resolves({ CertificateArn: certificateArn });
      acm.on(DescribeCertificateCommand).resolves({ Certificate: { CertificateArn: certificateArn, Status: 'ISSUED' } });
      apigw.on(CreateDomainNameCommand).resolves({
        DomainNameConfigurations: [{ ApiGatewayDomainName: 'd-out.execute-api.us-east-1.amazonaws.com', CertificateArn: certificateArn }],
      });
      apigw.on(CreateApiMappingCommand).resolves({});
      const { provisionDomains } = await import('../../lambdas/custom-domains/provisioning');
      await provisionDomains({ apiId: 'api123', now: () => new Date() });
      expect((await asOwner.customDomains.get(d.id)).tls_status).toBe('issued');

      expect((await call('DELETE', `/v1/custom-domains/${d.id}`, { key: owner.key })).status).toBe(204);
      expect((await call('GET', `/v1/custom-domains/${d.id}`, { key: owner.key })).status).toBe(404);
      expect(await asOwner.customDomains.list()).toEqual([]);
      // Held until API Gateway no longer serves it, so a new registration cannot meet the old domain name.
      const early = await call('POST', '/v1/custom-domains', { key: otherKey, body: { domain: hostname } });
      expect(early.json.error).toBe('domain already registered');

      apigw.on(GetDomainNameCommand, { DomainName: hostname }).resolves({
        DomainNameConfigurations: [{ ApiGatewayDomainName: 'd-out.execute-api.us-east-1.amazonaws.com', CertificateArn: certificateArn }],
      });
      apigw.on(GetApiMappingsCommand, { DomainName: hostname }).resolves({ Items: [{ ApiId: 'api123', Stage: '$default', ApiMappingId: 'm-out' }] });
      apigw.on(DeleteApiMappingCommand).resolves({});
      apigw.on(DeleteDomainNameCommand).resolves({});
      acm.on(DeleteCertificateCommand).resolves({});
      const report = await provisionDomains({ apiId: 'api123', now: () => new Date() });
      expect(report.outcomes.removed).toBe(1);
      expect(apigw.commandCalls(DeleteApiMappingCommand).map((c) => c.args[0].input)).toEqual([{ DomainName: hostname, ApiMappingId: 'm-out' }]);
      expect(apigw.commandCalls(DeleteDomainNameCommand).map((c) => c.args[0].input)).toEqual([{ DomainName: hostname }]);
      expect(acm.commandCalls(DeleteCertificateCommand).map((c) => c.args[0].input)).toEqual([{ CertificateArn: certificateArn }]);

      const taken = await call('POST', '/v1/custom-domains', { key: otherKey, body: { domain: hostname } });
      expect(taken.status).toBe(201);
    } finally {
      acm.restore();
      apigw.restore();
    }
  });
});

describe('sources tied to a custom domain', () => {
  it('use the domain in their ingest URL once it is verified; other accounts’ or unknown domains are refused', async () => {
    const hookgate = typedClient(call, key);
    const domain = await hookgate.customDomains.create({ domain: 'hooks.linked-source.test' });
    const source = await call('POST', '/v1/sources', { key, body: { name: 'branded', custom_domain_id: domain.id } });
    expect(source.status).toBe(201);
    expect(source.json.data.custom_domain_id).toBe(domain.id);
    expect(source.json.data.ingest_url).toBe(`${env.gateway.url}/ingest/${source.json.data.path_token}`);

    await publishTxt({ [domain.verification_record.name]: domain.verification_token });
    expect((await hookgate.customDomains.verify(domain.id)).status).toBe('verified');
    const after = await hookgate.sources.get(source.json.data.id);
    expect(after.ingest_url).toBe(`https://hooks.linked-source.test/ingest/${source.json.data.path_token}`);
    expect((await hookgate.sources.list()).find((s) => s.id === source.json.data.id)?.ingest_url).toBe(after.ingest_url);

    const foreign = await call('POST', '/v1/sources', { key: otherKey, body: { name: 'x', custom_domain_id: domain.id } });
    expect(foreign.status).toBe(400);
    expect(foreign.json.error).toBe('custom_domain_id does not match a custom domain of this account');
    const plain = await hookgate.sources.create({ name: 'plain' });
    const linked = await hookgate.sources.update(plain.id, { custom_domain_id: domain.id });
    expect(linked.ingest_url).toBe(`https://hooks.linked-source.test/ingest/${plain.path_token}`);
    const unlinked = await hookgate.sources.update(plain.id, { custom_domain_id: null });
    expect(unlinked.ingest_url).toBe(`${env.gateway.url}/ingest/${plain.path_token}`);
  });
});
