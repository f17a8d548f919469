import { aggregateStatus, type EventStatus } from './event-status';
import type { DeliveryState } from './progress';
import { routeMatches, type RoutedEvent, type RouteRule } from './routing';

/** The deliveries a new event gets: one per distinct active destination reached by a matching route. */
export function planDeliveries(
  routes: ReadonlyArray<RouteRule & { destination_id: string }>,
  isActiveDestination: (destinationId: string) => boolean,
  event: RoutedEvent,
  /** One time for all, or each destination's own (its retry schedule's first step). */
  firstAttemptAt: string | ((destinationId: string) => string),
): Record<string, DeliveryState> {
  const deliveries: Record<string, DeliveryState> = {};
  for (const route of routes) {
    if (!routeMatches(route, event) || !isActiveDestination(route.destination_id)) continue;
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
