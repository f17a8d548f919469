import type { Refusal } from '../domain/errors';
import type { AcceptResult } from '../events/accept';
import type { EventStatus } from '../domain/vocabulary';

/** An event as the caller is told of it. */
export interface EventRef {
  id: string;
  status: EventStatus;
}

/** Stored now, or already stored under the same external id (nothing stored again). */
export type Accepted = { kind: 'accepted'; event: EventRef } | { kind: 'duplicate'; event: EventRef };
export type NotFound = { kind: 'not_found' };
export type Refused = { kind: 'refused'; reason: Refusal };

export const refused = (reason: Refusal): Refused => ({ kind: 'refused', reason });

export const acceptedOutcome = (result: AcceptResult): Accepted =>
  result.duplicate
    ? { kind: 'duplicate', event: { id: result.existingId, status: result.existingStatus } }
    : { kind: 'accepted', event: { id: result.event.id, status: result.event.status } };
