import { SETTLED_STATUSES } from './event-status';
import { MAX_RETENTION_DAYS } from './plans';
import { firstIdAt } from './time-bounds';
import type { EventStatus } from './vocabulary';

export const DAY_MS = 86_400_000;
const DAY_SECONDS = 86_400;
/** Bodies, attempts and de-duplication items outlive their event by this much, so TTL never takes them first. */
export const TTL_MARGIN_DAYS = 7;

/** Events created before this instant are out of the account's window. */
function retentionCutoffMs(now: Date, retentionDays: number): number {
  return now.getTime() - retentionDays * DAY_MS;
}

/** Ids are UUIDv7 in time order, so `id < bound` holds exactly for events created before the cutoff. */
export const cutoffBound = (now: Date, retentionDays: number) => firstIdAt(retentionCutoffMs(now, retentionDays));

/** Retention deletes only events that nothing will happen to any more (never queued or in-flight ones). */
export const isSweepable = (status: EventStatus) => SETTLED_STATUSES.includes(status);

const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * TTL of a settled event's status item: its receipt plus the window, the same instant the sweeper and
 * every read measure the window by. Set only once the event has settled, so TTL never takes an event
 * that is still being delivered (one that settles after its window is gone at once).
 */
export const settledExpiresAt = (receivedAtIso: string, retentionDays: number) => epochSeconds(receivedAtIso) + retentionDays * DAY_SECONDS;

/**
 * When an export's file is deleted by its bucket's lifecycle rule (S3 rounds that up to a midnight, so
 * never sooner), and its job with it by TTL: completion plus the file's lifetime.
 */
export const exportExpiresAt = (completedAtIso: string, fileExpiryDays: number) => epochSeconds(completedAtIso) + fileExpiryDays * DAY_SECONDS;

/** An item whose TTL has passed is out of the window for every read, whether or not TTL has deleted it yet. */
export const isExpired = (expiresAt: unknown, now: Date) => typeof expiresAt === 'number' && expiresAt * 1000 <= now.getTime();

/**
 * DynamoDB deletes expired items for free, typically within two days; the sweeper only deletes what
 * TTL has left behind past that (`lagSeconds`; 0 where there is no TTL, as in the local emulator).
 */
export const sweepCutoffBound = (now: Date, retentionDays: number, lagSeconds: number) =>
  cutoffBound(new Date(now.getTime() - lagSeconds * 1000), retentionDays);

// ---------------------------------------------------------------------------------------------------
// Events that still wait past their window (rule 5: never deleted by retention)

/**
 * An event's items get their TTLs when they are written, counted from its receipt (or an attempt's
 * time), so that no try of the happy path writes one again. One that still waits when they fall due
 * (a destination paused and forgotten, a long retry schedule) is kept by the retention sweeper, which
 * passes every event past its window each hour: an item due within KEEP_AHEAD_DAYS of the sweep gets
 * KEEP_FOR_DAYS from it. One write per item every few days while it waits, and days of slack should
 * the sweeper miss runs; TTL's own lag (up to two days) only ever adds to that.
 */
export const KEEP_AHEAD_DAYS = 4;
export const KEEP_FOR_DAYS = 8;

/** The TTL a waiting event's item is pushed out to, or undefined when it is not due yet (or has none, and so never expires). */
export function keptExpiresAt(expiresAt: number | undefined, now: Date): number | undefined {
  if (expiresAt === undefined) return undefined;
  const nowSeconds = Math.floor(now.getTime() / 1000);
  return expiresAt >= nowSeconds + KEEP_AHEAD_DAYS * DAY_SECONDS ? undefined : nowSeconds + KEEP_FOR_DAYS * DAY_SECONDS;
}

/**
 * TTL of an item rewritten while its event may still wait (a delivery's item, the settlement tally):
 * never earlier than a kept item's, so a write after a long wait does not hand back a TTL already due.
 * The same write as ever on the happy path, only with this number.
 */
export const liveItemExpiresAt = (receivedAtIso: string, retentionDays: number, now: Date): number =>
  Math.max(sideItemExpiresAt(receivedAtIso, retentionDays), keptFromNow(now));

