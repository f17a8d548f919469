import { SETTLED_STATUSES, type EventStatus } from './event-status';
import { firstIdAt } from './time-bounds';

export const DAY_MS = 86_400_000;
const DAY_SECONDS = 86_400;
/** Bodies, attempts and de-duplication items outlive their event by this much, so TTL never takes them first. */
export const TTL_MARGIN_DAYS = 7;

/** Events created before this instant are out of the account's window. */
export function retentionCutoffMs(now: Date, retentionDays: number): number {
  return now.getTime() - retentionDays * DAY_MS;
}

/** Ids are UUIDv7 in time order, so `id < bound` holds exactly for events created before the cutoff. */
export const cutoffBound = (now: Date, retentionDays: number) => firstIdAt(retentionCutoffMs(now, retentionDays));

/** Retention deletes only events that nothing will happen to any more (never queued or in-flight ones). */
export const isSweepable = (status: EventStatus) => SETTLED_STATUSES.includes(status);

const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** TTL of a settled event's status item: when it settled plus the window. */
export const settledExpiresAt = (settledAtMs: number, retentionDays: number) =>
  Math.floor(settledAtMs / 1000) + retentionDays * DAY_SECONDS;

/** TTL of a body, attempt or de-duplication item: its own time plus the window plus the margin. */
export const sideItemExpiresAt = (atIso: string, retentionDays: number) =>
  epochSeconds(atIso) + (retentionDays + TTL_MARGIN_DAYS) * DAY_SECONDS;
