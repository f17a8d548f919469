import type { Refusal } from './errors';
import type { EventStatus } from './vocabulary';

// What a use case answers besides its result; lambdas/api/ maps each to an HTTP status.

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

/** What accepting an event came to (lambdas/events/accept.ts `AcceptResult`), as far as its caller is told. */
type Acceptance = { duplicate: false; event: EventRef } | { duplicate: true; existingId: string; existingStatus: EventStatus };

export const acceptedOutcome = (result: Acceptance): Accepted =>
  result.duplicate
    ? { kind: 'duplicate', event: { id: result.existingId, status: result.existingStatus } }
    : { kind: 'accepted', event: { id: result.event.id, status: result.event.status } };
