/**
 * Per-destination rate limits as a schedule of send slots (GCRA with no burst): the destination's
 * next free slot is `next_slot`; each delivery takes the next one and moves it on by 1/limit s, so no
 * two sends are closer than that, whichever function sends them, and a delivery over the rate waits
 * for its own slot instead of trying again and again. Pure: the store applies these.
 */
export const slotIntervalMs = (limitPerSecond: number) => 1000 / limitPerSecond;

/**
 * A free destination's first slot is this far off rather than now: the claim and the body read come
 * between taking a slot and sending, and a first send made late by them would crowd the next one.
 */
export const SEND_LEAD_MS = 250;

/** A slot this close is waited for in process; a later one waits in the queue (no in-flight slot held for long). */
const INLINE_SLOT_WAIT_MS = 3000;
/**
 * A task waiting in the queue comes back this long before its slot and sleeps the rest: queue delays
 * are whole seconds and a little late, and deliveries that all came back late would send together.
 */
const QUEUE_LEAD_MS = 2000;

export type SlotPlan = { kind: 'send' } | { kind: 'wait'; until: Date };

/** What a delivery does with the slot it was given: send at it (waiting in process if it is close), or wait in the queue. */
export function planSlot(slot: number, now: Date): SlotPlan {
  if (slot - now.getTime() <= INLINE_SLOT_WAIT_MS) return { kind: 'send' };
  return { kind: 'wait', until: new Date(slot - QUEUE_LEAD_MS) };
}

/** A task back from the queue this long after its slot lost its turn (the queue was late): sent now it would crowd the next ones, so it queues again. */
const STALE_SLOT_MS = 100;

export const isStaleSlot = (slot: number, now: Date) => now.getTime() - slot > STALE_SLOT_MS;
