import { leaseUntil, REPLAY_JOB_LIMIT, selectForReplay, type ReplaySelection } from '../domain/bulk-replay';
import { sideItemExpiresAt } from '../domain/retention';
import { firstIdAt, lastIdAt } from '../domain/time-bounds';
import { config } from '../shared/config';
import { log } from '../shared/log';
import { newId } from '../shared/secrets';
import { findDestination } from '../destinations/record';
import { listEventRecordPages, type ListRange } from '../events/lists';
import { findEvent, findEventWithBody } from '../events/record';
import type { EventRecord } from '../events/record';
import {
  claimReplayCopy,
  claimReplayJob,
  findClaimableReplayJobs,
  saveReplayJob,
  type ReplayFilters,
  type ReplayJobRecord,
} from './record';
import { copyEvent, markReplayed } from './replay-event';

const REPLAY_FAILED_MESSAGE = 'replay failed: create a new replay with the same filters to continue (events already replayed no longer match)';
const REPLAY_DESTINATION_GONE = 'the destination was deleted before the replay ran';
/** Left for the last page and the final write before the function's timeout. */
const SAFETY_MARGIN_MS = 60_000;
const PAGE_SIZE = 100;

const selectionOf = (filters: ReplayFilters): ReplaySelection => ({ statuses: filters.status, destination_id: filters.destination_id });

/**
 * The events a replay walks: oldest first (a recovery re-sends in the original order), within the
 * dates, and never past `until` (the job's creation): the job's own copies come after it, so a copy
 * that fails again is not replayed by the same job, which would never end.
 */
function walkRange(filters: ReplayFilters, until: Date, after: string | null): ListRange {
  const to = Math.min(filters.date_to ? Date.parse(filters.date_to) : Infinity, until.getTime());
  return {
    newestFirst: false,
    after,
    from: filters.date_from ? firstIdAt(Date.parse(filters.date_from)) : undefined,
    to: lastIdAt(to),
    event_type: filters.event_type,
    source_id: filters.source_id,
  };
}

const pages = (accountId: string, filters: ReplayFilters, until: Date, after: string | null) =>
  listEventRecordPages(accountId, filters.direction, walkRange(filters, until, after), PAGE_SIZE);

/** A dry run answers within the API's time, however many events the account has. */
const DRY_RUN_BUDGET_MS = 20_000;

/**
 * A dry run: how many events a replay with these filters would send now, counted up to the job limit;
 * `truncated` when more match, or when counting them all would outlast the API call.
 */
export async function countReplayMatches(accountId: string, filters: ReplayFilters, now: Date): Promise<{ matched: number; truncated: boolean }> {
  const deadline = Date.now() + DRY_RUN_BUDGET_MS;
  let matched = 0;
  for await (const page of pages(accountId, filters, now, null)) {
    for (const event of page.events) {
      if (selectForReplay(event, selectionOf(filters), '') !== 'replay') continue;
      if (matched === REPLAY_JOB_LIMIT) return { matched, truncated: true };
      matched++;
    }
    if (Date.now() > deadline) return { matched, truncated: true };
  }
  return { matched, truncated: false };
}

export interface ReplayWorkerOptions {
  now: () => Date;
  /** One named job (started right after its creation); otherwise whatever is waiting. */
  job?: { accountId: string; jobId: string };
  maxJobs?: number;
  /** The invocation's time left (Lambda's context): a run stops taking pages well before its timeout. */
  remainingMs: () => number;
}

/** How a run of a job ended: done or failed (final), paused for time (the next run resumes), or taken over. */
export type RunResult = 'finished' | 'paused' | 'lost';

/** Takes and runs replay jobs; the export function's schedule is this worker's backstop. */
export async function runReplayWorker(options: ReplayWorkerOptions): Promise<{ processed: Array<{ id: string; result: RunResult }> }> {
  const candidates = options.job ? [options.job] : await findClaimableReplayJobs(options.now(), options.maxJobs ?? 10);
  const processed: Array<{ id: string; result: RunResult }> = [];
  for (const candidate of candidates) {
    if (options.remainingMs() < SAFETY_MARGIN_MS) break;
    const token = newId();
    const now = options.now();
    const job = await claimReplayJob(candidate.accountId, candidate.jobId, now, { token, until: leaseUntil(now, config().replayLeaseSeconds) });
    if (!job) continue; // another worker holds it, or it is over
    const result = await runJob(job, token, options);
    log.info('replay job run', { account_id: job.account_id, job_id: job.id, result });
    processed.push({ id: job.id, result });
  }
  return { processed };
}

