import { deletePayload } from '../adapters/payloads';
import { leaseUntil } from '../domain/bulk-replay';
import { addCounts, erasureCountsOf, exportsWrittenBefore, NO_ERASURES } from '../domain/erasure';
import { eraseEventParts, planEventErasure } from '../events/record';
import { subjectEventPage } from '../events/subject-index';
import { listExportJobs } from '../exports/record';
import { config } from '../shared/config';
import { log } from '../shared/log';
import { newId } from '../shared/secrets';
import { claimErasureJob, findClaimableErasureJobs, saveErasureJob, type ErasureJobRecord } from './record';

/** Left for the last page and the final write before the function's timeout. */
const SAFETY_MARGIN_MS = 60_000;
const PAGE_SIZE = 50;
/** Exports are kept a few days; an account has far fewer than this at once. */
const EXPORTS_READ = 1000;

export interface ErasureWorkerOptions {
  now: () => Date;
  /** One named job (started right after its creation); otherwise whatever is waiting. */
  job?: { accountId: string; jobId: string };
  maxJobs?: number;
  remainingMs: () => number;
}

/** How a run of a job ended: done, paused (for time, or by a failure the next run retries), or taken over. */
export type ErasureRunResult = 'finished' | 'paused' | 'lost';

/** Takes and runs erasure jobs; the job function's schedule is this worker's backstop. */
export async function runErasureWorker(options: ErasureWorkerOptions): Promise<{ processed: Array<{ id: string; result: ErasureRunResult }> }> {
  const candidates = options.job ? [options.job] : await findClaimableErasureJobs(options.now(), options.maxJobs ?? 10);
  const processed: Array<{ id: string; result: ErasureRunResult }> = [];
  for (const candidate of candidates) {
    if (options.remainingMs() < SAFETY_MARGIN_MS) break;
    const token = newId();
    const now = options.now();
    const job = await claimErasureJob(candidate.accountId, candidate.jobId, now, { token, until: leaseUntil(now, config().replayLeaseSeconds) });
    if (!job) continue; // another worker holds it, or it is done
    const result = await runJob(job, token, options);
    // The subject stays out of the log, even hashed: the job id is what an operator follows.
    log.info('erasure job run', { account_id: job.account_id, job_id: job.id, phase: job.phase, result });
    processed.push({ id: job.id, result });
  }
  return { processed };
}

async function runJob(claimed: ErasureJobRecord, token: string, options: ErasureWorkerOptions): Promise<ErasureRunResult> {
  let job = claimed;
  const save = async (next: ErasureJobRecord) => {
    job = next;
    return saveErasureJob(next, token);
  };
  const renewed = () => leaseUntil(options.now(), config().replayLeaseSeconds);
  try {
    while (job.phase === 'events') {
      if (!(await save(await erasePage(job, save)))) return 'lost';
      if (job.phase === 'events' && options.remainingMs() < SAFETY_MARGIN_MS) {
        // Let the lease run out now: the schedule's next run takes the job over at this page.
        return (await save({ ...job, lease_until: options.now().toISOString() })) ? 'paused' : 'lost';
      }
      job = { ...job, lease_until: renewed() };
    }
    const exports = await listExportJobs(job.account_id, EXPORTS_READ, 0);
    const finished: ErasureJobRecord = {
      ...job,
      exports_before: exportsWrittenBefore(exports, job.created_at),
      status: 'done',
      finished_at: options.now().toISOString(),
      lease_token: null,
      lease_until: null,
    };
    return (await save(finished)) ? 'finished' : 'lost';
  } catch (error) {
    // A job is never given up: a failure (a throttle, S3 unreachable) pauses it and the schedule retries it.
    log.error('erasure job paused by a failure', { account_id: job.account_id, job_id: job.id }, error);
    return (await save({ ...job, lease_until: options.now().toISOString() }).catch(() => false)) ? 'paused' : 'lost';
  }
}

/**
 * One page of the `events` phase: the page's events and what they hold are saved first (`pending`),
 * then each is erased, then the counts are added and the job moves past the page (`after`). A run
 * resumed after a crash finds `pending` and does the same page again, erasing what is left and
 * counting it once. The index entries stay until their events' retention: a tombstone is found
 * again by a later erasure of the subject, which removes whatever was stored after this one.
 */
async function erasePage(job: ErasureJobRecord, save: (next: ErasureJobRecord) => Promise<boolean>): Promise<ErasureJobRecord> {
  let pending = job.pending;
  if (!pending) {
    const eventIds = await subjectEventPage(job.account_id, job.subject_hash, job.after, PAGE_SIZE);
    if (eventIds.length === 0) return { ...job, phase: 'exports' };
    let counts = NO_ERASURES;
    for (const eventId of eventIds) counts = addCounts(counts, erasureCountsOf(await planEventErasure(job.account_id, eventId)));
    pending = { event_ids: eventIds, counts };
    if (!(await save({ ...job, pending }))) throw new Error('erasure job taken over');
  }
  for (const eventId of pending.event_ids) await eraseEventParts(job.account_id, eventId, deletePayload);
  return { ...job, pending: null, after: pending.event_ids.at(-1) ?? job.after, counts: addCounts(job.counts, pending.counts) };
}
