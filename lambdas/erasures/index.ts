import { startJobWorker } from '../adapters/job-trigger';
import { NO_ERASURES } from '../domain/erasure';
import type { NotFound } from '../domain/outcomes';
import { hashSubject } from '../events/subject-index';
import { newId } from '../shared/secrets';
import { findErasureJob, insertErasureJob, type ErasureJobRecord } from './record';

/**
 * Erasures per data subject: created here (the subject hashed at once, never stored in clear), run in
 * the background by ./worker.ts, shown while kept.
 */

/** Records the job, running with its lease lapsed, and starts the worker at once (its schedule takes the job if that start fails). */
export async function startErasure(accountId: string, subject: string, now: Date): Promise<ErasureJobRecord> {
  const created = now.toISOString();
  const job: ErasureJobRecord = {
    id: newId(),
    account_id: accountId,
    subject_hash: await hashSubject(accountId, subject),
    status: 'running',
    phase: 'events',
    counts: NO_ERASURES,
    pending: null,
    after: null,
    exports_before: [],
    created_at: created,
    finished_at: null,
    lease_token: null,
    lease_until: created,
  };
  await insertErasureJob(job);
  await startJobWorker('erasure', job);
  return job;
}

export async function showErasure(accountId: string, jobId: string): Promise<{ kind: 'found'; job: ErasureJobRecord } | NotFound> {
  const job = await findErasureJob(accountId, jobId);
  return job ? { kind: 'found', job } : { kind: 'not_found' };
}
