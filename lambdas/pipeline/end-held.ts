import { HELD_ENDED, heldEndedDelivery, lastTryOf } from '../domain/held-end';
import { config } from '../shared/config';
import { log } from '../shared/log';
import { recordDeliveryEnded } from '../shared/metrics';
import { releaseNext } from './ordering';
import { changeDelivery, findEventDeliveries, settleEventIfDone, type EventRecord } from '../events/record';
import type { LastAttempt } from '../domain/operational-events';
import type { EndReason } from '../domain/progress';
import { eachHeld, unparkDeliveries } from '../store/held-deliveries';
import { destinationRouting } from '../store/routing-table';
import { noticeDeadLetter } from './delivery-notices';

/** A try in flight belongs to its worker until the worker's Lambda would have timed out. */
const leaseMs = () => config().deliveryLeaseMs;

/**
 * Ends what a destination holds, at most `limit` deliveries a call, oldest first in each shard: each
 * delivery ends `dead_letter` (`held_ended`, no try spent), its event settles when nothing else waits,
 * the next delivery of its ordering line is let go, and the account is told as of any dead letter; its
 * held item goes last, so a call that fails part-way is simply made again. A delivery a release let go
 * meanwhile (its try in flight) is left to its try. `more`: the destination still holds some after this
 * call's limit.
 */
export async function endHeldDeliveries(accountId: string, destinationId: string, now: Date, limit: number): Promise<{ ended: number; more: boolean }> {
  let ended = 0;
  let seen = 0;
  for await (const held of eachHeld(accountId, destinationId, 0, limit)) {
    if (seen++ === limit) return { ended, more: true };
    const found = await findEventDeliveries(accountId, held.event_id);
    const stored = found?.deliveries[destinationId];
    if (found && stored) {
      const written = await changeDelivery(found.event, destinationId, (current) => heldEndedDelivery(current, now, leaseMs()), stored);
      if (!written) continue;
      if (written.changed) {
        ended++;
        await releaseNext(found.event, destinationId);
        await settleEventIfDone(found.event);
        recordDeliveryEnded(HELD_ENDED);
        log.info('delivery ended without a try', { account_id: accountId, event_id: held.event_id, destination_id: destinationId, reason: HELD_ENDED });
        await announceEnd(found.event, destinationId, lastTryOf(found.attempts, destinationId) ?? null, HELD_ENDED, now);
      } else if (written.delivery.state.status === 'delivering') continue;
    }
    await unparkDeliveries(accountId, destinationId, [held]);
  }
  return { ended, more: false };
}

/**
 * Announces a delivery ended without a try, with its destination if it still exists (one deleted had
 * its deliveries ended by its deletion, which says nothing; one that slipped past says nothing either).
 * The end is written already: failing to read the destination costs the notice, never the end.
 */
export async function announceEnd(event: EventRecord, destinationId: string, lastTry: LastAttempt | null, reason: EndReason, at: Date): Promise<void> {
  try {
    const { destination } = await destinationRouting(event.account_id, destinationId);
    if (destination) await noticeDeadLetter(event, destination, lastTry, reason, at);
  } catch (error) {
    log.error('operational event not published', { account_id: event.account_id, event_id: event.id, destination_id: destinationId }, error);
  }
}
