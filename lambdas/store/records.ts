import * as z from 'zod/mini';

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
  /** Absent on breakers written before it: not slow. */
  capped_until: z._default(z.nullable(timestamp), null),
  version: z.int(),
});
export type BreakerRecord = z.infer<typeof breakerRecord>;

