import { lineVerdict, type LineVerdict } from '../domain/ordering';
import { sideItemExpiresAt } from '../domain/retention';
import { enqueueDeliveries } from '../adapters/delivery-queue';
import { joinLine, leaveLine, lineHead, type LinePlace } from '../store/ordering-lines';
import type { EventRecord } from '../events/record';

/**
 * The pipeline's side of ordered delivery (lambdas/domain/ordering.ts). A lined delivery that is not
 * its line's head waits with no message, no timer and no held item: the delivery ahead of it, when it
 * ends, leaves the line and sends the next one's task (a release, not a wait for a timer). Nothing
 * here reads or writes for an event that joined no line.
 */

type Lined = Pick<EventRecord, 'account_id' | 'id' | 'ordering_key' | 'lines'>;

function placeOf(event: Lined, destinationId: string): LinePlace | undefined {
  const place = event.lines?.[destinationId];
  return event.ordering_key && place !== undefined ? { accountId: event.account_id, destinationId, key: event.ordering_key, place } : undefined;
}

/**
 * Joins the end of each line an accepted event's plan names (`destinations`), before its tasks are
 * sent (a task finds its place there); returns its places, which the event records.
 */
export async function joinLines(event: Pick<EventRecord, 'account_id' | 'id' | 'received_at' | 'retention_days'>, key: string, destinations: readonly string[]): Promise<Record<string, number>> {
  const expiresAt = sideItemExpiresAt(event.received_at, event.retention_days);
  const places = await Promise.all(destinations.map((destinationId) => joinLine(event.account_id, destinationId, key, event.id, expiresAt)));
  return Object.fromEntries(destinations.map((destinationId, i) => [destinationId, places[i] as number]));
}

/** Gives up the places of an event that was not accepted after all (best effort: they expire with its items otherwise). */
export async function leaveLines(event: Lined): Promise<void> {
  await Promise.allSettled(Object.keys(event.lines ?? {}).map((destinationId) => placeOf(event, destinationId)).map((place) => place && leaveLine(place)));
}

/** Whether a delivery may be tried now (`go`), or waits behind an earlier delivery of its key; `go` without a read when it is in no line. */
export async function lineCheck(event: Lined, destinationId: string): Promise<LineVerdict> {
  const place = placeOf(event, destinationId);
  if (!place) return { kind: 'go' };
  return lineVerdict(await lineHead(place.accountId, destinationId, place.key), event.id);
}

/**
 * A lined delivery ended (delivered, dead-lettered, ended without a try): it leaves its line and the
 * next one's task is sent at once. Throws when either fails, so the task that ended it comes back
 * (its arrival finds the delivery ended and calls this again) until the release has been sent; a
 * release sent twice is a duplicate message the claim ignores.
 */
export async function releaseNext(event: Lined, destinationId: string): Promise<void> {
  const place = placeOf(event, destinationId);
  if (!place) return;
  await leaveLine(place);
  const next = await lineHead(place.accountId, destinationId, place.key);
  if (next) await enqueueDeliveries([{ v: 1, account_id: place.accountId, event_id: next, destination_id: destinationId }], 0);
}
