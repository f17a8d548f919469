import { deliveriesToExpire, EXPIRED, expiredDelivery, lastTryOf } from '../domain/expiry';
import { isTerminalDelivery } from '../domain/event-status';
import { DELIVERY_QUEUE } from '../shared/resource-definitions';
import { log } from '../shared/log';
import { recordDeliveryEnded } from '../shared/metrics';
import { releaseNext } from './ordering';
import { changeDelivery, findEventDeliveries, settleEventIfDone, type EventRecord } from '../events/record';
import type { LastAttempt } from '../domain/operational-events';
import type { EndReason } from '../domain/progress';
import { destinationRouting } from '../store/routing-table';
import { noticeDeadLetter } from './delivery-notices';

/** A try in flight belongs to its worker until the worker's Lambda would have timed out (as deliver-task.ts). */
const LEASE_MS = DELIVERY_QUEUE.consumerTimeoutSeconds * 1000;

/**
 * Ends the deliveries of an unsettled event past its retention window (`end_reason: expired`, no try
 * spent: lambdas/domain/expiry.ts says why), settles the event, and announces each ended delivery as
 * a dead letter. The event is left for the sweeper's next pass to delete: settled, its status item
 * gets its TTL. A held item of such a delivery is left to its own TTL; a release that sends it finds
 * the delivery ended and skips it. Returns how many deliveries this call ended, and whether it settled
 * the event (one with nothing planned settles `accepted`).
 */
export async function expireEvent(accountId: string, eventId: string, now: Date): Promise<{ ended: number; settled: boolean }> {
  const found = await findEventDeliveries(accountId, eventId);
  if (!found) return { ended: 0, settled: false };
  const { event, deliveries, attempts } = found;
  const states = Object.fromEntries(Object.entries(deliveries).map(([id, stored]) => [id, stored.state]));
  const ended: string[] = [];
  let settled = false;
  for (const destinationId of deliveriesToExpire(states, now, LEASE_MS)) {
    const stored = deliveries[destinationId];
    if (!stored) continue;
    const written = await changeDelivery(event, destinationId, (current) => expiredDelivery(current, now, LEASE_MS), stored);
    if (!written?.changed) continue;
    ended.push(destinationId);
    // Released before the event settles: a release that throws leaves it unsettled, so the next pass comes back.
    await releaseNext(event, destinationId);
    // Once per ended delivery, as every end does: a wide event counts its ends on a tally.
    if (await settleEventIfDone(event)) settled = true;
  }
  if (ended.length === 0) {
    // A pass that ended a lined delivery may have stopped before its release was sent, and nothing else
    // sends it: each ended one's release is made again (idempotent; a duplicate task is one the claim ignores).
    for (const destinationId of Object.keys(event.lines ?? {})) {
      const state = states[destinationId];
      if (state && isTerminalDelivery(state.status)) await releaseNext(event, destinationId);
    }
    // Ending nothing, it may still settle: nothing planned, or a pass that ended them all stopped before settling.
    return { ended: 0, settled: await settleEventIfDone(event) };
  }

  for (const destinationId of ended) {
    recordDeliveryEnded(EXPIRED);
    log.info('delivery ended without a try', { account_id: accountId, event_id: eventId, destination_id: destinationId, reason: EXPIRED });
    await announceEnd(event, destinationId, lastTryOf(attempts, destinationId) ?? null, EXPIRED, now);
  }
  return { ended: ended.length, settled };
}

/**
 * Announces a delivery the sweeper ended, with its destination if it still exists (one deleted had its
 * deliveries ended by its deletion, which says nothing; one that slipped past says nothing either).
 * The end is written already: failing to read the destination costs the notice, never the sweep.
 */
export async function announceEnd(event: EventRecord, destinationId: string, lastTry: LastAttempt | null, reason: EndReason, at: Date): Promise<void> {
  try {
    const { destination } = await destinationRouting(event.account_id, destinationId);
    if (destination) await noticeDeadLetter(event, destination, lastTry, reason, at);
  } catch (error) {
    log.error('operational event not published', { account_id: event.account_id, event_id: event.id, destination_id: destinationId }, error);
  }
}
