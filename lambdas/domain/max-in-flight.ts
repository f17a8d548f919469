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
 * How many slots a delivery tries before it waits. Each look is a conditional write (a taken slot
 * costs its write too): below the cap the first look almost always finds a free slot; at the cap a
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
