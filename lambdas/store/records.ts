import * as z from 'zod/mini';
import { END_REASONS } from '../domain/progress';
import { ATTEMPT_OUTCOMES, DELIVERY_STATUSES, DIRECTIONS, EVENT_STATUSES } from '../domain/vocabulary';

/** Stored shapes, validated on every read. Responses are built from these in the API layer. */
const timestamp = z.string();

/**
 * JSON a client chose, stored as its text. DynamoDB numbers span 1e-130 to 9.99e125 with 38 digits
 * and JSON numbers do not (a filter holding 5e-324 was a 500), and nothing queries inside such a
 * document. Reads decode it; entity writes encode it (lambdas/store/entity.ts).
 */
export const jsonText = <T extends z.ZodMiniType>(shape: T) =>
  z.codec(z.string(), shape, { decode: (text) => JSON.parse(text) as z.input<T>, encode: (value) => JSON.stringify(value) });

const deliveryState = z.object({
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.int(),
  next_attempt_at: z.nullable(timestamp),
  claimed_at: z.nullable(timestamp),
  end_reason: z.optional(z.nullable(z.enum(END_REASONS))),
});

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

/** The small, often-updated part of an event. The body lives in its own immutable item. */
export const eventRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  direction: z.enum(DIRECTIONS),
  source_id: z.nullable(z.string()),
  event_type: z.nullable(z.string()),
  external_event_id: z.nullable(z.string()),
  /** The customer an outbound event is addressed to (lambdas/domain/routing.ts `reachesCustomer`); null: none. */
  customer: z._default(z.nullable(z.string()), null),
  status: z.enum(EVENT_STATUSES),
  attempts_count: z.int(),
  created_by: z.string(),
  received_at: timestamp,
  created_at: timestamp,
  deliveries: z.record(z.string(), deliveryState),
  version: z.int(),
  retention_days: z.int(),
  replay_of: z.nullable(z.string()),
  /**
   * The id a replay chain's deliveries carry as `X-Webhook-Id`: its first event's, fixed when the
   * copy is made so delivery never walks the chain. Absent (events stored before it, and every
   * event that is no copy): the event's own id.
   */
  webhook_id: z.optional(z.nullable(z.string())),
  replayed_by: z.nullable(z.string()),
  /** The bulk replay (lambdas/store/replay-jobs.ts) that replayed this event, if one did. */
  replay_job: z.optional(z.nullable(z.string())),
  dedupe_key: z.nullable(z.string()),
});
export type EventRecord = z.infer<typeof eventRecord>;

export const eventBodyRecord = z.object({
  body: z.optional(z.custom<Uint8Array>((value) => value instanceof Uint8Array)),
  /** `gzip` when `body` holds the compressed bytes (fewer write units for the same payload). */
  body_compression: z.optional(z.enum(['gzip'])),
  body_ref: z.optional(z.string()),
  body_size: z.int(),
  content_type: z.nullable(z.string()),
  headers: z.record(z.string(), z.string()),
  payload_hash: z.string(),
});
export type EventBodyRecord = z.infer<typeof eventBodyRecord>;

export const attemptRecord = z.object({
  id: z.string(),
  event_id: z.string(),
  destination_id: z.string(),
  attempt_number: z.int(),
  outcome: z.enum(ATTEMPT_OUTCOMES),
  response_status: z.nullable(z.int()),
  response_body: z.string(),
  error: z.nullable(z.string()),
  attempted_at: timestamp,
  duration_ms: z.int(),
});
export type AttemptRecord = z.infer<typeof attemptRecord>;
