import type { DeliveryStatus } from './vocabulary';

/** Why a delivery ended without exhausting its tries. */
export const END_REASONS = [
  /** Its destination no longer exists (a consistent read, never a stale cache, said so). */
  'destination_deleted',
  /** Its destination was set `active: false` while the delivery waited. */
  'destination_inactive',
  /** The endpoint answered 410 Gone, which also disabled the destination. */
  'endpoint_gone',
  /** The destination was given to another customer while the delivery waited: the event is not addressed to it. */
  'customer_changed',
] as const;
export type EndReason = (typeof END_REASONS)[number];

export interface DeliveryState {
  status: DeliveryStatus;
  attempts: number;
  /** When the next try is due (queued / retry_scheduled). */
  next_attempt_at: string | null;
  /** When a worker took the current try (delivering). */
  claimed_at: string | null;
  /** Set when the delivery ended early (dead_letter) for another reason than its last try failing. */
  end_reason?: EndReason | null;
}
