import { conflict, invalid } from '../domain/errors';
import { PAYLOAD_ERASED } from '../domain/erasure';
import { webhookIdOf } from '../domain/ids';
import { traceOf } from '../domain/trace-context';
import { SETTLED_STATUSES } from '../domain/event-status';
import { copyPayload, payloadKey } from '../adapters/payloads';
import { newId } from '../shared/secrets';
import { findDestination } from '../destinations/record';
import { changeEvent, findEventWithBody, type EventBodyRecord, type EventRecord } from '../events/record';
import { acceptEvent } from '../events/accept';
import { loadCurrentRoutingTable } from '../store/routing-table';
import { refused, type EventRef, type NotFound, type Refused } from '../domain/outcomes';
import type { Direction } from '../domain/vocabulary';

export type ReplayOutcome = { kind: 'accepted'; replay: EventRef } | NotFound | Refused;

/**
 * Replays a settled event as a new event with the same payload and headers, routed by today's routes
 * or, with `destinationId`, delivered to that destination only (acceptEvent's `onlyDestination`, as
 * the portal's resend does: what a tenant wants after one endpoint's outage); the original becomes
 * `replayed`. The new event is created first, so a crash part-way leaves the original replayable
 * rather than an original marked replayed with nothing sent.
 */
export async function replayEvent(
  accountId: string,
  direction: Direction,
  eventId: string,
  now: Date,
  destinationId?: string,
): Promise<ReplayOutcome> {
  const loaded = await findEventWithBody(accountId, eventId);
  if (!loaded || loaded.event.direction !== direction) return { kind: 'not_found' };
  if (loaded.event.payload_erased) return refused(conflict(PAYLOAD_ERASED));
  if (!SETTLED_STATUSES.includes(loaded.event.status)) return refused(invalid('event is not in a terminal status'));
  if (destinationId !== undefined && !(await findDestination(accountId, destinationId))) {
    return refused(invalid('destination_id does not match a destination of this account'));
  }

  const replay = await copyEvent(accountId, loaded, destinationId, now, { manual: true });
  await markReplayed(accountId, eventId, replay.id, null);
  return { kind: 'accepted', replay: { id: replay.id, status: replay.status } };
}

/** The original becomes `replayed`, naming its copy (and the bulk replay that made it, if one did). */
export async function markReplayed(accountId: string, eventId: string, copyId: string, jobId: string | null): Promise<void> {
  await changeEvent(accountId, eventId, (current) =>
    SETTLED_STATUSES.includes(current.status) ? { ...current, status: 'replayed', replayed_by: copyId, replay_job: jobId } : undefined,
  );
}

/**
 * A new event with a stored event's payload and headers (`replay_of` names the original), routed by
 * today's routes or, with `destinationId`, delivered to that destination only. Each event owns its
 * payload object, so retention can delete one without breaking the other.
 */
export async function copyEvent(
  accountId: string,
  { event, body }: { event: EventRecord; body: EventBodyRecord },
  destinationId: string | undefined,
  now: Date,
  /** `copyId`: the copy's id when a bulk replay's claim fixed it; `manual`: see NewEvent. */
  { copyId, manual = false }: { copyId?: string; manual?: boolean } = {},
): Promise<EventRecord> {
  // The copy is kept for the account's window of today, not the original's: its object is filed (and
  // expires) in that window's class. Read before anything is copied (an event without its routes is
  // not accepted, so nothing would be left behind) and handed on, so acceptEvent does not read it again.
  const routing = await loadCurrentRoutingTable(accountId);
  if (!routing) throw new Error(`account ${accountId} has no routing table`);
  // The copy stays in its original's trace (each of its tries a new span), as it keeps its webhook id.
  const traced = { ...body, trace: traceOf(body.trace, event.id) };
  const storedBody = body.body_ref ? { ...traced, body_ref: payloadKey(accountId, newId(), routing.account.retention_days) } : traced;
  if (body.body_ref && storedBody.body_ref) await copyPayload(body.body_ref, storedBody.body_ref);
  const accepted = await acceptEvent({
    accountId,
    direction: event.direction,
    sourceId: event.source_id,
    eventType: event.event_type,
    customer: event.customer,
    // A copy joins the end of its key's line, behind everything accepted before it.
    orderingKey: event.ordering_key ?? null,
    externalEventId: event.external_event_id,
    body: Buffer.alloc(0),
    contentType: body.content_type,
    headers: body.headers,
    createdBy: event.created_by,
    ...(event.subject_hash !== undefined && { subjectHash: event.subject_hash }),
    replayOf: event.id,
    webhookId: webhookIdOf(event),
    id: copyId,
    storedBody,
    onlyDestination: destinationId,
    manual,
    routing,
    now,
  });
  if (accepted.duplicate) throw new Error('a copy never claims an external id');
  return accepted.event;
}
