import { lineVerdict, unwrittenHead } from '../domain/ordering';
import { sideItemExpiresAt } from '../domain/retention';
import { enqueueDeliveries } from '../adapters/delivery-queue';
import { config } from '../shared/config';
import { log } from '../shared/log';
import { joinLine, keepPlace, leaveLine, lineFront, lineHead, type LinePlace } from '../store/ordering-lines';
import { findEvent, type EventRecord } from '../events/record';

/**
 * The pipeline's side of ordered delivery (lambdas/domain/ordering.ts). A lined delivery that is not
 * its line's head waits with no message, no timer and no held item: the delivery ahead of it, when it
 * ends, leaves the line and sends the next one's task (a release, not a wait for a timer). Nothing
 * here reads or writes for an event that joined no line.
 */

type Lined = Pick<EventRecord, 'account_id' | 'id' | 'ordering_key' | 'line_key' | 'lines'>;

function placeOf(event: Lined, destinationId: string): LinePlace | undefined {
  const place = event.lines?.[destinationId];
  const key = event.line_key ?? event.ordering_key;
  return key && place !== undefined ? { accountId: event.account_id, destinationId, key, place } : undefined;
}

/**
 * Joins the end of each line an accepted event's plan names (`destinations`), before its tasks are
 * sent (a task finds its place there); returns its places, which the event records. `key`: the lines'
 * name, the event's `line_key`.
 */
export async function joinLines(event: Pick<EventRecord, 'account_id' | 'id' | 'received_at' | 'retention_days'>, key: string, destinations: readonly string[]): Promise<Record<string, number>> {
  const expiresAt = sideItemExpiresAt(event.received_at, event.retention_days);
  const joinedAt = Date.now();
  const joined = await Promise.allSettled(destinations.map((destinationId) => joinLine(event.account_id, destinationId, key, event.id, joinedAt, expiresAt)));
  const places = Object.fromEntries(joined.flatMap((result, i) => (result.status === 'fulfilled' ? [[destinations[i] as string, result.value]] : [])));
  const failed = joined.find((result) => result.status === 'rejected');
  if (failed) {
    // The accept fails and records no place: the ones taken must go now, or each would block its key.
    await leaveLines({ account_id: event.account_id, id: event.id, line_key: key, lines: places });
    throw failed.reason;
  }
  return places;
}

/** Keeps the places of an event that still waits past its window, with its other items (pipeline/retention.ts). */
export async function keepLines(event: Lined, expiresAt: number): Promise<void> {
  for (const destinationId of Object.keys(event.lines ?? {})) {
    const place = placeOf(event, destinationId);
    if (place) await keepPlace(place, expiresAt);
  }
}

/** Gives up the places of an event that was not accepted after all (best effort: see `unwrittenHead` for a place left behind). */
export async function leaveLines(event: Lined): Promise<void> {
  await Promise.allSettled(Object.keys(event.lines ?? {}).map((destinationId) => placeOf(event, destinationId)).map((place) => place && leaveLine(place)));
}

/**
 * Whether a delivery may be tried now (`go`), or waits behind an earlier delivery of its key; `go`
 * without a read when it is in no line. A head whose event is not written (its accept still under
 * way, or dead) is looked at again at `recheckAt` (the task's message comes back then), and once it
 * can no longer be written its place is given up and the line read again.
 */
export async function lineCheck(event: Lined, destinationId: string, now: Date): Promise<{ kind: 'go' } | { kind: 'wait'; behind: string; recheckAt?: Date }> {
  const place = placeOf(event, destinationId);
  if (!place) return { kind: 'go' };
  for (;;) {
    const head = await lineHead(place.accountId, destinationId, place.key);
    const verdict = lineVerdict(head?.eventId, event.id);
    if (verdict.kind === 'go' || !head) return verdict;
    if (await findEvent(event.account_id, head.eventId)) return verdict;
    const unwritten = unwrittenHead(head.joinedAt, now, config().missingEventGraceSeconds);
    if (unwritten.kind === 'recheck') return { ...verdict, recheckAt: unwritten.at };
    log.warn('ordering line place of an event never written given up', { account_id: event.account_id, destination_id: destinationId, event_id: head.eventId });
    await leaveLine(head.place);
  }
}

/**
 * A lined delivery ended (delivered, dead-lettered, ended without a try): it leaves its line and the
 * next one's task is sent at once. Throws when either fails, so the task that ended it comes back
 * (its arrival finds the delivery ended and calls this again) until the release has been sent; a
 * release sent twice is a duplicate message the claim ignores. A next place whose event is not
 * written (an accept that died after joining) has no task to send: it is given up once it can no
 * longer be written, and until then the delivery behind it is sent for when it will be, so its own
 * check gives the place up then (or finds the event written, and waits behind it as any).
 */
export async function releaseNext(event: Lined, destinationId: string, now: Date = new Date()): Promise<void> {
  const place = placeOf(event, destinationId);
  if (!place) return;
  await leaveLine(place);
  for (;;) {
    const [next, after] = await lineFront(place.accountId, destinationId, place.key, 2);
    if (!next) return;
    if (await findEvent(place.accountId, next.eventId)) return sendTask(place.accountId, next.eventId, destinationId, 0);
    const unwritten = unwrittenHead(next.joinedAt, now, config().missingEventGraceSeconds);
    if (unwritten.kind === 'orphan') {
      log.warn('ordering line place of an event never written given up', { account_id: place.accountId, destination_id: destinationId, event_id: next.eventId });
      await leaveLine(next.place);
      continue;
    }
    if (after) await sendTask(place.accountId, after.eventId, destinationId, Math.min(MAX_DELAY_SECONDS, Math.ceil((unwritten.at.getTime() - now.getTime()) / 1000)));
    return;
  }
}

/** SQS's longest message delay: a later recheck is made by the check itself (it waits again with `recheckAt`). */
const MAX_DELAY_SECONDS = 900;

const sendTask = (accountId: string, eventId: string, destinationId: string, delaySeconds: number) =>
  enqueueDeliveries([{ v: 1, account_id: accountId, event_id: eventId, destination_id: destinationId }], delaySeconds);
