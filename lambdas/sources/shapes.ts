import * as z from 'zod';
import { isJsonPointer } from '../domain/json-pointer';
import { PROVIDERS } from '../domain/vocabulary';
import { isStandardWebhooksSecret } from '../domain/signing-secret';
import { at, ids } from '../api-kit/examples';
import { named } from '../api-kit/schemas';
import { hasControlChars, isHeaderName, textField, uuidField } from '../api-kit/validation';
import type { SourceRecord } from './record';

/** A source's API shapes: requests, the answer (typed, so the presenter cannot drift), the example. */

const uuid = z.uuid();
const timestamp = z.iso.datetime();

const secret = z
  .string()
  .min(1)
  .max(1024)
  .refine((v) => !hasControlChars(v), { error: () => 'verification.secret must not contain control characters' });

/**
 * `verification` on a source: which provider's scheme to check and the shared secret. Strict per
 * provider, so a typo in a field name is a 400 rather than a check that silently never happens.
 */
const verificationInput = named(
  'SourceVerification',
  z
    .discriminatedUnion('provider', [
      z.strictObject({ provider: z.literal('stripe'), secret }),
      z.strictObject({ provider: z.literal('github'), secret }),
      z.strictObject({ provider: z.literal('shopify'), secret }),
      z.strictObject({ provider: z.literal('slack'), secret }),
      z.strictObject({
        provider: z.literal('standard_webhooks'),
        secret: secret.refine(isStandardWebhooksSecret, {
          error: () => 'verification.secret must be whsec_ followed by base64 of 24 to 64 bytes',
        }),
      }),
      z.strictObject({
        provider: z.literal('hmac_sha256'),
        secret,
        header: z
          .string()
          .min(1)
          .max(256)
          .refine((v) => isHeaderName(v), { error: () => 'verification.header must be a valid HTTP header name' })
          .transform((v) => v.toLowerCase()),
        encoding: z.enum(['hex', 'base64']).default('hex'),
        prefix: z.string().min(1).max(64).optional(),
      }),
    ])
    .nullable(),
  'The provider whose signatures ingest checks, and the shared secret (write-only); null turns the check off.',
);

const customDomainId = uuidField('custom_domain_id')
  .nullable()
  .optional()
  .describe('One of the account’s custom domains that has not failed; the ingest URL uses it once verified. null unties it.');

export const SUBJECT_POINTER_MESSAGE = 'subject_pointer must be a JSON pointer (RFC 6901), such as /customer/id';
const subjectPointer = z
  .string()
  .max(256)
  .refine(isJsonPointer, { error: () => SUBJECT_POINTER_MESSAGE })
  .nullable()
  .optional()
  .describe(
    'Where an inbound event’s data subject is in its JSON payload (RFC 6901), e.g. `/data/object/customer`: a string or number found there is the event’s `subject`, which `POST /v1/erasures` erases by. null: none.',
  );

export const ORDERING_POINTER_MESSAGE = 'ordering_key_pointer must be a JSON pointer (RFC 6901) such as /customer/id';

const orderingKeyPointer = z
  .string()
  .max(512)
  .refine(isJsonPointer, { error: () => ORDERING_POINTER_MESSAGE })
  .nullable()
  .optional()
  .describe(
    'An RFC 6901 JSON pointer (e.g. `/customer/id`) to its events’ `ordering_key` in their JSON payload: a string or number there that is a valid key (1-128 visible characters) is the event’s key; anything else (no JSON, nothing there, an object) leaves it unordered rather than refused. null unsets it.',
  );

export const createSourceBody = named(
  'CreateSourceRequest',
  z.strictObject({
    name: textField('name'),
    verification: verificationInput.optional(),
    custom_domain_id: customDomainId,
    subject_pointer: subjectPointer,
    ordering_key_pointer: orderingKeyPointer,
  }),
);

export const updateSourceBody = named(
  'UpdateSourceRequest',
  z.strictObject({
    name: textField('name').optional(),
    verification: verificationInput.optional(),
    custom_domain_id: customDomainId,
    subject_pointer: subjectPointer,
    ordering_key_pointer: orderingKeyPointer,
  }),
);

export const verificationErrors = [
  'verification.provider must be one of: stripe, github, shopify, slack, standard_webhooks, hmac_sha256',
  'verification.secret is required',
  'verification.secret must be whsec_ followed by base64 of 24 to 64 bytes',
  'verification.header is required',
  'verification.header must be a valid HTTP header name',
  'verification.encoding must be one of: hex, base64',
  'unknown field: verification.header',
];
export const domainErrors = ['invalid custom_domain_id', 'custom_domain_id does not match a custom domain of this account'];

export const sourceResponse = named(
  'Source',
  z.strictObject({
    id: uuid,
    account_id: uuid,
    name: z.string(),
    path_token: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
    ingest_url: z.url().describe('Absolute: the verified custom domain, or the public URL, plus `/ingest/<path_token>`.'),
    verification: z
      .strictObject({ provider: z.enum(PROVIDERS), configured: z.literal(true) })
      .nullable()
      .describe('The provider check, if any; the secret is write-only.'),
    custom_domain_id: uuid.nullable(),
    subject_pointer: z.string().nullable(),
    ordering_key_pointer: z.string().nullable().describe('Where its events’ ordering key is read from their JSON payload; null: they are unordered.'),
    created_at: timestamp,
  }),
);

export type SourceResponse = z.output<typeof sourceResponse>;

export const presentSource = (s: SourceRecord, ingestBaseUrl: string): SourceResponse => ({
  id: s.id,
  account_id: s.account_id,
  name: s.name,
  path_token: s.path_token,
  ingest_url: `${ingestBaseUrl}/ingest/${s.path_token}`,
  verification: s.verification ? { provider: s.verification.provider, configured: true } : null,
  custom_domain_id: s.custom_domain_id,
  subject_pointer: s.subject_pointer,
  ordering_key_pointer: s.ordering_key_pointer,
  created_at: s.created_at,
});

const pathToken = 'QgIM6d3YOJLrpzOIX6xL-pR4-KLGii46cFOUHnOYM_E';

export const exampleSource = {
  id: ids.source,
  account_id: ids.account,
  name: 'stripe',
  path_token: pathToken,
  ingest_url: `https://api.hookgate.example.com/ingest/${pathToken}`,
  verification: { provider: 'stripe', configured: true },
  custom_domain_id: null,
  subject_pointer: null,
  ordering_key_pointer: null,
  created_at: at,
} satisfies SourceResponse;
