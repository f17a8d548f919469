import * as z from 'zod';
import { isStandardWebhooksSecret } from '../domain/signing-secret';
import { named } from './schemas';
import { hasControlChars, isHeaderName } from './validation';

const secret = z
  .string()
  .min(1)
  .max(1024)
  .refine((v) => !hasControlChars(v), { error: () => 'verification.secret must not contain control characters' });

/**
 * `verification` on a source: which provider's scheme to check and the shared secret. Strict per
 * provider, so a typo in a field name is a 400 rather than a check that silently never happens.
 */
export const verificationInput = named(
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
