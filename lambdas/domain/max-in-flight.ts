import type { BreakerState } from './breaker';

/**
 * A destination's cap on tries in flight at once (`max_in_flight`), counted across every deliver
 * function: a hanging endpoint then holds at most that many deliver slots, and a delivery over the cap
 * waits without a try. A try holds one of that many leases while it is in flight (store/leases.ts).
 */
export const DEFAULT_MAX_IN_FLIGHT = 10;
export const MAX_MAX_IN_FLIGHT = 1000;

/** The cap a destination's tries keep to; destinations stored before the setting have the default. */
export const maxInFlight = (destination: { max_in_flight?: number | null }) => destination.max_in_flight ?? DEFAULT_MAX_IN_FLIGHT;

/**
 * A cap is kept in lease maps of at most this many leases each (an item stays under 1 KB: one write
 * unit a take or a release); a larger cap is split over several, their caps adding up to it.
 */
const LEASES_PER_MAP = 20;

/**
 * An account's share and the borrowed tries are kept in maps of this many: every capped try of every
 * destination of the account takes and lets go one of them, so they are its busiest keys, and smaller
 * maps spread those writes over more keys (a share of 25 over five, where maps of 20 put 20 of every
 * 25 leases on one).
 */
export const SHARED_LEASES_PER_MAP = 5;

/**
 * The caps of the lease maps a cap is split over: `perMap` each, the last one the rest. A map's cap
 * depends on its place only, so a cap that is raised counts every lease still held in its maps (an
 * even split would move maps' caps under the leases they hold); leases in maps a lowered cap no longer
 * has are not counted, and end with their tries.
 */
export function leaseMapCaps(cap: number, perMap = LEASES_PER_MAP): number[] {
  const maps = Math.max(1, Math.ceil(cap / perMap));
  return Array.from({ length: maps }, (_, i) => Math.min(perMap, cap - i * perMap));
}

/**
 * How many of a cap's lease maps a delivery tries before it waits: at the cap a few looks may miss the
 * map with a free lease, which keeps the destination a little under its cap, never over.
 */
const MAP_LOOKS = 3;

/**
 * The lease maps a delivery tries, in order: `first` (the one its holder falls in, so copies of one
 * delivery look in the same map first and see each other), then others at random (`random` in [0, 1)),
 * distinct.
 */
export function mapsToTry(maps: number, first: number, random: () => number): number[] {
  const looks = Math.min(maps, MAP_LOOKS);
  const tried = [first % maps];
  while (tried.length < looks) {
    let map = Math.floor(random() * maps);
    while (tried.includes(map)) map = (map + 1) % maps; // drawn twice: the next one up
    tried.push(map);
  }
  return tried;
}

/** A lease map as stored: holder → when its lease ends (epoch ms). */
export type LeaseMap = Record<string, number>;

/**
 * What a take that was refused makes of the map it found (`holder` is the one taking): its own lease
 * still running (a copy of its delivery is in flight), full, or room once the write that takes also
 * clears `lapsed` (leases of holders that died) and replaces its own lapsed lease (`own`, its end).
 */
export type LeaseRoom = { kind: 'held' } | { kind: 'full' } | { kind: 'room'; lapsed: Array<[string, number]>; own?: number };

/**
 * Lapsed leases one take clears at most (each is a clause of its condition): as many as a map holds,
 * so a map whose cap was lowered under its lapsed leases is cleared by its next take.
 */
const MAX_CLEARED = LEASES_PER_MAP;

export function leaseRoom(leases: LeaseMap, holder: string, cap: number, now: Date): LeaseRoom {
  const own = leases[holder];
  if (own !== undefined && own > now.getTime()) return { kind: 'held' };
  const others = Object.entries(leases).filter(([h]) => h !== holder);
  const lapsed = others.filter(([, until]) => until <= now.getTime()).slice(0, MAX_CLEARED);
  if (others.length - lapsed.length >= cap) return { kind: 'full' };
  return { kind: 'room', lapsed, ...(own !== undefined && { own }) };
}

/**
 * A try that is still in flight this long puts its destination under its cap: a healthy endpoint
 * answers well within it (a 200 ms endpoint at the default cap makes 50 tries a second before the cap
 * would bind).
 */
export const SLOW_TRY_MS = 1_000;
/** How long a destination stays under its cap once marked: renewed by each slow try or wait over its cap. */
const CAPPED_WINDOW_MS = 300_000;

