import type { DeliveryStatus, EventStatus } from './vocabulary';

/** How one event's status follows its deliveries (spec part 3). */

/**
 * Nothing will happen to the event any more without a user's action: the terminal statuses, and
 * `accepted` (nothing was ever in flight). A replay may start from these, and retention may delete them.
 */
export const SETTLED_STATUSES: readonly EventStatus[] = ['delivered', 'dead_letter', 'replayed', 'accepted'];

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
