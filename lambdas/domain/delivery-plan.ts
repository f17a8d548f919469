import { aggregateStatus } from './event-status';
import type { DeliveryState } from './progress';
import { reachesCustomer, routeMatches, type RoutedEvent, type RouteRule } from './routing';
import type { EventStatus } from './vocabulary';

/** What planning needs of a destination. */
export interface PlannedDestination {
  active: boolean;
  customer: string | null;
}

/**
 * The deliveries a new event gets: one per distinct active destination reached by a matching route
 * and addressed by the event (`reachesCustomer`).
 */
export function planDeliveries(
  routes: ReadonlyArray<RouteRule & { destination_id: string }>,
  destinationOf: (destinationId: string) => PlannedDestination | undefined,
  /** `customer`: who an outbound event is addressed to; null: the account itself (and every inbound event). */
  event: RoutedEvent & { customer: string | null },
  /** One time for all, or each destination's own (its retry schedule's first step). */
  firstAttemptAt: string | ((destinationId: string) => string),
): Record<string, DeliveryState> {
  const deliveries: Record<string, DeliveryState> = {};
  for (const route of routes) {
    if (!routeMatches(route, event)) continue;
    const destination = destinationOf(route.destination_id);
    if (!destination?.active || !reachesCustomer(destination.customer, event.customer)) continue;
    const due = typeof firstAttemptAt === 'string' ? firstAttemptAt : firstAttemptAt(route.destination_id);
    deliveries[route.destination_id] = { status: 'queued', attempts: 0, next_attempt_at: due, claimed_at: null };
  }
  return deliveries;
}

/** An event that was replayed stays `replayed`; otherwise its status follows its deliveries. */
export function statusAfter(current: EventStatus, deliveries: Record<string, DeliveryState>): EventStatus {
  if (current === 'replayed') return 'replayed';
  return aggregateStatus(Object.values(deliveries).map((d) => d.status));
}
