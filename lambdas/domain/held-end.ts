import { endedDelivery } from './delivery-phases';
import { isTerminalDelivery } from './event-status';
import type { DeliveryState, EndReason } from './progress';

/**
 * Retention never ends a delivery that still waits (the specification's rule 5): what bounds one that
 * would wait for ever, behind a destination paused and forgotten, is the account's own choice to end
 * what the destination holds (`POST /v1/destinations/{id}/end-held`), with this reason.
 */
export const HELD_ENDED: EndReason = 'held_ended';

/** What ending a destination's held deliveries does with one of them. */
export type HeldEnding =
  /** Ended already: nothing to do. */
  | { kind: 'ended' }
  /** A try is in flight under a live claim (a release let it go meanwhile): its outcome settles it. */
  | { kind: 'in_flight' }
  | { kind: 'end'; reason: EndReason };

export function heldEnding(delivery: DeliveryState, now: Date, leaseMs: number): HeldEnding {
  if (isTerminalDelivery(delivery.status)) return { kind: 'ended' };
  if (delivery.status === 'delivering' && delivery.claimed_at !== null && Date.parse(delivery.claimed_at) + leaseMs > now.getTime()) {
    return { kind: 'in_flight' };
  }
  return { kind: 'end', reason: HELD_ENDED };
}

/**
 * The write's decision, made again on the delivery as stored (it may have changed since it was read): a
 * try claimed meanwhile or an end written meanwhile is left as it is.
 */
export function heldEndedDelivery(current: DeliveryState, now: Date, leaseMs: number): DeliveryState | undefined {
  const ending = heldEnding(current, now, leaseMs);
  return ending.kind === 'end' ? endedDelivery(current, ending.reason) : undefined;
}

/** A delivery's last try, which its dead-letter notice reports (undefined: it never had one, e.g. held from the start). */
export function lastTryOf<T extends { destination_id: string; attempt_number: number }>(attempts: readonly T[], destinationId: string): T | undefined {
  let last: T | undefined;
  for (const attempt of attempts) {
    if (attempt.destination_id === destinationId && (!last || attempt.attempt_number > last.attempt_number)) last = attempt;
  }
  return last;
}
