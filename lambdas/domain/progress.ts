import type { DeliveryStatus } from './vocabulary';

/** Why a delivery ended without exhausting its tries. */
export const END_REASONS = [
  /** Its destination no longer exists (a consistent read, never a stale cache, said so). */
  'destination_deleted',
  /** The endpoint answered 410 Gone, which also disabled the destination. */
  'endpoint_gone',
  /** The destination was given to another customer while the delivery waited: the event is not addressed to it. */
  'customer_changed',
  /** The body is larger than its AWS destination's service takes in one message (lambdas/domain/aws-targets.ts): never sent. */
  'payload_too_large',
  /**
   * Set by versions before 0.5 only, whose retention sweeper ended a delivery still waiting when its
   * event's window ended. Retention no longer ends what waits (rule 5); kept so such records still read.
   */
  'expired',
  /** Held by its destination (paused, unverified, an open breaker, its cap) when the account ended what it held (`POST /v1/destinations/{id}/end-held`). */
  'held_ended',
  /**
   * Its queue task landed in the delivery DLQ (received `maxReceiveCount` times without being done:
   * crashes, throttles, a bug), was sent once more by the sweeper, and landed there again.
   */
  'task_failed',
  /** An erasure (POST /v1/erasures) removed its event's payload before it was sent: there is nothing to send. */
  'payload_erased',
] as const;
export type EndReason = (typeof END_REASONS)[number];

/**
 * Why a delivery that is not settled waits (the API's `waiting.reason`): `retry`, its next try's due
 * time; `breaker_open`, its destination's breaker holds it (parked: no message, timer or read until the
 * breaker closes); `rate_limit`, its destination's send slot; `ordering`, an earlier delivery of its
 * ordering key to a `per_key` destination (`behind`), which releases it when it ends; `unverified`, its
 * destination's endpoint has not yet proved its ownership (parked as for `paused`).
 */
export const WAIT_REASONS = ['retry', 'breaker_open', 'concurrency', 'rate_limit', 'paused', 'ordering', 'unverified'] as const;
export type WaitReason = (typeof WAIT_REASONS)[number];

export interface DeliveryState {
  status: DeliveryStatus;
  attempts: number;
  /** When the next try is due (queued / retry_scheduled). */
  next_attempt_at: string | null;
  /** When a worker took the current try (delivering). */
  claimed_at: string | null;
  /** Set when the delivery ended early (dead_letter) for another reason than its last try failing. */
  end_reason?: EndReason | null;
  /** Set while it is held for another reason than its due time; cleared by its next claim. `until`: null when nobody knows. */
  waiting?: { reason: WaitReason; until: string | null; behind?: string } | null;
}

/**
 * Why a delivery waits, and until when, as the API shows it (null: it does not wait: it is in flight,
 * settled, or due now). A hold says its own reason; otherwise a future due time is a retry's (or a
 * first try's schedule step).
 */
export function waitingOf(delivery: DeliveryState, now: Date): { reason: WaitReason; until: string | null; behind?: string } | null {
  if (delivery.status !== 'queued' && delivery.status !== 'retry_scheduled') return null;
  if (delivery.waiting) return delivery.waiting;
  if (delivery.next_attempt_at && Date.parse(delivery.next_attempt_at) > now.getTime()) return { reason: 'retry', until: delivery.next_attempt_at };
  return null;
}