/** A kept item's TTL counted from now: also that of an item whose event's window nobody knows (a delivery's give-up mark). */
export const keptFromNow = (now: Date): number => Math.floor(now.getTime() / 1000) + KEEP_FOR_DAYS * DAY_SECONDS;

/**
 * An item's TTL for a window that changed: `target`, except that a waiting event's item is never given
 * one that would fall due before the sweeper's next keep (a shorter window must not delete what waits).
 */
export const retimedExpiresAt = (target: number, waiting: boolean, now: Date): number => (waiting ? (keptExpiresAt(target, now) ?? target) : target);

/** TTL of a body, attempt or de-duplication item: its own time plus the window plus the margin. */
export const sideItemExpiresAt = (atIso: string, retentionDays: number) =>
  epochSeconds(atIso) + (retentionDays + TTL_MARGIN_DAYS) * DAY_SECONDS;

// ---------------------------------------------------------------------------------------------------
// Payload objects

/**
 * In AWS, TTL deletes an event's items and never calls S3, so a payload object must expire by itself:
 * it is filed under its event's retention class (the shortest of these windows that covers the event's),
 * and the payload bucket has one lifecycle rule per class. A short ladder keeps the rules few; an object
 * outlives its event by at most the gap to the next class (none for the plans' defaults 1, 30 and 90).
 */
const PAYLOAD_RETENTION_CLASSES = [1, 7, 30, 90, 365, MAX_RETENTION_DAYS] as const;
export type PayloadRetentionClass = (typeof PAYLOAD_RETENTION_CLASSES)[number];

/**
 * The class of an event's payload object. No window is ever longer than the last class (accounts are
 * capped at it, and an event whose window is unknown gets it); one that were would get the last class,
 * which the backstop rule also covers.
 */
export const payloadRetentionClass = (retentionDays: number): PayloadRetentionClass =>
  PAYLOAD_RETENTION_CLASSES.find((days) => days >= retentionDays) ?? MAX_RETENTION_DAYS;

/** Where a class's objects are kept: the prefix its lifecycle rule matches. */
export const payloadClassPrefix = (retentionClass: PayloadRetentionClass) => `payloads/r${retentionClass}/`;

/** The class a payload key was filed under; undefined for a key of the older layout (`payloads/{account}/{event}`). */
export function payloadKeyClass(key: string): PayloadRetentionClass | undefined {
  const days = Number(/^payloads\/r(\d+)\//.exec(key)?.[1]);
  return PAYLOAD_RETENTION_CLASSES.find((retentionClass) => retentionClass === days);
}

/**
 * The payload bucket's expiration rules. A class's objects go TTL's margin after the class's window:
 * the body item that points at an object lives its event's window plus that margin from the event's
 * receipt, and the object is written after the receipt, under a class at least that window, so the
 * object never goes first (S3 also rounds an expiry up to the next midnight, never down): whatever may
 * still read the body item (an event retried past its window, TTL's lag) finds the object too.
 */
export const PAYLOAD_EXPIRY_RULES = PAYLOAD_RETENTION_CLASSES.map((retentionClass) => ({
  prefix: payloadClassPrefix(retentionClass),
  expirationDays: retentionClass + TTL_MARGIN_DAYS,
}));

/**
 * A payload object expires by its class's rule counted from when it was written, whatever its event's
 * state, so a waiting event's object is written again whenever its body item is kept: copied to a
 * class that outlives the kept TTL (7 days + the margin, against KEEP_FOR_DAYS), or to the next one
 * when it is in that class already (a copy needs another key). A copy restarts the object's age, so
 * it always outlives the body item that points at it; once settled it goes with its event, or by its
 * class's rule at most 37 days on.
 */
export const keptPayloadClass = (current: PayloadRetentionClass | undefined): PayloadRetentionClass => (current === 7 ? 30 : 7);

/** Anything else in the bucket (keys of the older layout, classless by definition) goes after the longest window any event can have. */
export const PAYLOAD_BACKSTOP_EXPIRY_DAYS = MAX_RETENTION_DAYS + TTL_MARGIN_DAYS;
