import { ACMClient, DeleteCertificateCommand } from '@aws-sdk/client-acm';
import {
  ApiGatewayV2Client,
  DeleteApiMappingCommand,
  DeleteDomainNameCommand,
  GetApiMappingsCommand,
  GetDomainNameCommand,
  GetDomainNamesCommand,
} from '@aws-sdk/client-apigatewayv2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listStageDomains, removeStageDomains } from '../../scripts/custom-domains';

// `npm run custom-domains`: what `cdk destroy` leaves of the provisioner's work. ACM and API Gateway's
// custom domains are not in the emulators, so their answers are mocked as AWS gives them.
const API = 'abcde12345';
const OTHER_API = 'zzzzz99999';
const cert = (n: number) => `arn:aws:acm:eu-west-1:123456789012:certificate/0000000${n}-aaaa-bbbb-cccc-000000000000`;
const domainName = (name: string, n: number) => ({ DomainName: name, DomainNameConfigurations: [{ CertificateArn: cert(n), EndpointType: 'REGIONAL' as const }] });

const apigw = mockClient(ApiGatewayV2Client);
const acm = mockClient(ACMClient);
beforeEach(() => {
  apigw.reset();
  acm.reset();
  // Two pages; hooks.acme.com and shared.example.org are mapped to this API, other.example.net only to another.
  apigw.on(GetDomainNamesCommand, { NextToken: undefined }).resolves({ Items: [domainName('hooks.acme.com', 1), domainName('other.example.net', 2)], NextToken: 'page2' });
  apigw.on(GetDomainNamesCommand, { NextToken: 'page2' }).resolves({ Items: [domainName('shared.example.org', 3)] });
  apigw.on(GetApiMappingsCommand, { DomainName: 'hooks.acme.com' }).resolves({ Items: [{ ApiId: API, ApiMappingId: 'm1', Stage: '$default' }] });
  apigw.on(GetApiMappingsCommand, { DomainName: 'other.example.net' }).resolves({ Items: [{ ApiId: OTHER_API, ApiMappingId: 'm2', Stage: '$default' }] });
  apigw.on(GetApiMappingsCommand, { DomainName: 'shared.example.org' }).resolves({
    Items: [
      { ApiId: OTHER_API, ApiMappingId: 'm3', Stage: '$default', ApiMappingKey: 'v2' },
      { ApiId: API, ApiMappingId: 'm4', Stage: '$default' },
    ],
  });
  apigw.on(GetDomainNameCommand, { DomainName: 'hooks.acme.com' }).resolves(domainName('hooks.acme.com', 1));
  apigw.on(GetDomainNameCommand, { DomainName: 'shared.example.org' }).resolves(domainName('shared.example.org', 3));
});
afterEach(() => {
  apigw.reset();
  acm.reset();
});

describe('custom domains left by a stage', () => {
  it('lists every domain name of the region (all pages) mapped to the stage’s API, with its certificate, and no other', async () => {
    expect(await listStageDomains(API)).toEqual([
      { hostname: 'hooks.acme.com', certificateArn: cert(1) },
      { hostname: 'shared.example.org', certificateArn: cert(3) },
    ]);
  });

  it('removes only this API’s mappings, then the domain name, then the certificate once ACM lets it go', async () => {
    const inUse = Object.assign(new Error('Certificate is in use'), { name: 'ResourceInUseException' });
    acm.on(DeleteCertificateCommand, { CertificateArn: cert(1) }).rejectsOnce(inUse).resolves({});
    acm.on(DeleteCertificateCommand, { CertificateArn: cert(3) }).resolves({});
    const results = await removeStageDomains(API, await listStageDomains(API), { deadlineMs: 60_000, retryDelayMs: 1 });
    expect(results.map((r) => [r.hostname, r.removed])).toEqual([
      ['hooks.acme.com', true],
      ['shared.example.org', true],
    ]);
    expect(apigw.commandCalls(DeleteApiMappingCommand).map((c) => c.args[0].input)).toEqual([
      { DomainName: 'hooks.acme.com', ApiMappingId: 'm1' },
      { DomainName: 'shared.example.org', ApiMappingId: 'm4' },
    ]);
    expect(apigw.commandCalls(DeleteDomainNameCommand).map((c) => c.args[0].input.DomainName)).toEqual(['hooks.acme.com', 'shared.example.org']);
    expect(acm.commandCalls(DeleteCertificateCommand, { CertificateArn: cert(1) })).toHaveLength(2);
    expect(acm.commandCalls(DeleteCertificateCommand).some((c) => c.args[0].input.CertificateArn === cert(2))).toBe(false);
  });

  it('reports a certificate still in use at the deadline as left (the command exits 1: run it again), and goes on with the others', async () => {
    const inUse = Object.assign(new Error('Certificate is in use'), { name: 'ResourceInUseException' });
    acm.on(DeleteCertificateCommand, { CertificateArn: cert(1) }).rejects(inUse);
    acm.on(DeleteCertificateCommand, { CertificateArn: cert(3) }).resolves({});
    const results = await removeStageDomains(API, await listStageDomains(API), { deadlineMs: 0, retryDelayMs: 1 });
    expect(results).toEqual([
      { hostname: 'hooks.acme.com', certificateArn: cert(1), removed: false, error: 'ResourceInUseException: Certificate is in use' },
      { hostname: 'shared.example.org', certificateArn: cert(3), removed: true },
    ]);
  });
});
