import { slotsToTry } from '../domain/max-in-flight';
import { config } from '../shared/config';
import { newId } from '../shared/secrets';
import { freeAccountSlots, handAccountSlot, releaseAccountSlot, takeAccountSlot, type FlightSlot } from '../store/flight-slots';

/**
 * An account's share of the deliver concurrency: its tries under slots (lambdas/domain/max-in-flight.ts
 * `capNeeded`: the ones that may hold a batch) hold one of its `accountTries` places each, as a try
 * holds one of its destination's, under the same lease: a place is held as a slot is.
 */
export type SharePlace = FlightSlot;

/**
 * A place in the account's share, or undefined when the share is full (the delivery then waits in the
 * queue). A few places at random first, as a destination's slots are taken; when those are held, the
 * places free now are read and tried: an account below its share never waits for having looked in the
 * wrong places (a destination's slots may miss one, an account's many places would miss more often).
 */
export async function takeSharePlace(accountId: string, now: Date, leaseUntil: number): Promise<SharePlace | undefined> {
  const holder = newId();
  const share = config().accountTries;
  const looked = slotsToTry(share, undefined, Math.random);
  const take = async (slots: readonly number[]) => {
    for (const slot of slots) if (await takeAccountSlot(accountId, slot, holder, now, leaseUntil)) return { slot, holder };
    return undefined;
  };
  const first = await take(looked);
  if (first || looked.length === share) return first;
  // In random order, so deliveries looking at once do not all try the same free place.
  const free = (await freeAccountSlots(accountId, share, now)).filter((slot) => !looked.includes(slot)).sort(() => Math.random() - 0.5);
  return take(free.slice(0, SHARE_SECOND_LOOKS));
}

/** Free places a delivery tries after its first looks missed (each is a conditional write, won or lost). */
const SHARE_SECOND_LOOKS = 3;

export const letSharePlaceGo = (accountId: string, { slot, holder }: SharePlace) => releaseAccountSlot(accountId, slot, holder);

/** Re-leases the place to `to` (a released delivery's task, with its destination's slot: `letSlotGo`), if it is still `holder`'s. */
export const handSharePlace = (accountId: string, { slot, holder }: SharePlace, to: string, leaseUntil: number) => handAccountSlot(accountId, slot, holder, to, leaseUntil);