/** prepare (the destination still exists) → walk pages, replaying and checkpointing → complete. */
async function runJob(claimed: ReplayJobRecord, token: string, options: ReplayWorkerOptions): Promise<RunResult> {
  let job = claimed;
  const save = async (next: ReplayJobRecord) => {
    job = next;
    return saveReplayJob(next, token);
  };
  type Outcome = Pick<ReplayJobRecord, 'status' | 'error_message'> & Partial<Pick<ReplayJobRecord, 'matched' | 'replayed' | 'truncated'>>;
  const finish = (outcome: Outcome) =>
    save({ ...job, ...outcome, completed_at: options.now().toISOString(), lease_token: null, lease_until: null });

  try {
    const destinationId = job.filters.destination_id;
    if (destinationId !== undefined && !(await findDestination(job.account_id, destinationId))) {
      return (await finish({ status: 'failed', error_message: REPLAY_DESTINATION_GONE })) ? 'finished' : 'lost';
    }
    for await (const page of pages(job.account_id, job.filters, new Date(job.created_at), job.cursor)) {
      const walked = await replayPage(job, page.events, options.now);
      const progress = { matched: job.matched + walked.matched, replayed: job.replayed + walked.replayed, truncated: walked.truncated };
      if (walked.truncated) return (await finish({ status: 'done', error_message: null, ...progress })) ? 'finished' : 'lost';
      const now = options.now();
      const renewed = { ...job, ...progress, cursor: page.lastScanned, lease_until: leaseUntil(now, config().replayLeaseSeconds) };
      if (!(await save(renewed))) return 'lost';
      if (options.remainingMs() < SAFETY_MARGIN_MS) {
        // Let the lease run out now: the schedule's next run takes the job over from this checkpoint.
        return (await save({ ...job, lease_until: now.toISOString() })) ? 'paused' : 'lost';
      }
    }
    return (await finish({ status: 'done', error_message: null })) ? 'finished' : 'lost';
  } catch (error) {
    // The cause stays in the log: AWS's text names tables and ARNs the tenant must not see.
    log.error('replay job failed', { account_id: job.account_id, job_id: job.id }, error);
    return (await finish({ status: 'failed', error_message: REPLAY_FAILED_MESSAGE })) ? 'finished' : 'lost';
  }
}

/** One page's events, in order: what this job replays, counts, and whether the job limit was reached. */
async function replayPage(
  job: ReplayJobRecord,
  events: EventRecord[],
  now: () => Date,
): Promise<{ matched: number; replayed: number; truncated: boolean }> {
  let matched = 0;
  let replayed = 0;
  for (const listed of events) {
    const decision = selectForReplay(listed, selectionOf(job.filters), job.id);
    if (decision === 'skip') continue;
    if (decision === 'replay') {
      if (job.replayed + replayed >= REPLAY_JOB_LIMIT) return { matched, replayed, truncated: true };
      // The job's first copy goes as a manual action (the probe of an open breaker); the rest follow its release.
      if (!(await replayOnce(job, listed.id, now(), job.replayed + replayed === 0))) continue;
    }
    matched++;
    replayed++;
  }
  return { matched, replayed, truncated: false };
}

/**
 * Replays one event exactly once for this job, whatever crash came before: the copy's id is claimed
 * first, the copy made only if it does not exist yet, and the original marked last. False when the
 * event no longer matches (replayed meanwhile, or past its window).
 */
async function replayOnce(job: ReplayJobRecord, eventId: string, now: Date, manual: boolean): Promise<boolean> {
  const loaded = await findEventWithBody(job.account_id, eventId);
  // A tombstone has nothing left to send: an erasure took the payload.
  if (!loaded || loaded.event.payload_erased || selectForReplay(loaded.event, selectionOf(job.filters), job.id) !== 'replay') return false;
  const { event } = loaded;
  const expiresAt = sideItemExpiresAt(event.received_at, event.retention_days);
  const claim = await claimReplayCopy(job.account_id, event.id, job.id, newId(), expiresAt);
  if (claim.fresh || !(await findEvent(job.account_id, claim.copyId))) {
    await copyEvent(job.account_id, loaded, job.filters.destination_id, now, { copyId: claim.copyId, manual });
  }
  await markReplayed(job.account_id, event.id, claim.copyId, job.id);
  return true;
}
