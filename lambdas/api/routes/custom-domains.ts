import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { invalid, notFound } from '../../domain/errors';
import { MAX_VERIFIABLE_HOSTNAME_LENGTH, normalizeHostname, verificationRecordName } from '../../domain/hostname';
import { txtResolver } from '../../adapters/dns-txt';
import { newId } from '../../shared/secrets';
import { domainRemoval } from '../../domain/custom-domain-removal';
import { VERIFIED_ELSEWHERE } from '../../domain/domain-ownership';
import {
  deleteUnprovisionedDomain,
  findCustomDomain,
  listCustomDomains,
  markDomainDeleting,
  failRegistration,
  recordVerificationFailure,
  registerCustomDomain,
  verifiedElsewhere,
  verifyRegistration,
} from '../../store/custom-domains';
import { DELETING, type CustomDomainRecord } from '../../store/records';
import { exampleCustomDomain } from '../examples';
import { json, jsonBody, list, noContent } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { customDomainResponse, named, type CustomDomainResponse } from '../schemas';
import { parseJsonBody, parsePathId } from '../validation';

const INVALID_HOSTNAME = 'domain must be a valid hostname';

const domainField = z
  .string({ error: (issue) => (issue.input === undefined ? 'domain is required' : 'domain must be a string') })
  .transform((value, ctx) => {
    const result = normalizeHostname(value);
    if (!result.ok) {
      ctx.addIssue({ code: 'custom', message: INVALID_HOSTNAME });
      return z.NEVER;
    }
    if (result.hostname.length > MAX_VERIFIABLE_HOSTNAME_LENGTH) {
      ctx.addIssue({ code: 'custom', message: `domain must be at most ${MAX_VERIFIABLE_HOSTNAME_LENGTH} characters` });
      return z.NEVER;
    }
    return result.hostname;
  });

const createDomainBody = named(
  'CreateCustomDomainRequest',
  z.strictObject({
    domain: domainField.describe('A hostname such as `hooks.acme.com` (lower-cased, trailing dot removed; punycode for IDNs).'),
  }),
);

/** `hgv_` + base64url of 24 random bytes: what the customer publishes in the TXT record. */
const newVerificationToken = () => `hgv_${randomBytes(24).toString('base64url')}`;

type ShownDomain = CustomDomainRecord & { status: Exclude<CustomDomainRecord['status'], typeof DELETING> };
/** A deleted domain whose teardown is under way is gone for the API (its id is a 404). */
const shown = (d: CustomDomainRecord | undefined): d is ShownDomain => d !== undefined && d.status !== DELETING;
const findShownDomain = async (accountId: string, domainId: string) => {
  const domain = await findCustomDomain(accountId, domainId);
  return shown(domain) ? domain : undefined;
};

export function presentCustomDomain(d: ShownDomain): CustomDomainResponse {
  return {
    id: d.id,
    domain: d.domain,
    verification_token: d.verification_token,
    verification_record: { type: 'TXT', name: verificationRecordName(d.domain), value: d.verification_token },
    status: d.status,
    verification_error: d.verification_error,
    tls_status: d.tls_status,
    tls_validation_record: d.tls_validation_record,
    dns_target: d.dns_target,
    tls_error: d.tls_error,
    created_at: d.created_at,
    verified_at: d.verified_at,
  };
}

/** Why a check did not verify the domain, in words the customer can act on. */
function verificationFailure(domain: CustomDomainRecord, records: string[]): string {
  const name = verificationRecordName(domain.domain);
  return records.length === 0
    ? `no TXT record found at ${name}`
    : `the TXT records at ${name} do not contain the verification token`;
}

/** Verified when the TXT record holds the token (unless another registration wins meanwhile), else the reason kept on the domain. */
async function checkTxtRecord(domain: CustomDomainRecord, now: Date): Promise<CustomDomainRecord | undefined> {
  const records = await txtResolver()(verificationRecordName(domain.domain));
  return records.some((r) => r.trim() === domain.verification_token)
    ? verifyRegistration(domain, now)
    : recordVerificationFailure(domain, verificationFailure(domain, records), now);
}

