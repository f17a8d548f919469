import * as z from 'zod/mini';
import { DIRECTIONS, EVENT_STATUSES, EXPORT_FORMATS, EXPORT_STATUSES } from '../domain/vocabulary';

/** Stored shapes, validated on every read. Responses are built from these in the API layer. */
const timestamp = z.string();

/**
 * JSON a client chose, stored as its text. DynamoDB numbers span 1e-130 to 9.99e125 with 38 digits
 * and JSON numbers do not (a filter holding 5e-324 was a 500), and nothing queries inside such a
 * document. Reads decode it; entity writes encode it (lambdas/store/entity.ts).
 */
export const jsonText = <T extends z.ZodMiniType>(shape: T) =>
  z.codec(z.string(), shape, { decode: (text) => JSON.parse(text) as z.input<T>, encode: (value) => JSON.stringify(value) });

/** A destination's circuit breaker (lambdas/domain/breaker.ts); absent until its first failure or success stamp. */
export const breakerRecord = z.object({
  destination_id: z.string(),
  state: z.enum(['closed', 'open']),
  consecutive_failures: z.int(),
  failing_since: z.nullable(timestamp),
  reopen_count: z.int(),
  open_until: z.nullable(timestamp),
  probe_until: z.nullable(timestamp),
  last_success_at: z.nullable(timestamp),
  last_failure_at: z.nullable(timestamp),
  version: z.int(),
});
export type BreakerRecord = z.infer<typeof breakerRecord>;

const exportFilters = z.object({
  direction: z.optional(z.enum(DIRECTIONS)),
  status: z.optional(z.enum(EVENT_STATUSES)),
  date_from: z.optional(timestamp),
  date_to: z.optional(timestamp),
});
export type ExportFilters = z.infer<typeof exportFilters>;

export const exportJobRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  status: z.enum(EXPORT_STATUSES),
  format: z.enum(EXPORT_FORMATS),
  filters: exportFilters,
  row_count: z.nullable(z.int()),
  created_at: timestamp,
  started_at: z.nullable(timestamp),
  completed_at: z.nullable(timestamp),
  error_message: z.nullable(z.string()),
  object_key: z.nullable(z.string()),
});
export type ExportJobRecord = z.infer<typeof exportJobRecord>;

/** Brand settings as stored: only the fields the account set (absent or null reads as the default). */
export const brandSettingsRecord = z.object({
  account_id: z.string(),
  company_name: z.optional(z.nullable(z.string())),
  logo_url: z.optional(z.nullable(z.string())),
  primary_color: z.optional(z.nullable(z.string())),
  accent_color: z.optional(z.nullable(z.string())),
  docs_title: z.optional(z.nullable(z.string())),
  updated_at: timestamp,
});
export type BrandSettingsRecord = z.infer<typeof brandSettingsRecord>;
