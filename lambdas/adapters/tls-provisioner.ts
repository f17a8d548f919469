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

/**
 * ACM and API Gateway, as the domain provisioner needs them. Permanent refusals become a
 * `TlsSetupError` with a reason the customer may see; anything else (throttling, a 5xx, the network)
 * is thrown as is and retried on the next run.
 */
export class TlsSetupError extends Error {
  constructor(
    readonly reason: string,
    /** AWS's own error, for the log only. */
    readonly awsError?: unknown,
  ) {
    super(reason);
    this.name = 'TlsSetupError';
  }
}

/** A DNS record ACM asks for, as ACM names it. */
interface AcmDnsRecord {
  type: string;
  name: string;
  value: string;
}

export interface CertificateState {
  /** ACM's status: PENDING_VALIDATION, ISSUED, FAILED, VALIDATION_TIMED_OUT, REVOKED, EXPIRED, INACTIVE. */
  status: string;
  /** The CNAME the customer must publish so ACM can validate, once ACM has made it up. */
  validationRecord: AcmDnsRecord | null;
  failureReason: string | null;
}

let acm: ACMClient | undefined;
let apigw: ApiGatewayV2Client | undefined;
const acmClient = () => (acm ??= new ACMClient({}));
const apigwClient = () => (apigw ??= new ApiGatewayV2Client({}));

const THROTTLING = new Set(['ThrottlingException', 'TooManyRequestsException', 'RequestLimitExceeded']);

/** A 4xx that is not throttling: the request itself was refused, so retrying cannot help. */
function isPermanent(error: unknown): boolean {
  const e = error as { $fault?: unknown; name?: unknown };
  return e.$fault === 'client' && !THROTTLING.has(String(e.name));
}

const nameOf = (error: unknown) => String((error as { name?: unknown }).name);
/**
 * What the customer sees of an AWS refusal: its error code, a stable name. AWS's message text can
 * name ARNs and this deployment's account id; the provisioner logs it instead.
 */
const codeOf = (error: unknown) => {
  const name = nameOf(error);
  return /^[A-Za-z]+$/.test(name) ? name : 'an unexpected error';
};
const withoutTrailingDot = (name: string) => name.replace(/\.$/, '');

async function permanentAs<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isPermanent(error)) throw new TlsSetupError(`${what}: ${codeOf(error)}`, error);
    throw error;
  }
}

/**
 * Requests a DNS-validated certificate for one hostname. The token (stable per domain) makes a repeat
 * within an hour return the same certificate, so a crash before its ARN was stored costs nothing.
 */
export function requestCertificate(hostname: string, idempotencyToken: string): Promise<string> {
  return permanentAs('certificate request refused', async () => {
    const out = await acmClient().send(
      new RequestCertificateCommand({ DomainName: hostname, ValidationMethod: 'DNS', IdempotencyToken: idempotencyToken }),
    );
    if (!out.CertificateArn) throw new Error('ACM returned no certificate ARN');
    return out.CertificateArn;
  });
}

export function describeCertificate(certificateArn: string): Promise<CertificateState> {
  return permanentAs('certificate lookup failed', async () => {
    const out = await acmClient().send(new DescribeCertificateCommand({ CertificateArn: certificateArn }));
    const certificate = out.Certificate;
    const record = certificate?.DomainValidationOptions?.find((o) => o.ResourceRecord)?.ResourceRecord;
    return {
      status: certificate?.Status ?? 'PENDING_VALIDATION',
      validationRecord:
        record?.Name && record.Value
          ? { type: record.Type ?? 'CNAME', name: withoutTrailingDot(record.Name), value: withoutTrailingDot(record.Value) }
          : null,
      failureReason: certificate?.FailureReason ?? null,
    };
  });
}

/**
 * The regional API Gateway domain name for the hostname, with the certificate; returns the target
 * the customer points a CNAME at. A domain name left by an earlier run (same certificate) is reused.
 */
