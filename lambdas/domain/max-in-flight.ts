import type { BreakerState } from './breaker';

/**
 * A destination's cap on tries in flight at once (`max_in_flight`), counted across every deliver
 * function: a hanging endpoint then holds at most that many deliver slots, and a delivery over the cap
 * waits without a try. The cap is that many numbered slots; a try holds one while it is in flight.
 */
export const DEFAULT_MAX_IN_FLIGHT = 10;
export const MAX_MAX_IN_FLIGHT = 1000;

/** The cap a destination's tries keep to; destinations stored before the setting have the default. */
export const maxInFlight = (destination: { max_in_flight?: number | null }) => destination.max_in_flight ?? DEFAULT_MAX_IN_FLIGHT;

/**
 * How many slots a delivery looks at before it waits: read together first, then taken, each a
 * conditional write, among those read free. Below the cap the first almost always is; at the cap a
 * few looks may miss the one that is free, which keeps the destination a little under its cap, never over.
 */
const SLOT_LOOKS = 3;

/**
 * The slots a delivery tries, in order: the one it was handed (a slot's release lets a waiting
 * delivery go with the slot it freed), then others at random (`random` in [0, 1)), distinct, all
 * below the cap (a slot above a lowered cap is never taken again).
 */
export function slotsToTry(cap: number, handed: number | undefined, random: () => number): number[] {
  const looks = Math.min(cap, SLOT_LOOKS);
  const slots = handed !== undefined && handed < cap ? [handed] : [];
  while (slots.length < looks) {
    let slot = Math.floor(random() * cap);
    while (slots.includes(slot)) slot = (slot + 1) % cap; // a slot drawn twice: the next one up
    slots.push(slot);
  }
  return slots;
}

/**
 * A slot handed on (a try that ends hands its slot to the held delivery it lets go) is leased to the
 * released delivery's task from the moment it is handed. Its try holds it as it is when the lease
 * still covers the longest the try may take (`tryMs`) with this margin for its settling writes;
 * otherwise (its message waited in the queue) the lease is renewed first.
 */
const HANDED_LEASE_MARGIN_MS = 5_000;

export const handedLeaseCovers = (leaseUntil: number, now: Date, tryMs: number): boolean => leaseUntil - now.getTime() >= tryMs + HANDED_LEASE_MARGIN_MS;

/**
 * A try that is still in flight this long marks its destination for its slots: a healthy endpoint
 * answers well within it (a 200 ms endpoint at the default cap makes 50 tries a second before slots
 * would bind).
 */
export const SLOW_TRY_MS = 1_000;
/** How long a destination keeps to its slots once marked: renewed by each slow try or park over its cap. */
const CAPPED_WINDOW_MS = 300_000;

/**
 * Whether a try must hold one of its destination's slots. Slots cost two writes a try, and the default
 * cap is there for endpoints that hold tries (slow, hanging, failing), so a destination whose cap is
 * the default or more goes without them while it answers fast and healthily. It keeps to them when its
 * cap is below the default (its owner protects a weak endpoint: every try counts), until it has first
 * succeeded (a new one, or one whose every try failed), while it is failing or open, and for the window
 * after a try of it ran slow or a delivery found its slots taken. A fast endpoint that turns slow goes
 * back under its slots within SLOW_TRY_MS (plus the routing cache's age in other functions); tries
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

/** The breaker with its destination kept to its slots for the window, or undefined when it is for most of the window already (no write). */
export function markedCapped(breaker: BreakerState, now: Date): BreakerState | undefined {
  if (breaker.capped_until !== null && Date.parse(breaker.capped_until) > now.getTime() + CAPPED_WINDOW_MS / 2) return undefined;
  return { ...breaker, capped_until: new Date(now.getTime() + CAPPED_WINDOW_MS).toISOString() };
}

/**
 * The share of the deliver concurrency one account's tries under slots (slow, failing or unproven
 * destinations: those that hold a batch) may hold at once, in percent of the batches the deliver
 * mapping runs (CDK context `deliverAccountSharePercent`). A try that answers fast holds its batch for
 * milliseconds and is not counted; one account's many slow endpoints, each within its own cap, would
 * otherwise hold every batch and make every other account's deliveries wait behind them.
 */
export const DEFAULT_ACCOUNT_SHARE_PERCENT = 25;

/** Tries under slots one account may have in flight: its share of `batches`, at least one. */
export const accountTries = (batches: number, sharePercent = DEFAULT_ACCOUNT_SHARE_PERCENT): number => Math.max(1, Math.ceil((batches * sharePercent) / 100));

/**
 * How long a delivery over its account's share waits in the queue before it looks again (no try
 * spent, nothing written): about as long as a slow try holds its place, spread (`random` in [0, 1))
 * so the account's waiting deliveries do not come back in step.
 */
export const accountShareWait = (now: Date, random: () => number): Date => new Date(now.getTime() + 2_000 + Math.floor(random() * 3_000));