export const customDomainRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/custom-domains',
    auth: 'api_key',
    doc: {
      operationId: 'createCustomDomain',
      summary: 'Register a custom domain',
      description:
        'Publish `verification_record` (TXT) at your DNS provider, then call verify. Only a verified domain is exclusive: other accounts may register the same hostname meanwhile, and the first registration to verify owns it. `domain already registered` when the hostname is verified already (by any account), or this account already registered it.',
      tag: 'Custom domains',
      body: jsonBody(createDomainBody, { domain: 'hooks.acme.com' }),
      responses: { 201: json('The domain, pending verification.', customDomainResponse, exampleCustomDomain) },
      errors: {
        400: [
          'domain is required',
          'domain must be a string',
          'domain must be a valid hostname',
          'domain must be at most 233 characters',
          'domain already registered',
          'unknown field: extra',
        ],
      },
    },
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, createDomainBody);
      const at = now.toISOString();
      const record: ShownDomain = {
        id: newId(),
        account_id: principal.accountId,
        domain: body.domain,
        verification_token: newVerificationToken(),
        status: 'pending_verification',
        verification_error: null,
        verified_at: null,
        tls_status: 'pending',
        tls_error: null,
        certificate_arn: null,
        tls_validation_record: null,
        dns_target: null,
        api_mapping_done: false,
        created_at: at,
        updated_at: at,
      };
      if (!(await registerCustomDomain(record, now))) throw invalid('domain already registered');
      return { status: 201, data: presentCustomDomain(record) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/custom-domains',
    auth: 'api_key',
    doc: {
      operationId: 'listCustomDomains',
      summary: 'List custom domains',
      tag: 'Custom domains',
      responses: { 200: list('The account’s domains, newest first.', customDomainResponse, [exampleCustomDomain]) },
    },
    handle: async ({ principal }) => ({
      status: 200,
      data: (await listCustomDomains(principal.accountId)).filter(shown).map(presentCustomDomain),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/custom-domains/:id',
    auth: 'api_key',
    doc: {
      operationId: 'getCustomDomain',
      summary: 'Show a custom domain',
      tag: 'Custom domains',
      responses: { 200: json('The domain.', customDomainResponse, exampleCustomDomain) },
    },
    handle: async ({ params, principal }) => {
      const domain = await findShownDomain(principal.accountId, parsePathId(params.id));
      if (!domain) throw notFound();
      return { status: 200, data: presentCustomDomain(domain) };
    },
  }),
  defineRoute({
    /**
     * Checks the TXT record now. Found: verified (TLS set-up starts). Not found: still a 200, the
     * domain unchanged and `verification_error` saying why, so clients can simply poll this endpoint.
     */
    method: 'POST',
    path: '/v1/custom-domains/:id/verify',
    auth: 'api_key',
    doc: {
      operationId: 'verifyCustomDomain',
      summary: 'Check the domain’s TXT record now',
      description:
        `Found: \`status: verified\` and TLS set-up starts. When another registration of the hostname has verified first (with or without this one's record published): \`status: failed\` with \`verification_error: "${VERIFIED_ELSEWHERE}"\`. Not found is not an error: \`200\` with the domain unchanged and \`verification_error\` saying why, so clients can call it again until it succeeds. A verified or failed domain is answered as it is. No body.`,
      tag: 'Custom domains',
      responses: {
        200: json('The domain after the check.', customDomainResponse, {
          ...exampleCustomDomain,
          verification_error: 'no TXT record found at _hookgate-challenge.hooks.acme.com',
        }),
      },
    },
    handle: async ({ params, principal, now }) => {
      const domain = await findShownDomain(principal.accountId, parsePathId(params.id));
      if (!domain) throw notFound();
      if (domain.status !== 'pending_verification') return { status: 200, data: presentCustomDomain(domain) };
      const updated = (await verifiedElsewhere(domain, now)) ? await failRegistration(domain, now) : await checkTxtRecord(domain, now);
      // A concurrent change (a parallel verification, a deletion) won: show the domain as it now is.
      const current = shown(updated) ? updated : await findShownDomain(principal.accountId, domain.id);
      if (!current) throw notFound();
      return { status: 200, data: presentCustomDomain(current) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/custom-domains/:id',
    auth: 'api_key',
    doc: {
      operationId: 'deleteCustomDomain',
      summary: 'Delete a custom domain',
      description:
        'The domain is gone from the API at once. A domain that never got a certificate frees its hostname at once (always the case when running locally); one that did keeps it until the domain provisioner has deleted its API Gateway custom domain, API mapping and ACM certificate (its next run, within 5 minutes), after which any account may register the hostname again.',
      tag: 'Custom domains',
      responses: { 204: noContent('Deleted.') },
    },
    handle: async ({ params, principal, now }) => {
      const domain = await findShownDomain(principal.accountId, parsePathId(params.id));
      if (!domain) throw notFound();
      if (domainRemoval(domain) === 'delete_now' && (await deleteUnprovisionedDomain(domain))) return { status: 204 };
      // It has a certificate, or the provisioner recorded one since it was read. A mark that finds the
      // domain gone or changed lost to a concurrent delete, which has done the work.
      const current = await findCustomDomain(principal.accountId, domain.id);
      if (current && current.status !== DELETING) await markDomainDeleting(current, now);
      return { status: 204 };
    },
  }),
];
