import { valueAtPointer } from './json-pointer';

/**
 * Erasure per data subject (issue 39, part 4): what a subject is, what erasing an event's stored
 * parts leaves, and the order an erasure job's phases run in.
 */

export const SUBJECT_MAX_LENGTH = 256;

/** The refusal of a replay or resend of a tombstone: there is nothing left to send. */
export const PAYLOAD_ERASED = 'payload erased';

/** A subject is any non-empty text up to SUBJECT_MAX_LENGTH characters (code points, as a reader counts them). */
export const isSubject = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && [...value].length <= SUBJECT_MAX_LENGTH;

/**
 * The value an RFC 6901 JSON pointer names in a parsed payload, when it is a subject: a number counts
 * as its text (a user id is often one); anything else, or nothing there, is no subject.
 */
export function subjectAt(json: unknown, pointer: string): string | undefined {
  const node = valueAtPointer(json, pointer);
  const text = typeof node === 'number' && Number.isFinite(node) ? String(node) : node;
  return isSubject(text) ? text : undefined;
}

/** What erasing one attempt leaves: the try's facts, no response body; `erased` when it held one. */
export function erasedAttempt<T extends { response_body: string }>(attempt: T): { attempt: T; erased: boolean } {
  return { attempt: { ...attempt, response_body: '' }, erased: attempt.response_body !== '' };
}

/**
 * An event's status item as a tombstone: marked, without its ordering key (a source's pointer may have
 * read it from the payload). Its lines keep their name, so its deliveries still leave them; an event
 * whose lines are named by the key itself (accepted before `line_key`) keeps that name as `line_key`,
 * as its lines' own items hold it until they go.
 */
export function tombstoneOf<T extends { payload_erased?: boolean; ordering_key?: string | null; line_key?: string; lines?: Record<string, number> }>(event: T): T {
  const { ordering_key: orderingKey, ...rest } = event;
  const lineKey = event.line_key ?? (event.lines && orderingKey ? orderingKey : undefined);
  return { ...rest, payload_erased: true, ...(lineKey !== undefined && { line_key: lineKey }) } as T;
}

/**
 * An erasure job's phases, in order: `events` walks the subject's index entries a page at a time,
 * turning each event into a tombstone (the entries stay, so a later erasure finds it); `exports` names the
 * exports written before the erasure. Each step is safe to run again, so a job taken over after a
 * crash resumes at its phase (and page).
 */
export const ERASURE_PHASES = ['events', 'exports'] as const;
/**
 * What one event's erasure adds to the counts, from what it held before any of it was removed: a
 * tombstone already (or an event gone with retention) is no event erased, though leftovers are.
 */
export function erasureCountsOf(plan: { live: boolean; payloadObject: string | undefined; requestBody: boolean; responseBodies: number }): ErasureCounts {
  return {
    events: plan.live ? 1 : 0,
    payload_objects: plan.payloadObject ? 1 : 0,
    request_bodies: plan.requestBody ? 1 : 0,
    response_bodies: plan.responseBodies,
  };
}

/** What one page of the `events` phase erased, added into the job's totals. */
export interface ErasureCounts {
  events: number;
  payload_objects: number;
  request_bodies: number;
  response_bodies: number;
}

export const NO_ERASURES: ErasureCounts = { events: 0, payload_objects: 0, request_bodies: 0, response_bodies: 0 };

export const addCounts = (a: ErasureCounts, b: ErasureCounts): ErasureCounts => ({
  events: a.events + b.events,
  payload_objects: a.payload_objects + b.payload_objects,
  request_bodies: a.request_bodies + b.request_bodies,
  response_bodies: a.response_bodies + b.response_bodies,
});

/**
 * The exports an erasure cannot reach: files written (ready) before it started may list the subject's
 * events. Those written after it started are left out: they were read from tombstones or after them.
 */
export function exportsWrittenBefore(exports: ReadonlyArray<{ id: string; status: string; created_at: string }>, erasureStartedAt: string): string[] {
  return exports.filter((job) => job.status === 'ready' && job.created_at < erasureStartedAt).map((job) => job.id);
}
