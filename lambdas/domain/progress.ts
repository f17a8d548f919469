import { isTerminalDelivery } from './event-status';
import type { DeliveryStatus, EventStatus } from './vocabulary';

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

/**
 * When the event should next show progress if its queue message is alive: the earliest due time of a
 * delivery that is not settled. A claim keeps its delivery's due time, so taking a try does not move
 * the event in the reconciler's index (a write saved on every try); the reconciler itself gives a
 * live claim the queue's visibility timeout before it acts. Undefined once nothing is expected.
 */
export function progressDueAt(status: EventStatus, receivedAt: string, deliveries: Record<string, DeliveryState>): string | undefined {
  if (status === 'received') return receivedAt;
  const times: number[] = [];
  for (const delivery of Object.values(deliveries)) {
    if (isTerminalDelivery(delivery.status)) continue;
    times.push(Date.parse(delivery.next_attempt_at ?? delivery.claimed_at ?? receivedAt));
  }
  if (times.length === 0) return undefined;
  return new Date(Math.min(...times)).toISOString();
}
