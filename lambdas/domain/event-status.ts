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

/**
 * How the delivery that finishes an event finds out it is the last. Each delivery is an item of its
 * own, so no write sees them all. Up to this many deliveries, each one that finishes reads them all
 * (consistently: ~0.4 KB each, 4 KB per read unit, at most ~3 units against the 1 write unit a count
 * costs); beyond it, each one first counts itself on a tally item and reads them only once the tally
 * says all have finished.
 */
export const SETTLE_BY_READING_MAX = 25;
export const settleCheck = (planned: number): 'read' | 'count' => (planned <= SETTLE_BY_READING_MAX ? 'read' : 'count');

/**
 * The status and attempt count an event settles with once every planned delivery is terminal;
 * undefined while any is not (a delivery with no item of its own yet has not been tried).
 */
export function eventSettlement(
  planned: readonly string[],
  deliveries: Readonly<Record<string, { status: DeliveryStatus; attempts: number }>>,
): { status: EventStatus; attempts_count: number } | undefined {
  const states = planned.map((id) => deliveries[id]);
  if (states.some((state) => !state || !isTerminalDelivery(state.status))) return undefined;
  const settled = states.filter((state) => state !== undefined);
  return { status: aggregateStatus(settled.map((s) => s.status)), attempts_count: settled.reduce((sum, s) => sum + s.attempts, 0) };
}
