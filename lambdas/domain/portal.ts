import { aggregateStatus, isTerminalDelivery } from './event-status';
import type { DeliveryState } from './progress';
import type { EventStatus } from './vocabulary';

/**
 * The consumer portal's rules (issue 16): who a customer is, how long a link lives, what a customer
 * sees of an event, and how an endpoint's event-type choice becomes routes. Pure, so they are tested
 * as tables and every caller shares them.
 */

/** An id the account chooses for its own customer (its own customer id): safe in keys, URLs and logs. */
const CUSTOMER_ID = /^[A-Za-z0-9][A-Za-z0-9_.:@+-]{0,127}$/;
export const isCustomerId = (value: string): boolean => CUSTOMER_ID.test(value);

/**
 * An event type of the catalog: sent as `X-Event-Type`, matched exactly by the routes the portal
 * makes, so no `*` (a pattern), no spaces, nothing a header cannot carry.
 */
const EVENT_TYPE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,199}$/;
export const isEventTypeName = (value: string): boolean => EVENT_TYPE_NAME.test(value);

export const PORTAL_SESSION_SECONDS = { min: 1, max: 86_400, default: 3_600 } as const;

export const sessionValidUntil = (now: Date, seconds: number): Date => new Date(now.getTime() + seconds * 1000);

/** What decides whether a portal link still works, besides its secret matching. */
export interface SessionStanding {
  validUntil: string;
  /** Whether the API key that created the link still exists (a session that names no key has none). */
  keyActive: boolean;
  /**
   * The customer's link generation when the link was made, and now: `revoke` raises the current one,
   * so every link made before it is behind. Counters, not timestamps, so no two clocks are compared.
   */
  issuedGeneration: number;
  currentGeneration: number;
}

export type SessionVerdict = 'live' | 'expired' | 'key_revoked' | 'links_revoked';

/** A link works until it expires, its API key is revoked, or the account ends its customer's links. */
export function sessionVerdict(session: SessionStanding, now: Date): SessionVerdict {
  if (now.getTime() >= Date.parse(session.validUntil)) return 'expired';
  if (!session.keyActive) return 'key_revoked';
  if (session.issuedGeneration < session.currentGeneration) return 'links_revoked';
  return 'live';
}

/**
 * A customer's view of an event: only the deliveries to its own endpoints (another customer's are
 * none of its business), and the status those alone add up to.
 */
export function customerView(
  deliveries: Readonly<Record<string, DeliveryState>>,
  endpointIds: readonly string[],
): { deliveries: Record<string, DeliveryState>; status: EventStatus; attempts: number } {
  const mine: Record<string, DeliveryState> = {};
  for (const id of endpointIds) {
    const delivery = deliveries[id];
    if (delivery) mine[id] = delivery;
  }
  const states = Object.values(mine);
  return {
    deliveries: mine,
    status: aggregateStatus(states.map((d) => d.status)),
    attempts: states.reduce((sum, d) => sum + d.attempts, 0),
  };
}

export type ResendVerdict = 'resend' | 'not_found' | 'not_settled';

/** A delivery can be sent again once it is settled; one still in progress would only race itself. */
export function resendVerdict(delivery: DeliveryState | undefined): ResendVerdict {
  if (!delivery) return 'not_found';
  return isTerminalDelivery(delivery.status) ? 'resend' : 'not_settled';
}

export interface EndpointRoute {
  id: string;
  event_type_pattern: string | null;
  /** `portal`: made by the portal, so the portal may remove it; anything else is the account's. */
  managed_by?: 'portal' | null;
}

/**
 * The routes to add and remove so an endpoint receives the types it chose. Only routes the portal
 * made are removed: a route the account set up for its customer stays whatever the customer picks.
 */
export function planSubscription(current: readonly EndpointRoute[], wanted: readonly string[]): { add: string[]; remove: string[] } {
  const want = new Set(wanted);
  const have = new Set(current.map((r) => r.event_type_pattern));
  return {
    add: [...want].filter((type) => !have.has(type)).sort(),
    remove: current.filter((r) => r.managed_by === 'portal' && (r.event_type_pattern === null || !want.has(r.event_type_pattern))).map((r) => r.id),
  };
}

/** The types an endpoint receives, as the portal shows them: every pattern of a route to it, sorted. */
export const subscribedTypes = (routes: readonly EndpointRoute[]): string[] =>
  [...new Set(routes.map((r) => r.event_type_pattern ?? '*'))].sort();

export interface LinkDomain {
  domain: string;
  status: string;
  verified_at: string | null;
}

/** Where portal links point: the account's first verified custom domain, else the gateway's own URL. */
export function portalLinkBase(domains: readonly LinkDomain[], gatewayBase: string): string {
  const verified = domains
    .filter((d) => d.status === 'verified')
    .sort((a, b) => (a.verified_at ?? '').localeCompare(b.verified_at ?? '') || a.domain.localeCompare(b.domain));
  return verified[0] ? `https://${verified[0].domain}` : gatewayBase;
}
