import type { DeliveryStatus, EventStatus } from './vocabulary';

/** How one event's status follows its deliveries (spec part 3). */

export const TERMINAL_EVENT_STATUSES: readonly EventStatus[] = ['delivered', 'dead_letter', 'replayed'];

/** Statuses from which a replay may start: terminal ones, and `accepted` (nothing was ever in flight). */
export const REPLAYABLE_STATUSES: readonly EventStatus[] = [...TERMINAL_EVENT_STATUSES, 'accepted'];

/** Nothing will happen to the event any more without a user's action: safe for retention to delete. */
export const SETTLED_STATUSES: readonly EventStatus[] = REPLAYABLE_STATUSES;

export const isTerminalDelivery = (status: DeliveryStatus) => status === 'delivered' || status === 'dead_letter';

/**
 * The event's status over all its deliveries (contract): `delivering` while any try is in flight,
 * `retry_scheduled` while any waits for a retry, `queued` while any waits for its first try,
 * `delivered` when all succeeded, `dead_letter` when all finished and one exhausted its tries.
 */
export function aggregateStatus(deliveries: readonly DeliveryStatus[]): EventStatus {
  if (deliveries.length === 0) return 'accepted';
  if (deliveries.includes('delivering')) return 'delivering';
  if (deliveries.includes('retry_scheduled')) return 'retry_scheduled';
  if (deliveries.includes('queued')) return 'queued';
  return deliveries.includes('dead_letter') ? 'dead_letter' : 'delivered';
}