/**
 * Whether a try must hold one of its destination's leases. A lease costs two writes a try, and the default
 * cap is there for endpoints that hold tries (slow, hanging, failing), so a destination whose cap is
 * the default or more goes without them while it answers fast and healthily. It takes them when its
 * cap is below the default (its owner protects a weak endpoint: every try counts), until it has first
 * succeeded (a new one, or one whose every try failed), while it is failing or open, and for the window
 * after a try of it ran slow or a delivery found its cap reached. A fast endpoint that turns slow goes
 * back under its cap within SLOW_TRY_MS (plus the routing cache's age in other functions); tries
 * already on their way then are not counted against the cap.
 */
export function capNeeded(
  cap: number,
  breaker: Pick<BreakerState, 'state' | 'consecutive_failures' | 'last_success_at' | 'capped_until'>,
  now: Date,
): boolean {
  if (cap < DEFAULT_MAX_IN_FLIGHT) return true;
  if (breaker.state !== 'closed' || breaker.consecutive_failures > 0 || breaker.last_success_at === null) return true;
  return breaker.capped_until !== null && Date.parse(breaker.capped_until) > now.getTime();
}

/** The breaker with its destination kept under its cap for the window, or undefined when it is for most of the window already (no write). */
export function markedCapped(breaker: BreakerState, now: Date): BreakerState | undefined {
  if (breaker.capped_until !== null && Date.parse(breaker.capped_until) > now.getTime() + CAPPED_WINDOW_MS / 2) return undefined;
  return { ...breaker, capped_until: new Date(now.getTime() + CAPPED_WINDOW_MS).toISOString() };
}

/**
 * The share of the deliver concurrency one account's tries under leases (slow, failing or unproven
 * destinations: those that hold a batch) may hold at once, in percent of the batches the deliver
 * mapping runs (CDK context `deliverAccountSharePercent`). A try that answers fast holds its batch for
 * milliseconds and is not counted; one account's many slow endpoints, each within its own cap, would
 * otherwise hold every batch and make every other account's deliveries wait behind them.
 */
export const DEFAULT_ACCOUNT_SHARE_PERCENT = 25;

/** Tries under leases one account may have in flight: its share of `batches`, at least one. */
export const accountTries = (batches: number, sharePercent = DEFAULT_ACCOUNT_SHARE_PERCENT): number => Math.max(1, Math.ceil((batches * sharePercent) / 100));

/**
 * Tries under leases that accounts past their share may have in flight, all accounts together: what
 * the batches hold beyond two shares. An account alone then holds up to every batch but one share's
 * (`batches` − `share`), and the share left free lets any other account's tries go at once; the
 * share binds only while others take what it leaves, as a fair queue's does. No room beyond two shares
 * (a share of half the batches or more): no borrowing.
 */
export const borrowedTries = (batches: number, share: number): number => Math.max(0, batches - 2 * share);

/**
 * How long a delivery over its account's share waits in the queue before it looks again (no try
 * spent, nothing written): about as long as a slow try holds its place, spread (`random` in [0, 1))
 * so the account's waiting deliveries do not come back in step.
 */
export const accountShareWait = (now: Date, random: () => number): Date => new Date(now.getTime() + 2_000 + Math.floor(random() * 3_000));

/**
 * How long a delivery over its destination's cap waits in the queue before it looks again (no try
 * spent): a second or two at first, backing off with the time it has waited since it was due (a
 * quarter of it), at most half a minute, so a deep backlog behind a slow endpoint looks a few times a
 * minute rather than every second; spread over the upper half of the span (`random` in [0, 1)) so the
 * waiting deliveries do not come back in step.
 */
export function overCapWait(now: Date, dueSince: Date, random: () => number): Date {
  const waited = Math.max(0, now.getTime() - dueSince.getTime());
  const span = Math.min(OVER_CAP_MAX_SPAN_MS, OVER_CAP_FIRST_SPAN_MS + waited / 4);
  return new Date(now.getTime() + Math.floor(span / 2 + random() * (span / 2)));
}
const OVER_CAP_FIRST_SPAN_MS = 2_000;
const OVER_CAP_MAX_SPAN_MS = 30_000;

/** The lease map of `maps` a holder looks in first: the same for every copy of one delivery. */
export function homeMap(holder: string, maps: number): number {
  let hash = 0;
  for (let i = 0; i < holder.length; i++) hash = (hash * 31 + holder.charCodeAt(i)) >>> 0;
  return hash % maps;
}
