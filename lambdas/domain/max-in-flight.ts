/**
 * A destination's cap on tries in flight at once (`max_in_flight`), counted across every deliver
 * function: a hanging endpoint then holds at most that many deliver slots, and a delivery over the cap
 * waits without a try. Pure: the delivery path keeps the count.
 */
export const DEFAULT_MAX_IN_FLIGHT = 10;
export const MAX_MAX_IN_FLIGHT = 1000;

/** The cap a destination's tries keep to; destinations stored before the setting have the default. */
export const maxInFlight = (destination: { max_in_flight?: number | null }) => destination.max_in_flight ?? DEFAULT_MAX_IN_FLIGHT;
