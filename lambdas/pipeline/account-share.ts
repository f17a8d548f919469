import { slotsToTry } from '../domain/max-in-flight';
import { config } from '../shared/config';
import { newId } from '../shared/secrets';
import { releaseAccountSlot, takeAccountSlot } from '../store/flight-slots';

/**
 * An account's share of the deliver concurrency: its tries under slots (lambdas/domain/max-in-flight.ts
 * `capNeeded`: the ones that may hold a batch) hold one of its `accountTries` places each, as a try
 * holds one of its destination's, under the same lease.
 */
export interface SharePlace {
  slot: number;
  holder: string;
}

/** A place in the account's share, or undefined when every place it looked at is taken (the delivery then waits in the queue). */
export async function takeSharePlace(accountId: string, now: Date, leaseUntil: number): Promise<SharePlace | undefined> {
  const holder = newId();
  for (const slot of slotsToTry(config().accountTries, undefined, Math.random)) {
    if (await takeAccountSlot(accountId, slot, holder, now, leaseUntil)) return { slot, holder };
  }
  return undefined;
}

export const letSharePlaceGo = (accountId: string, { slot, holder }: SharePlace) => releaseAccountSlot(accountId, slot, holder);
