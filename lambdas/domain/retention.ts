import { SETTLED_STATUSES } from './event-status';
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

/** TTL of a body, attempt or de-duplication item: its own time plus the window plus the margin. */
export const sideItemExpiresAt = (atIso: string, retentionDays: number) =>
  epochSeconds(atIso) + (retentionDays + TTL_MARGIN_DAYS) * DAY_SECONDS;
