/**
 * Operational events: what Hookgate tells an account about its own deliveries, as outbound events of
 * reserved types published into the account itself (routed like any event, so a route with
 * `event_type_pattern: "hookgate.*"` sends them to the tenant's ops endpoint; without a route that
 * takes one it is not created at all, see `isRouted`). Pure: types, the guard against loops, and the
 * payloads.
 */
export const OPERATIONAL_PREFIX = 'hookgate.';

const OPERATIONAL_TYPES = {
  deadLettered: 'hookgate.delivery.dead_lettered',
  opened: 'hookgate.destination.opened',
  recovered: 'hookgate.destination.recovered',
  disabled: 'hookgate.destination.disabled',
  fanoutLimited: 'hookgate.event.fanout_limited',
} as const;
type OperationalType = (typeof OPERATIONAL_TYPES)[keyof typeof OPERATIONAL_TYPES];

/** Hookgate's own events, which carry the prefix exactly as Hookgate writes it: what routing and the loop guard look for. */
export const isOperationalType = (eventType: string | null) => eventType !== null && eventType.startsWith(OPERATIONAL_PREFIX);

/**
 * Types tenants may not publish, ingest or put in their catalog: only Hookgate speaks in its own name.
 * In any letter case (`HookGate.x`, `HOOKGATE.delivery.failed`), since a receiver that compares types
 * without case would take such an event for Hookgate's.
 */
export const isReservedType = (eventType: string | null) => eventType !== null && eventType.toLowerCase().startsWith(OPERATIONAL_PREFIX);

/**
 * Whether what happened to a delivery of this event may be announced. An operational event never
 * causes another: its own delivery failing, dead-lettering or tripping a breaker says nothing, so an
 * ops endpoint that is down cannot feed itself a stream of events about being down.
 */
export const mayAnnounce = (cause: { event_type: string | null }) => !isOperationalType(cause.event_type);

export interface LastAttempt {
  attempt_number: number;
  outcome: string;
  response_status: number | null;
  error: string | null;
  attempted_at: string;
}

export interface DestinationRef {
  id: string;
  name: string;
  url: string;
}

export interface OperationalEvent {
  type: OperationalType;
  /** Makes a repeat of the same occurrence (two workers, a retried write) one event. */
  key: string;
  payload: { type: OperationalType; created_at: string; data: Record<string, unknown> };
}

const build = (type: OperationalType, key: string, at: Date, data: Record<string, unknown>): OperationalEvent => ({
  type,
  key: `${type}:${key}`,
  payload: { type, created_at: at.toISOString(), data },
});

export const deadLettered = (
  event: { id: string; direction: string; event_type: string | null },
  destination: DestinationRef,
  /** Null: the delivery ended without ever being tried (held from the start, then expired). */
  lastAttempt: LastAttempt | null,
  endReason: string | null,
  at: Date,
) =>
  build(OPERATIONAL_TYPES.deadLettered, `${event.id}:${destination.id}`, at, {
    event_id: event.id,
    direction: event.direction,
    event_type: event.event_type,
    destination_id: destination.id,
    destination_name: destination.name,
    end_reason: endReason,
    last_attempt: lastAttempt && {
      attempt_number: lastAttempt.attempt_number,
      outcome: lastAttempt.outcome,
      response_status: lastAttempt.response_status,
      error: lastAttempt.error,
      attempted_at: lastAttempt.attempted_at,
    },
  });

interface BreakerFacts {
  consecutive_failures: number;
  failing_since: string | null;
  open_until: string | null;
  last_failure_at: string | null;
}

const destinationData = (destination: DestinationRef) => ({ destination_id: destination.id, destination_name: destination.name, url: destination.url });

export const breakerOpened = (destination: DestinationRef, breaker: BreakerFacts, at: Date) =>
  build(OPERATIONAL_TYPES.opened, `${destination.id}:${breaker.failing_since ?? at.toISOString()}`, at, {
    ...destinationData(destination),
    consecutive_failures: breaker.consecutive_failures,
    failing_since: breaker.failing_since,
    open_until: breaker.open_until,
  });

export const breakerRecovered = (destination: DestinationRef, failingSince: string | null, at: Date) =>
  build(OPERATIONAL_TYPES.recovered, `${destination.id}:${at.toISOString()}`, at, {
    ...destinationData(destination),
    failing_since: failingSince,
    recovered_at: at.toISOString(),
  });

export const destinationDisabled = (destination: DestinationRef, reason: string, failingSince: string | null, at: Date) =>
  build(OPERATIONAL_TYPES.disabled, `${destination.id}:${failingSince ?? at.toISOString()}`, at, {
    ...destinationData(destination),
    reason,
    failing_since: failingSince,
    disabled_at: at.toISOString(),
  });

/** An inbound event reached more destinations than one event may: the first `limit` (oldest routes) get it. */
export const fanoutLimited = (event: { id: string; direction: string; event_type: string | null }, limit: number, beyondLimit: readonly string[], at: Date) =>
  build(OPERATIONAL_TYPES.fanoutLimited, event.id, at, {
    event_id: event.id,
    direction: event.direction,
    event_type: event.event_type,
    limit,
    destinations_not_reached: beyondLimit.length,
    destination_ids_not_reached: beyondLimit.slice(0, 100),
  });
