import * as z from 'zod/mini';
import { ERASURE_PHASES } from '../domain/erasure';
import { ERASURE_STATUSES } from '../domain/vocabulary';
import { defineEntity } from '../store/entity';
import { accountPartition } from '../store/keys';
import { INDEX, queryAll, updateItem } from '../store/table';

/**
 * Erasure jobs, declared in one place. A job is `running` from its creation, its lease lapsed at once
 * so any worker may take it; a worker holds it under a lease it renews at each checkpoint, and the
 * schedule takes over a job whose worker died. The job names its subject by its HMAC only.
 */
const JOB_PREFIX = 'ERASURE#';
const jobKey = (accountId: string, jobId: string) => ({ pk: accountPartition(accountId), sk: `${JOB_PREFIX}${jobId}` });
/** Work-index partition: running jobs by the end of their lease. */
const WORK_PK = 'ERASURES#running';
const workSortKey = (at: string, job: { account_id: string; id: string }) => `${at}#${job.account_id}#${job.id}`;

const counts = z.object({ events: z.int(), payload_objects: z.int(), request_bodies: z.int(), response_bodies: z.int() });

const erasureJobRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  subject_hash: z.string(),
  status: z.enum(ERASURE_STATUSES),
  phase: z.enum(ERASURE_PHASES),
  counts,
  /**
   * The page of events being erased, with what it held, saved before any of it is erased: a run that
   * stops part-way erases the same page again and adds these counts, so nothing is counted twice or lost.
   */
  pending: z.nullable(z.object({ event_ids: z.array(z.string()), counts })),
  /** The last event id of the pages done (the index is read in id order); null: none yet. Absent on jobs stored before it. */
  after: z._default(z.nullable(z.string()), null),
  exports_before: z.array(z.string()),
  created_at: z.string(),
  finished_at: z.nullable(z.string()),
  lease_token: z.nullable(z.string()),
  /** While running: when the holder's lease ends (at creation: the creation, so a worker takes it at once). */
  lease_until: z.nullable(z.string()),
});
export type ErasureJobRecord = z.infer<typeof erasureJobRecord>;

const derived = (job: ErasureJobRecord): Record<string, unknown> =>
  job.status === 'running' ? { gsi2pk: WORK_PK, gsi2sk: workSortKey(job.lease_until ?? job.created_at, job) } : {};

const erasureJobEntity = defineEntity({
  name: 'erasure_job',
  schema: erasureJobRecord,
  key: jobKey,
  keyOf: (job: ErasureJobRecord) => jobKey(job.account_id, job.id),
  derived,
  collection: { partition: accountPartition, prefix: JOB_PREFIX },
});

export async function insertErasureJob(job: ErasureJobRecord): Promise<void> {
  if (!(await erasureJobEntity.create(job))) throw new Error(`erasure job id collision: ${job.id}`);
}

export const findErasureJob = (accountId: string, jobId: string) => erasureJobEntity.find(accountId, jobId);

/** Takes a running job whose lease has ended (or never began) under a new lease; conditional, so two workers never hold one job. */
export async function claimErasureJob(accountId: string, jobId: string, now: Date, lease: { token: string; until: string }): Promise<ErasureJobRecord | undefined> {
  const claimed = await updateItem(
    jobKey(accountId, jobId),
    { set: { lease_token: lease.token, lease_until: lease.until, gsi2sk: workSortKey(lease.until, { account_id: accountId, id: jobId }) } },
    { condition: { expression: '#status = :running AND lease_until <= :now', values: { ':running': 'running', ':now': now.toISOString() } }, returnValues: 'ALL_NEW' },
  );
  return claimed === false ? undefined : erasureJobRecord.parse(claimed);
}

/** Writes a job's new state while this worker still holds its lease; false when another took it over. */
export async function saveErasureJob(job: ErasureJobRecord, heldToken: string): Promise<boolean> {
  const { id, account_id, ...fields } = erasureJobRecord.parse(job);
  const state = { ...fields, ...derived(job) };
  const removals = job.status === 'running' ? [] : ['gsi2pk', 'gsi2sk'];
  return (await erasureJobEntity.update([account_id, id], state, removals, { lease_token: heldToken })) !== undefined;
}

/** Running jobs whose lease ended before `now`: a worker may take them. */
export async function findClaimableErasureJobs(now: Date, limit: number): Promise<Array<{ accountId: string; jobId: string }>> {
  const items = await queryAll(
    {
      IndexName: INDEX.work,
      KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk <= :below',
      ExpressionAttributeValues: { ':pk': WORK_PK, ':below': `${now.toISOString()}#\uffff` },
    },
    limit,
  );
  return items.flatMap((item) => {
    const [, accountId, jobId] = String(item.gsi2sk).split('#');
    return accountId && jobId ? [{ accountId, jobId }] : [];
  });
}
