import { endedDelivery } from './delivery-phases';
import { isTerminalDelivery } from './event-status';
import type { DeliveryState, EndReason } from './progress';

/**
 * A delivery's last chance is its event's retention window: the event's body and its delivery's item
 * expire (TTL) a margin after it whatever their state, so a delivery still waiting then (held by a
 * paused destination or an open breaker, a long custom retry schedule) would find nothing to send, and
 * its event would stay unsettled for good. The retention sweeper ends it first, with this reason.
 */
export const EXPIRED: EndReason = 'expired';

/** What the sweeper does with one delivery of an unsettled event past its window. */
export type DeliveryExpiry =
  /** Ended already: nothing to do. */
  | { kind: 'ended' }
  /** A try is in flight under a live claim: its outcome settles it; a later pass ends it if it does not. */
  | { kind: 'in_flight' }
  | { kind: 'expire'; reason: EndReason };

export function deliveryExpiry(delivery: DeliveryState, now: Date, leaseMs: number): DeliveryExpiry {
  if (isTerminalDelivery(delivery.status)) return { kind: 'ended' };
  if (delivery.status === 'delivering' && delivery.claimed_at !== null && Date.parse(delivery.claimed_at) + leaseMs > now.getTime()) {
    return { kind: 'in_flight' };
  }
  return { kind: 'expire', reason: EXPIRED };
}

/** The destinations whose deliveries the sweeper ends, in the event's plan order. */
export const deliveriesToExpire = (deliveries: Readonly<Record<string, DeliveryState>>, now: Date, leaseMs: number): string[] =>
  Object.entries(deliveries)
    .filter(([, delivery]) => deliveryExpiry(delivery, now, leaseMs).kind === 'expire')
    .map(([destinationId]) => destinationId);

/**
 * The write's decision, made again on the delivery as stored (it may have changed since it was read): a
 * try claimed meanwhile or an end written meanwhile is left as it is.
 */
export function expiredDelivery(current: DeliveryState, now: Date, leaseMs: number): DeliveryState | undefined {
  const expiry = deliveryExpiry(current, now, leaseMs);
  return expiry.kind === 'expire' ? endedDelivery(current, expiry.reason) : undefined;
}

/** A delivery's last try, which its dead-letter notice reports (undefined: it never had one, e.g. held from the start). */
export function lastTryOf<T extends { destination_id: string; attempt_number: number }>(attempts: readonly T[], destinationId: string): T | undefined {
  let last: T | undefined;
  for (const attempt of attempts) {
    if (attempt.destination_id === destinationId && (!last || attempt.attempt_number > last.attempt_number)) last = attempt;
  }
  return last;
}
