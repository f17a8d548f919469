import { isOperationalType, OPERATIONAL_PREFIX } from './operational-events';
import { filterMatches, type PayloadFilter } from './payload-filter';

/** Route matching (spec "Route matching"): pure, so ingest, publish and replay share one rule. */
export interface RouteRule {
  source_id: string | null;
  event_type_pattern: string | null;
  active: boolean;
  /** `portal`: a route a customer chose in the consumer portal. */
  managed_by?: 'portal' | null;
  /** Matched against the event's JSON body (./payload-filter.ts); a body that is not JSON never matches. */
  filter?: PayloadFilter | null;
}

/** What routing knows of an event. `payload` is its parsed JSON body, undefined when it is not JSON or was not read. */
export interface RoutedEvent {
  source_id: string | null;
  event_type: string | null;
  payload?: { json: unknown };
}

/**
 * The portal's security model: a destination of a customer receives only events addressed to that
 * customer, and an unaddressed event only destinations of no customer, whatever the routes say (a
 * portal subscription names types, never whose events). Svix's applications and Outpost's tenants
 * draw the same line.
 */
export const reachesCustomer = (destinationCustomer: string | null, eventCustomer: string | null): boolean =>
  destinationCustomer === eventCustomer;

export function isValidPattern(pattern: string): boolean {
  const star = pattern.indexOf('*');
  return star === -1 || star === pattern.length - 1;
}

export function patternMatches(pattern: string | null, eventType: string | null): boolean {
  if (pattern === null) return true;
  if (pattern.endsWith('*')) return eventType !== null && eventType.startsWith(pattern.slice(0, -1));
  return eventType === pattern;
}

export function routeMatches(route: RouteRule, event: RoutedEvent): boolean {
  if (!route.active) return false;
  // A customer's endpoint takes the account's outbound events only, never the webhooks the account
  // itself receives; inbound events always carry their source, outbound ones never do.
  if (route.managed_by === 'portal' && event.source_id !== null) return false;
  if (route.source_id !== null && route.source_id !== event.source_id) return false;
  // Operational events go only where a route names them: a catch-all route may lead to a customer's
  // endpoint, which must not learn about the account's other destinations.
  if (isOperationalType(event.event_type) && (route.managed_by === 'portal' || !route.event_type_pattern?.startsWith(OPERATIONAL_PREFIX))) return false;
  if (!patternMatches(route.event_type_pattern, event.event_type)) return false;
  return !route.filter || (event.payload !== undefined && filterMatches(route.filter, event.payload.json));
}

/**
 * Whether an active route of the account takes the event, whatever becomes of its deliveries (its
 * destination may be paused or disabled, and the event is kept to replay). Operational events are
 * created only then: an account that never routed `hookgate.*` neither sees nor pays for them.
 */
export const isRouted = (routes: readonly RouteRule[], event: RoutedEvent): boolean => routes.some((route) => routeMatches(route, event));
