import { aggregateStatus } from './event-status';
import type { DeliveryState } from './progress';
import { reachesCustomer, routeMatches, type RoutedEvent, type RouteRule } from './routing';
import type { EventStatus } from './vocabulary';
import { maxBodyBytes, type AwsTarget } from './aws-targets';

/** What planning needs of a destination. */
export interface PlannedDestination {
  active: boolean;
  customer: string | null;
  aws_target?: AwsTarget | null;
}

/**
 * How many destinations one event may reach, by default. Each delivery is an item of its own, so a
 * delivery costs the same at any width; what grows is the event's status item, which holds the plan
 * (~110 bytes a destination: ~110 KB at 1,000, a quarter of DynamoDB's 400 KB item limit, written
 * twice per event), and its accept, which sends 1,000 queue messages (100 batches) within one request.
 * Deployments set their own with `HOOKGATE_MAX_FANOUT`.
 */
export const DEFAULT_MAX_FANOUT = 1_000;

export interface DeliveryPlan {
  deliveries: Record<string, DeliveryState>;
  /** Destinations a matching route reached past the limit, oldest route first: not planned. */
  beyondLimit: string[];
}

/**
 * The deliveries a new event gets: one per distinct destination reached by a matching route and
 * addressed by the event (`reachesCustomer`), at most `limit`, taking routes oldest first. A paused
 * destination counts: its delivery is planned and waits, parked, until it is switched back on.
 */
export function planDeliveries(
  routes: ReadonlyArray<RouteRule & { destination_id: string }>,
  destinationOf: (destinationId: string) => PlannedDestination | undefined,
  /**
   * `customer`: who an outbound event is addressed to; null: the account itself (and every inbound
   * event). `bodySize`: its body's bytes, which an AWS destination's service may not take.
   */
  event: RoutedEvent & { customer: string | null; bodySize: number },
  /** One time for all, or each destination's own (its retry schedule's first step). */
  firstAttemptAt: string | ((destinationId: string) => string),
  limit = Infinity,
): DeliveryPlan {
  const deliveries: Record<string, DeliveryState> = {};
  const beyondLimit: string[] = [];
  for (const route of routes) {
    if (!routeMatches(route, event)) continue;
    const destination = destinationOf(route.destination_id);
    // A paused destination's deliveries are planned too: they wait, parked, until it is switched back on.
    if (!destination || !reachesCustomer(destination.customer, event.customer)) continue;
    if (route.destination_id in deliveries || beyondLimit.includes(route.destination_id)) continue;
    if (Object.keys(deliveries).length >= limit) {
      beyondLimit.push(route.destination_id);
      continue;
    }
    const due = typeof firstAttemptAt === 'string' ? firstAttemptAt : firstAttemptAt(route.destination_id);
    const bodyLimit = destination.aws_target ? maxBodyBytes(destination.aws_target.type) : null;
    // Planned and ended at once, so the event shows why this destination never got it.
    deliveries[route.destination_id] =
      bodyLimit !== null && event.bodySize > bodyLimit
        ? { status: 'dead_letter', attempts: 0, next_attempt_at: null, claimed_at: null, end_reason: 'payload_too_large' }
        : { status: 'queued', attempts: 0, next_attempt_at: due, claimed_at: null };
  }
  return { deliveries, beyondLimit };
}

/** An event that was replayed stays `replayed`; otherwise its status follows its deliveries. */
export function statusAfter(current: EventStatus, deliveries: Record<string, DeliveryState>): EventStatus {
  if (current === 'replayed') return 'replayed';
  return aggregateStatus(Object.values(deliveries).map((d) => d.status));
}
