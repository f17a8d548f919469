import type { DeliveryStatus, EventStatus } from './vocabulary';

/** A bulk replay stops after this many events; the same request again continues with the rest. */
export const REPLAY_JOB_LIMIT = 100_000;

export interface ReplaySelection {
  statuses: readonly EventStatus[];
  destination_id?: string;
}

export interface ReplayCandidate {
  status: EventStatus;
  deliveries: Record<string, { status: DeliveryStatus }>;
  /** The bulk replay that replayed this event, if one did. */
  replay_job?: string | null;
}

/**
 * What a bulk replay does with one event it walks past:
 * - `replay`: it matches and has not been replayed by this job;
 * - `replayed_before`: this job already replayed it (a run that resumes after a crash walks part of a
 *   page again, and counts such events without replaying them twice);
 * - `skip`: it does not match.
 *
 * With a destination, only events routed to it match, and a `dead_letter` event only when that
 * destination's own delivery is the one that failed: an event whose other destination failed was
 * delivered to this one already, and sending it again would be a duplicate.
 */
export function selectForReplay(event: ReplayCandidate, selection: ReplaySelection, jobId: string): 'replay' | 'replayed_before' | 'skip' {
  if (event.replay_job === jobId) return 'replayed_before';
  if (!selection.statuses.includes(event.status)) return 'skip';
  if (selection.destination_id === undefined) return 'replay';
  const delivery = event.deliveries[selection.destination_id];
  if (!delivery) return 'skip';
  if (event.status === 'dead_letter' && delivery.status !== 'dead_letter') return 'skip';
  return 'replay';
}

/**
 * A job's lease: the worker holding it renews it at every checkpoint; a worker that died (a crash, a
 * Lambda timeout) stops renewing, and once the lease has run out another run takes the job over from
 * its last checkpoint.
 */
export const leaseUntil = (now: Date, leaseSeconds: number) => new Date(now.getTime() + leaseSeconds * 1000).toISOString();

/** A finished job is kept this long for GET /v1/replays, then TTL deletes it. */
const REPLAY_JOB_KEEP_DAYS = 30;
export const replayJobExpiresAt = (completedAtIso: string) => Math.floor(Date.parse(completedAtIso) / 1000) + REPLAY_JOB_KEEP_DAYS * 86_400;
