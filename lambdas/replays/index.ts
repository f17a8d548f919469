import { startJobWorker } from '../adapters/job-trigger';
import { invalid } from '../domain/errors';
import { refused, type NotFound, type Refused } from '../domain/outcomes';
import { newId } from '../shared/secrets';
import { findDestination } from '../destinations/record';
import { findSource } from '../sources/record';
import { findReplayJob, insertReplayJob, listReplayJobs, type ReplayFilters, type ReplayJobRecord } from './record';
import { countReplayMatches } from './worker';

/**
 * Replays: one settled event at once (./replay-event.ts), or every event a bulk replay's filters
 * match, in the background (./worker.ts). A bulk replay is counted (a dry run) or queued here, and
 * shown and listed while its job is kept.
 */

export { replayEvent } from './replay-event';

/** A bulk replay's filters as asked for: `status` defaults to dead letters. */
export type ReplayRequest = Omit<ReplayFilters, 'status'> & { status?: ReplayFilters['status'] };

/** Filters that name what the account has, in the direction they apply to; refused before a job exists. */
async function checkedFilters(accountId: string, request: ReplayRequest): Promise<ReplayFilters | Refused> {
  const { status, ...filters } = request;
  if (filters.date_from && filters.date_to && filters.date_from > filters.date_to) return refused(invalid('date_from must not be after date_to'));
  if (filters.source_id !== undefined) {
    if (filters.direction !== 'inbound') return refused(invalid('source_id applies to inbound events only'));
    if (!(await findSource(accountId, filters.source_id))) return refused(invalid('source_id does not match a source of this account'));
  }
  if (filters.destination_id !== undefined && !(await findDestination(accountId, filters.destination_id))) {
    return refused(invalid('destination_id does not match a destination of this account'));
  }
  return { ...filters, status: status ?? ['dead_letter'] };
}

const isRefused = (checked: ReplayFilters | Refused): checked is Refused => 'kind' in checked;

/** A dry run: how many events the replay would send now, replaying nothing. */
export async function countReplay(accountId: string, request: ReplayRequest, now: Date): Promise<{ kind: 'counted'; matched: number; truncated: boolean } | Refused> {
  const filters = await checkedFilters(accountId, request);
  if (isRefused(filters)) return filters;
  return { kind: 'counted', ...(await countReplayMatches(accountId, filters, now)) };
}

/** Queues the job and starts the worker at once (its schedule takes the job if that start fails). */
export async function startReplay(accountId: string, request: ReplayRequest, now: Date): Promise<{ kind: 'created'; job: ReplayJobRecord } | Refused> {
  const filters = await checkedFilters(accountId, request);
  if (isRefused(filters)) return filters;
  const job: ReplayJobRecord = {
    id: newId(),
    account_id: accountId,
    status: 'queued',
    filters,
    matched: 0,
    replayed: 0,
    truncated: false,
    cursor: null,
    created_at: now.toISOString(),
    completed_at: null,
    error_message: null,
    lease_token: null,
    lease_until: null,
  };
  await insertReplayJob(job);
  await startJobWorker('replay', job);
  return { kind: 'created', job };
}

export { listReplayJobs as listReplays };

export async function showReplay(accountId: string, jobId: string, now: Date): Promise<{ kind: 'found'; job: ReplayJobRecord } | NotFound> {
  const job = await findReplayJob(accountId, jobId, now);
  return job ? { kind: 'found', job } : { kind: 'not_found' };
}
