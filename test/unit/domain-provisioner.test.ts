import {
  ACMClient,
  DeleteCertificateCommand,
  DescribeCertificateCommand,
  type CertificateStatus,
  InvalidDomainValidationOptionsException,
  RequestCertificateCommand,
  ResourceInUseException,
  ThrottlingException,
} from '@aws-sdk/client-acm';
import {
  ApiGatewayV2Client,
  ConflictException,
  CreateApiMappingCommand,
  CreateDomainNameCommand,
  DeleteApiMappingCommand,
  DeleteDomainNameCommand,
  GetApiMappingsCommand,
  GetDomainNameCommand,
  NotFoundException,
} from '@aws-sdk/client-apigatewayv2';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DeleteCommandInput,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler } from '../../lambdas/handlers/domain-provisioner';
import { resetConfigForTests } from '../../lambdas/shared/config';
import { customDomainEntity, DOMAIN_WORK, domainLookupEntity } from '../../lambdas/custom-domains/record';
import type { CustomDomainRecord } from '../../lambdas/custom-domains/record';
import { UNIT_ENV } from '../fixtures/apigw';

const ddb = mockClient(DynamoDBDocumentClient);
const acm = mockClient(ACMClient);
const apigw = mockClient(ApiGatewayV2Client);

const API_ID = 'a1b2c3d4e5';
const ACCOUNT = '0191a5e4-1111-7000-8000-000000000001';
const DOMAIN_ID = '0191a5e4-2222-7000-8000-000000000002';
const CERT_ARN = 'arn:aws:acm:us-east-1:123456789012:certificate/6f0c5f4e-aaaa-bbbb-cccc-0123456789ab';
const TARGET = 'd-abc123xyz.execute-api.us-east-1.amazonaws.com';
const VALIDATION = {
  Name: '_3639ac514e785e898d2646601fa951d5.hooks.acme.com.',
  Type: 'CNAME' as const,
  Value: '_98d2646601fa951d53639ac514e785e8.mhbtsbpdnt.acm-validations.aws.',
};

/**
 * A tiny DynamoDB: one table of items, the gsi2 query, and the SET/REMOVE updates with `a = b AND …`
 * conditions that the custom-domain store writes. Enough to run the real store code over several runs.
 */
const items = new Map<string, Record<string, unknown>>();
const itemKey = (k: Record<string, unknown>) => `${String(k.pk)}|${String(k.sk)}`;

function checkCondition(item: Record<string, unknown> | undefined, input: UpdateCommandInput | DeleteCommandInput): void {
  const names = input.ExpressionAttributeNames ?? {};
  const values = input.ExpressionAttributeValues ?? {};
  const field = (token: string) => names[token] ?? token;
  for (const clause of (input.ConditionExpression ?? '').split(' AND ').filter(Boolean)) {
    const [left, right] = clause.split(' = ').map((t) => t.trim());
    if (!item || item[field(left ?? '')] !== values[right ?? '']) {
      throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
    }
  }
}

function applyUpdate(input: UpdateCommandInput): Record<string, unknown> {
  const item = items.get(itemKey(input.Key ?? {}));
  const names = input.ExpressionAttributeNames ?? {};
  const values = input.ExpressionAttributeValues ?? {};
  const field = (token: string) => names[token] ?? token;
  checkCondition(item, input);
  if (!item) throw new Error('update of a missing item without a condition');
  const [setPart, removePart] = (input.UpdateExpression ?? '').replace(/^SET /, '').split(' REMOVE ');
  for (const assignment of (setPart ?? '').split(', ').filter(Boolean)) {
    const [name, value] = assignment.split(' = ');
    item[field(name ?? '')] = values[value ?? ''];
  }
  for (const name of (removePart ?? '').split(', ').filter(Boolean)) delete item[field(name)];
  return structuredClone(item);
}