export async function ensureDomainName(hostname: string, certificateArn: string): Promise<string> {
  try {
    const out = await apigwClient().send(
      new CreateDomainNameCommand({
        DomainName: hostname,
        DomainNameConfigurations: [{ CertificateArn: certificateArn, EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2' }],
      }),
    );
    const target = out.DomainNameConfigurations?.[0]?.ApiGatewayDomainName;
    if (!target) throw new Error('API Gateway returned no target domain name');
    return target;
  } catch (error) {
    if (nameOf(error) !== 'ConflictException') {
      if (isPermanent(error)) throw new TlsSetupError(`custom domain refused by API Gateway: ${codeOf(error)}`, error);
      throw error;
    }
  }
  // It exists already: ours from an earlier run that died before recording it, or someone else's.
  let existing;
  try {
    existing = await apigwClient().send(new GetDomainNameCommand({ DomainName: hostname }));
  } catch (error) {
    if (nameOf(error) === 'NotFoundException') {
      throw new TlsSetupError('the hostname is already a custom domain in API Gateway under another AWS account');
    }
    throw error;
  }
  const configuration = existing.DomainNameConfigurations?.[0];
  if (configuration?.CertificateArn !== certificateArn || !configuration.ApiGatewayDomainName) {
    throw new TlsSetupError('the hostname is already a custom domain in API Gateway with another certificate');
  }
  return configuration.ApiGatewayDomainName;
}

/** Maps the whole hostname (no path key) to the API's `$default` stage; an identical mapping counts as done. */
export async function ensureApiMapping(hostname: string, apiId: string, stage = '$default'): Promise<void> {
  try {
    await apigwClient().send(new CreateApiMappingCommand({ DomainName: hostname, ApiId: apiId, Stage: stage }));
    return;
  } catch (error) {
    if (nameOf(error) !== 'ConflictException') {
      if (isPermanent(error)) throw new TlsSetupError(`API mapping refused by API Gateway: ${codeOf(error)}`, error);
      throw error;
    }
  }
  const mappings = await apigwClient().send(new GetApiMappingsCommand({ DomainName: hostname }));
  const ours = mappings.Items?.some((m) => m.ApiId === apiId && m.Stage === stage && !m.ApiMappingKey);
  if (!ours) throw new TlsSetupError('the hostname is already mapped to another API in API Gateway');
}

/** Runs a delete; "not found" means an earlier run already did it. */
async function deleteUnlessGone(call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    if (nameOf(error) === 'NotFoundException' || nameOf(error) === 'ResourceNotFoundException') return;
    throw error;
  }
}

/**
 * Removes the hostname's API Gateway domain name and this API's mapping on it, but only when the
 * domain name carries our certificate: one with another is not ours to delete. Every step tolerates
 * one already done, so an interrupted teardown is finished by the next run.
 */
export async function removeDomainName(hostname: string, certificateArn: string, apiId: string): Promise<void> {
  let existing;
  try {
    existing = await apigwClient().send(new GetDomainNameCommand({ DomainName: hostname }));
  } catch (error) {
    if (nameOf(error) === 'NotFoundException') return;
    throw error;
  }
  if (existing.DomainNameConfigurations?.[0]?.CertificateArn !== certificateArn) return;
  const mappings = await apigwClient().send(new GetApiMappingsCommand({ DomainName: hostname }));
  for (const mapping of mappings.Items ?? []) {
    if (mapping.ApiId !== apiId || !mapping.ApiMappingId) continue;
    const apiMappingId = mapping.ApiMappingId;
    await deleteUnlessGone(() => apigwClient().send(new DeleteApiMappingCommand({ DomainName: hostname, ApiMappingId: apiMappingId })));
  }
  await deleteUnlessGone(() => apigwClient().send(new DeleteDomainNameCommand({ DomainName: hostname })));
}

/**
 * Deletes a certificate. ACM refuses while a domain name still uses it (`ResourceInUseException`,
 * for a while after the domain name was deleted): that is thrown as is, and the next run tries again.
 */
export const deleteCertificate = (certificateArn: string): Promise<void> =>
  deleteUnlessGone(() => acmClient().send(new DeleteCertificateCommand({ CertificateArn: certificateArn })));
