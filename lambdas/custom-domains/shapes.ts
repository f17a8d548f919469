import * as z from 'zod';
import { MAX_VERIFIABLE_HOSTNAME_LENGTH, normalizeHostname, verificationRecordName } from '../domain/hostname';
import { at, ids } from '../api-kit/examples';
import { named } from '../api-kit/schemas';
import type { ShownDomain } from './index';
import { DOMAIN_STATUSES, TLS_STATUSES } from '../domain/vocabulary';

/** A custom domain's API shapes: the request, the answer (typed, so the presenter cannot drift), the example. */

const uuid = z.uuid();
const timestamp = z.iso.datetime();

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

export const createDomainBody = named(
  'CreateCustomDomainRequest',
  z.strictObject({
    domain: domainField.describe('A hostname such as `hooks.acme.com` (lower-cased, trailing dot removed; punycode for IDNs).'),
  }),
);

const dnsRecordResponse = z.strictObject({ type: z.string(), name: z.string(), value: z.string() });

export const customDomainResponse = named(
  'CustomDomain',
  z.strictObject({
    id: uuid,
    domain: z.string(),
    verification_token: z.string(),
    verification_record: z.strictObject({ type: z.literal('TXT'), name: z.string(), value: z.string() }),
    status: z.enum(DOMAIN_STATUSES),
    verification_error: z.string().nullable(),
    tls_status: z.enum(TLS_STATUSES),
    tls_validation_record: dnsRecordResponse.nullable(),
    dns_target: z.string().nullable(),
    tls_error: z.string().nullable(),
    created_at: timestamp,
    verified_at: timestamp.nullable(),
  }),
);

export type CustomDomainResponse = z.output<typeof customDomainResponse>;

export const presentCustomDomain = (d: ShownDomain): CustomDomainResponse => ({
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
});

const verificationToken = 'hgv_tU0_445xMfxJb8v4ns4yp_W3CZ4LyJtK';

export const exampleCustomDomain = {
  id: ids.customDomain,
  domain: 'hooks.acme.com',
  verification_token: verificationToken,
  verification_record: { type: 'TXT', name: '_hookgate-challenge.hooks.acme.com', value: verificationToken },
  status: 'pending_verification',
  verification_error: null,
  tls_status: 'pending',
  tls_validation_record: null,
  dns_target: null,
  tls_error: null,
  created_at: at,
  verified_at: null,
} satisfies CustomDomainResponse;
