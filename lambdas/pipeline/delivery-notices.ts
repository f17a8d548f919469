import type { BreakerState, BreakerTransition } from '../domain/breaker';
import {
  breakerOpened,
  breakerRecovered,
  deadLettered,
  destinationDisabled,
  fanoutLimited,
  mayAnnounce,
  type LastAttempt,
  type OperationalEvent,
} from '../domain/operational-events';
import { isRouted } from '../domain/routing';
import { log } from '../shared/log';
import type { DestinationRecord } from '../destinations/record';
import type { EventRecord } from '../events/record';
import { loadCurrentRoutingTable } from '../store/routing-table';
import { acceptEvent } from '../events/accept';

/**
 * What a settled try tells the account (operational events). Called only when something changed, so
 * a healthy delivery never comes here.
 */

/**
 * Publishes an operational event into the account when one of its routes takes it; without such a
 * route nothing is written. Failing to publish costs the notice, never the delivery.
 */
async function announce(accountId: string, notice: OperationalEvent, now: Date): Promise<void> {
  try {
    const routing = await loadCurrentRoutingTable(accountId);
    if (!routing || !isRouted(routing.routes, { source_id: null, event_type: notice.type, payload: { json: notice.payload } })) return;
    await acceptEvent({
      accountId,
      direction: 'outbound',
      sourceId: null,
      eventType: notice.type,
      // Addressed to the account itself: a customer's endpoint never learns of the account's others.
      customer: null,
      externalEventId: notice.key,
      body: Buffer.from(JSON.stringify(notice.payload), 'utf8'),
      contentType: 'application/json',
      headers: {},
      createdBy: 'hookgate',
      routing,
      now,
    });
  } catch (error) {
    log.error('operational event not published', { account_id: accountId, type: notice.type }, error);
  }
}

export async function noticeDeadLetter(cause: EventRecord, destination: DestinationRecord, lastAttempt: LastAttempt | null, endReason: string | null, at: Date) {
  if (mayAnnounce(cause)) await announce(cause.account_id, deadLettered(cause, destination, lastAttempt, endReason, at), at);
}

/** Hookgate switched a destination off (a 410, or failures for too long): say so once. */
export async function noticeDisabled(cause: EventRecord, destination: DestinationRecord, reason: string, failingSince: string | null, at: Date) {
  if (mayAnnounce(cause)) await announce(cause.account_id, destinationDisabled(destination, reason, failingSince, at), at);
}

/** A destination's breaker as a settled try left it, and what changed. */
export interface BreakerUpdate {
  before: BreakerState;
  after: BreakerState;
  transition: BreakerTransition;
}

/** A breaker that opened or recovered: say so. */
export async function noticeBreaker(cause: EventRecord, destination: DestinationRecord, { before, after, transition }: BreakerUpdate, at: Date): Promise<void> {
  if (!transition || !mayAnnounce(cause)) return;
  const notice = transition === 'opened' ? breakerOpened(destination, after, at) : breakerRecovered(destination, before.failing_since, at);
  await announce(cause.account_id, notice, at);
}

/** An inbound event reached more destinations than one event may; the account learns which were left out. */
export async function noticeFanoutLimited(event: EventRecord, limit: number, beyondLimit: readonly string[], at: Date) {
  if (beyondLimit.length > 0 && mayAnnounce(event)) await announce(event.account_id, fanoutLimited(event, limit, beyondLimit, at), at);
}
