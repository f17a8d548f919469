import { z } from 'zod';
import { PLANS } from '../domain/plans';

/** Stored shapes, validated on every read. Responses are built from these in the API layer. */
const timestamp = z.string();

export const accountRecord = z.object({
  id: z.string(),
  name: z.string().nullable(),
  plan: z.enum(PLANS),
  retention_days: z.number().int(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type AccountRecord = z.infer<typeof accountRecord>;

export const apiKeyRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  name: z.string().nullable(),
  prefix: z.string(),
  key_hash: z.string(),
  created_at: timestamp,
});
export type ApiKeyRecord = z.infer<typeof apiKeyRecord>;

export const apiKeyLookupRecord = z.object({
  account_id: z.string(),
  key_id: z.string(),
  key_hash: z.string(),
  last_used_at: timestamp.nullable(),
});
export type ApiKeyLookupRecord = z.infer<typeof apiKeyLookupRecord>;

export const sourceRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  name: z.string(),
  path_token: z.string(),
  custom_domain_id: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type SourceRecord = z.infer<typeof sourceRecord>;

export const sourceLookupRecord = z.object({
  account_id: z.string(),
  source_id: z.string(),
});
export type SourceLookupRecord = z.infer<typeof sourceLookupRecord>;

export const destinationAuth = z.discriminatedUnion('type', [
  z.object({ type: z.literal('bearer'), token: z.string() }),
  z.object({ type: z.literal('header'), name: z.string(), value: z.string() }),
]);
export type DestinationAuth = z.infer<typeof destinationAuth>;

export const SIGNATURE_SCHEMES = ['hookgate', 'standard_webhooks'] as const;

export const destinationRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  name: z.string(),
  url: z.string(),
  active: z.boolean(),
  auth: destinationAuth.nullable(),
  timeout_ms: z.number().int(),
  signature_scheme: z.enum(SIGNATURE_SCHEMES),
  signing_secret: z.string(),
  previous_signing_secret: z.string().nullable(),
  previous_secret_expires_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type DestinationRecord = z.infer<typeof destinationRecord>;

export const routeRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  source_id: z.string().nullable(),
  destination_id: z.string(),
  event_type_pattern: z.string().nullable(),
  active: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type RouteRecord = z.infer<typeof routeRecord>;