function domainItem(): Record<string, unknown> {
  const at = '2026-05-01T10:00:00.000Z';
  const record: CustomDomainRecord = {
    id: DOMAIN_ID,
    account_id: ACCOUNT,
    domain: 'hooks.acme.com',
    verification_token: 'hgv_token',
    status: 'verified',
    verification_error: null,
    verified_at: at,
    tls_status: 'pending',
    tls_error: null,
    certificate_arn: null,
    tls_validation_record: null,
    dns_target: null,
    api_mapping_done: false,
    created_at: at,
    updated_at: at,
  };
  return {
    ...customDomainEntity.key(ACCOUNT, DOMAIN_ID),
    entity: 'custom_domain',
    ...record,
    gsi2pk: DOMAIN_WORK.tlsPending,
    gsi2sk: `${at}#${ACCOUNT}#${DOMAIN_ID}`,
  };
}

const stored = () => items.get(itemKey(customDomainEntity.key(ACCOUNT, DOMAIN_ID))) as Record<string, unknown>;
const run = () => handler();

beforeAll(() => {
  Object.assign(process.env, UNIT_ENV, { HOOKGATE_HTTP_API_ID: API_ID, HOOKGATE_LOG_LEVEL: 'error' });
  resetConfigForTests();
});
beforeEach(() => {
  ddb.reset();
  acm.reset();
  apigw.reset();
  items.clear();
  const seeded = domainItem();
  items.set(itemKey(seeded), seeded);
  ddb.on(GetCommand).callsFake((input: { Key: Record<string, unknown> }) => {
    const item = items.get(itemKey(input.Key));
    return { Item: item && structuredClone(item) };
  });
  ddb.on(QueryCommand).callsFake((input: { IndexName?: string; ExpressionAttributeValues: Record<string, unknown> }) => {
    expect(input.IndexName).toBe('gsi2');
    const wanted = input.ExpressionAttributeValues[':pk'];
    const found = [...items.values()].filter((i) => i.gsi2pk === wanted);
    return { Items: found.map(({ pk, sk, gsi2pk, gsi2sk }) => ({ pk, sk, gsi2pk, gsi2sk })) };
  });
  ddb.on(UpdateCommand).callsFake((input: UpdateCommandInput) => ({ Attributes: applyUpdate(input) }));
  ddb.on(DeleteCommand).callsFake((input: DeleteCommandInput) => {
    checkCondition(items.get(itemKey(input.Key ?? {})), input);
    items.delete(itemKey(input.Key ?? {}));
    return {};
  });
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

const certificate = (Status: CertificateStatus, extra: Record<string, unknown> = {}) => ({
  Certificate: {
    CertificateArn: CERT_ARN,
    DomainName: 'hooks.acme.com',
    Status,
    DomainValidationOptions: [{ DomainName: 'hooks.acme.com', ValidationMethod: 'DNS' as const, ResourceRecord: VALIDATION }],
    ...extra,
  },
});

describe('domain provisioner', () => {
  it('happy path over two runs: certificate requested and its CNAME shown, then domain and mapping created once issued', async () => {
    acm.on(RequestCertificateCommand).resolves({ CertificateArn: CERT_ARN });
    acm.on(DescribeCertificateCommand).resolves(certificate('PENDING_VALIDATION'));

    const first = await run();
    expect(first.outcomes.requested).toBe(1);
    expect(acm.commandCalls(RequestCertificateCommand)[0]?.args[0].input).toEqual({
      DomainName: 'hooks.acme.com',
      ValidationMethod: 'DNS',
      IdempotencyToken: DOMAIN_ID.replaceAll('-', ''),
    });
    expect(stored()).toMatchObject({
      tls_status: 'pending',
      certificate_arn: CERT_ARN,
      tls_validation_record: {
        type: 'CNAME',
        name: '_3639ac514e785e898d2646601fa951d5.hooks.acme.com',
        value: '_98d2646601fa951d53639ac514e785e8.mhbtsbpdnt.acm-validations.aws',
      },
      dns_target: null,
      gsi2pk: DOMAIN_WORK.tlsPending,
    });
    expect(apigw.calls()).toHaveLength(0);

    // The customer publishes the CNAME; ACM issues the certificate.
    acm.on(DescribeCertificateCommand).resolves(certificate('ISSUED'));
    apigw.on(CreateDomainNameCommand).resolves({
      DomainName: 'hooks.acme.com',
      DomainNameConfigurations: [{ ApiGatewayDomainName: TARGET, CertificateArn: CERT_ARN, EndpointType: 'REGIONAL' }],
    });
    apigw.on(CreateApiMappingCommand).resolves({ ApiMappingId: 'map1', ApiId: API_ID, Stage: '$default' });

    const second = await run();
    expect(second.outcomes.issued).toBe(1);
    expect(acm.commandCalls(RequestCertificateCommand)).toHaveLength(1); // not requested again
    expect(apigw.commandCalls(CreateDomainNameCommand)[0]?.args[0].input).toEqual({
      DomainName: 'hooks.acme.com',
      DomainNameConfigurations: [{ CertificateArn: CERT_ARN, EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2' }],
    });
    expect(apigw.commandCalls(CreateApiMappingCommand)[0]?.args[0].input).toEqual({
      DomainName: 'hooks.acme.com',
      ApiId: API_ID,
      Stage: '$default',
    });
    expect(stored()).toMatchObject({ tls_status: 'issued', dns_target: TARGET, tls_error: null, api_mapping_done: true });
    expect(stored().gsi2pk).toBeUndefined(); // out of the work index

    // Idempotent: a third run finds nothing to do and calls nobody.
    const third = await run();
    expect(third.examined).toBe(0);
    expect(acm.commandCalls(DescribeCertificateCommand)).toHaveLength(2);
    expect(apigw.commandCalls(CreateDomainNameCommand)).toHaveLength(1);
  });

  it('a run while ACM still waits for the CNAME writes nothing and requests nothing', async () => {
    acm.on(RequestCertificateCommand).resolves({ CertificateArn: CERT_ARN });
    acm.on(DescribeCertificateCommand).resolves(certificate('PENDING_VALIDATION'));
    await run();
    const updates = ddb.commandCalls(UpdateCommand).length;
    const again = await run();
    expect(again.outcomes.waiting).toBe(1);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(updates);
    expect(acm.commandCalls(RequestCertificateCommand)).toHaveLength(1);
  });

  it('ACM refusing the request → tls_status failed with its error code (never AWS’s text, which names ARNs and the account), out of the work index', async () => {
    acm.on(RequestCertificateCommand).rejects(
      new InvalidDomainValidationOptionsException({
        message: 'User: arn:aws:sts::123456789012:assumed-role/Hookgate-prod/fn is not allowed to validate hooks.acme.com',
        $metadata: {},
      }),
    );
    const report = await run();
    expect(report.outcomes.failed).toBe(1);
    expect(stored()).toMatchObject({
      status: 'verified',
      tls_status: 'failed',
      tls_error: 'certificate request refused: InvalidDomainValidationOptionsException',
    });
    expect(JSON.stringify(stored())).not.toContain('123456789012');
    expect(stored().gsi2pk).toBeUndefined();
    expect(apigw.calls()).toHaveLength(0);
  });

  it('a certificate that failed or timed out in validation → failed with ACM’s reason', async () => {
    acm.on(RequestCertificateCommand).resolves({ CertificateArn: CERT_ARN });
    acm.on(DescribeCertificateCommand).resolves(certificate('FAILED', { FailureReason: 'CAA_ERROR' }));
    await run();
    expect(stored()).toMatchObject({ tls_status: 'failed', tls_error: 'certificate failed: CAA_ERROR' });

    items.clear();
    const seeded = { ...domainItem(), certificate_arn: CERT_ARN };
    items.set(itemKey(seeded), seeded);
    acm.on(DescribeCertificateCommand).resolves(certificate('VALIDATION_TIMED_OUT'));
    await run();
    expect(stored()).toMatchObject({ tls_status: 'failed', tls_error: 'certificate validation_timed_out' });
  });

  it('throttling leaves the domain pending for the next run, which then proceeds', async () => {
    acm.on(RequestCertificateCommand).rejectsOnce(new ThrottlingException({ message: 'Rate exceeded', $metadata: {} }));
    const report = await run();
    expect(report.outcomes.error).toBe(1);
    expect(stored()).toMatchObject({ tls_status: 'pending', certificate_arn: null, gsi2pk: DOMAIN_WORK.tlsPending });

    acm.on(RequestCertificateCommand).resolves({ CertificateArn: CERT_ARN });
    acm.on(DescribeCertificateCommand).resolves(certificate('PENDING_VALIDATION'));
    expect((await run()).outcomes.requested).toBe(1);
  });

  it('recovers from a run that died after creating the API Gateway domain and mapping (conflicts are ours)', async () => {
    const seeded = { ...domainItem(), certificate_arn: CERT_ARN };
    items.set(itemKey(seeded), seeded);
    acm.on(DescribeCertificateCommand).resolves(certificate('ISSUED'));
    apigw.on(CreateDomainNameCommand).rejects(new ConflictException({ message: 'exists', $metadata: {} }));
    apigw.on(GetDomainNameCommand).resolves({
      DomainName: 'hooks.acme.com',
      DomainNameConfigurations: [{ ApiGatewayDomainName: TARGET, CertificateArn: CERT_ARN }],
    });
    apigw.on(CreateApiMappingCommand).rejects(new ConflictException({ message: 'exists', $metadata: {} }));
    apigw.on(GetApiMappingsCommand).resolves({ Items: [{ ApiId: API_ID, Stage: '$default', ApiMappingId: 'm1' }] });
    expect((await run()).outcomes.issued).toBe(1);
    expect(stored()).toMatchObject({ tls_status: 'issued', dns_target: TARGET });
    expect(acm.commandCalls(RequestCertificateCommand)).toHaveLength(0);
  });

  it('a hostname that API Gateway already serves with another certificate → failed, never hijacked', async () => {
    const seeded = { ...domainItem(), certificate_arn: CERT_ARN };
    items.set(itemKey(seeded), seeded);
    acm.on(DescribeCertificateCommand).resolves(certificate('ISSUED'));
    apigw.on(CreateDomainNameCommand).rejects(new ConflictException({ message: 'exists', $metadata: {} }));
    apigw.on(GetDomainNameCommand).resolves({
      DomainName: 'hooks.acme.com',
      DomainNameConfigurations: [{ ApiGatewayDomainName: TARGET, CertificateArn: `${CERT_ARN}-other` }],
    });
    await run();
    expect(stored()).toMatchObject({
      tls_status: 'failed',
      tls_error: 'the hostname is already a custom domain in API Gateway with another certificate',
    });
    expect(apigw.commandCalls(CreateApiMappingCommand)).toHaveLength(0);
  });

  describe('a deleted domain (status deleting, in the deleting work index)', () => {
    const LOOKUP = { ...domainLookupEntity.key('hooks.acme.com'), account_id: ACCOUNT, domain_id: DOMAIN_ID, created_at: '2026-05-01T10:00:00.000Z' };
    const seedDeleting = () => {
      const seeded = {
        ...domainItem(),
        certificate_arn: CERT_ARN,
        dns_target: TARGET,
        api_mapping_done: true,
        tls_status: 'issued',
        status: 'deleting',
        gsi2pk: DOMAIN_WORK.deleting,
        gsi2sk: `2026-05-02T10:00:00.000Z#${ACCOUNT}#${DOMAIN_ID}`,
      };
      items.set(itemKey(seeded), seeded);
      items.set(itemKey(LOOKUP), { ...LOOKUP });
    };
    const ours = { DomainName: 'hooks.acme.com', DomainNameConfigurations: [{ ApiGatewayDomainName: TARGET, CertificateArn: CERT_ARN }] };

    it('loses its mapping, its API Gateway domain name and its certificate, then its items, which frees the hostname', async () => {
      seedDeleting();
      apigw.on(GetDomainNameCommand).resolves(ours);
      apigw.on(GetApiMappingsCommand).resolves({
        Items: [
          { ApiId: API_ID, Stage: '$default', ApiMappingId: 'm1' },
          { ApiId: 'other-api', Stage: '$default', ApiMappingId: 'm2' },
        ],
      });
      apigw.on(DeleteApiMappingCommand).resolves({});
      apigw.on(DeleteDomainNameCommand).resolves({});
      acm.on(DeleteCertificateCommand).resolves({});

      const report = await run();
      expect(report.outcomes.removed).toBe(1);
      expect(apigw.commandCalls(DeleteApiMappingCommand).map((c) => c.args[0].input)).toEqual([
        { DomainName: 'hooks.acme.com', ApiMappingId: 'm1' },
      ]);
      expect(apigw.commandCalls(DeleteDomainNameCommand)[0]?.args[0].input).toEqual({ DomainName: 'hooks.acme.com' });
      expect(acm.commandCalls(DeleteCertificateCommand)[0]?.args[0].input).toEqual({ CertificateArn: CERT_ARN });
      expect(items.has(itemKey(customDomainEntity.key(ACCOUNT, DOMAIN_ID)))).toBe(false);
      expect(items.has(itemKey(LOOKUP))).toBe(false);
      // Nothing is provisioned for it meanwhile.
      expect(acm.commandCalls(RequestCertificateCommand)).toHaveLength(0);
      expect(apigw.commandCalls(CreateDomainNameCommand)).toHaveLength(0);
    });

    it('a certificate still in use keeps the items (and the hostname) for the next run, which finishes what is left', async () => {
      seedDeleting();
      apigw.on(GetDomainNameCommand).resolvesOnce(ours).rejects(new NotFoundException({ message: 'gone', $metadata: {} }));
      apigw.on(GetApiMappingsCommand).resolves({ Items: [{ ApiId: API_ID, Stage: '$default', ApiMappingId: 'm1' }] });
      apigw.on(DeleteApiMappingCommand).resolves({});
      apigw.on(DeleteDomainNameCommand).resolves({});
      acm.on(DeleteCertificateCommand).rejectsOnce(new ResourceInUseException({ message: 'in use', $metadata: {} })).resolves({});

      expect((await run()).outcomes.error).toBe(1);
      expect(stored()).toMatchObject({ status: 'deleting', gsi2pk: DOMAIN_WORK.deleting });
      expect(items.has(itemKey(LOOKUP))).toBe(true);

      expect((await run()).outcomes.removed).toBe(1);
      expect(apigw.commandCalls(DeleteDomainNameCommand)).toHaveLength(1); // already gone: not deleted again
      expect(acm.commandCalls(DeleteCertificateCommand)).toHaveLength(2);
      expect(items.has(itemKey(LOOKUP))).toBe(false);
    });

    it('an API Gateway domain name with another certificate is not ours: left alone, only our certificate goes', async () => {
      seedDeleting();
      apigw.on(GetDomainNameCommand).resolves({
        DomainName: 'hooks.acme.com',
        DomainNameConfigurations: [{ ApiGatewayDomainName: TARGET, CertificateArn: `${CERT_ARN}-other` }],
      });
      acm.on(DeleteCertificateCommand).resolves({});
      expect((await run()).outcomes.removed).toBe(1);
      expect(apigw.commandCalls(DeleteApiMappingCommand)).toHaveLength(0);
      expect(apigw.commandCalls(DeleteDomainNameCommand)).toHaveLength(0);
      expect(acm.commandCalls(DeleteCertificateCommand)).toHaveLength(1);
    });

    it('a certificate requested for a domain deleted meanwhile (its items gone) is deleted, not left behind', async () => {
      acm.on(RequestCertificateCommand).callsFake(() => {
        items.delete(itemKey(customDomainEntity.key(ACCOUNT, DOMAIN_ID))); // the API deleted it during the request
        return { CertificateArn: CERT_ARN };
      });
      acm.on(DeleteCertificateCommand).resolves({});
      expect((await run()).outcomes.skipped).toBe(1);
      expect(acm.commandCalls(DeleteCertificateCommand)[0]?.args[0].input).toEqual({ CertificateArn: CERT_ARN });
    });
  });

  it('needs the HTTP API id from its environment', async () => {
    delete process.env.HOOKGATE_HTTP_API_ID;
    resetConfigForTests();
    try {
      await expect(run()).rejects.toThrow(/HOOKGATE_HTTP_API_ID/);
    } finally {
      process.env.HOOKGATE_HTTP_API_ID = API_ID;
      resetConfigForTests();
    }
  });
});
