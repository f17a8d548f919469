import * as z from 'zod/mini';
import { BUCKETS } from '../shared/resource-definitions';
import { exportExpiresAt } from '../domain/retention';
import { DIRECTIONS, EVENT_STATUSES, EXPORT_FORMATS, EXPORT_STATUSES } from '../domain/vocabulary';
import { defineEntity } from '../store/entity';
import { accountPartition } from '../store/keys';
import { INDEX, queryPage, updateItem } from '../store/table';

const timestamp = z.string();

/** Which events a job writes; an absent filter restricts nothing. */
const exportFilters = z.object({
  direction: z.optional(z.enum(DIRECTIONS)),
  status: z.optional(z.enum(EVENT_STATUSES)),
  date_from: z.optional(timestamp),
  date_to: z.optional(timestamp),
});
export type ExportFilters = z.infer<typeof exportFilters>;

/** An export job: queued, then held by a worker, then ready (its file written) or failed. */
const exportJobRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  status: z.enum(EXPORT_STATUSES),
  format: z.enum(EXPORT_FORMATS),
  filters: exportFilters,
  row_count: z.nullable(z.int()),
  created_at: timestamp,
  started_at: z.nullable(timestamp),
  completed_at: z.nullable(timestamp),
  error_message: z.nullable(z.string()),
  object_key: z.nullable(z.string()),
});
export type ExportJobRecord = z.infer<typeof exportJobRecord>;

/** Work index partitions: jobs waiting for a worker, and jobs a worker holds (to recover a dead one). */
const WORK = { queued: 'EXPORTS#queued', processing: 'EXPORTS#processing' } as const;
const workKey = (at: string, job: { account_id: string; id: string }) => `${at}#${job.account_id}#${job.id}`;

const jobKey = (accountId: string, jobId: string) => ({ pk: accountPartition(accountId), sk: `EXPORT#${jobId}` });
/**
 * Export jobs, outside the routing range. Only a new job is put whole (claims and outcomes are field
 * updates below), so its derived attributes are those of a queued job: in the work index, where any
 * worker can find it.
 */
const exportJobEntity = defineEntity({
  name: 'export_job',
  schema: exportJobRecord,
  key: jobKey,
  keyOf: (job: ExportJobRecord) => jobKey(job.account_id, job.id),
  derived: (job) => ({ gsi2pk: WORK.queued, gsi2sk: workKey(job.created_at, job) }),
  collection: { partition: accountPartition, prefix: 'EXPORT#' },
});

export async function insertExportJob(job: ExportJobRecord): Promise<void> {
  if (!(await exportJobEntity.create(job))) throw new Error(`export job id collision: ${job.id}`);
}

export const findExportJob = (accountId: string, jobId: string) => exportJobEntity.find(accountId, jobId);

/** Newest first; offset paging reads offset + limit items of the account's (few) jobs. */
export async function listExportJobs(accountId: string, limit: number, offset: number): Promise<ExportJobRecord[]> {
  const jobs = await exportJobEntity.list(accountId, offset + limit);
  return jobs.slice(offset, offset + limit);
}

/**
 * Takes a job for this worker: only a `queued` job, or a `processing` one whose worker started it
 * before `staleBefore` (it died). Conditional, so two workers never both take a job.
 */
export async function claimExportJob(
  accountId: string,
  jobId: string,
  now: Date,
  staleBefore: Date,
): Promise<ExportJobRecord | undefined> {
  const startedAt = now.toISOString();
  const claimed = await updateItem(
    jobKey(accountId, jobId),
    {
      set: {
        status: 'processing',
        started_at: startedAt,
        gsi2pk: WORK.processing,
        gsi2sk: workKey(startedAt, { account_id: accountId, id: jobId }),
      },
    },
    {
      condition: {
        expression: '#status = :queued OR (#status = :processing AND started_at < :stale)',
        values: { ':queued': 'queued', ':processing': 'processing', ':stale': staleBefore.toISOString() },
      },
      returnValues: 'ALL_NEW',
    },
  );
  return claimed === false ? undefined : exportJobEntity.schema.parse(claimed);
}

/** Ends a job this worker holds (the same `started_at`), and takes it out of the work index. */
export async function finishExportJob(
  job: ExportJobRecord,
  outcome: { status: 'ready'; row_count: number; object_key: string } | { status: 'failed'; error_message: string },
  now: Date,
): Promise<boolean> {
  const finished = await updateItem(
    jobKey(job.account_id, job.id),
    {
      set: {
        ...outcome,
        completed_at: now.toISOString(),
        // The job goes with its file: a download after that is a 410, and TTL deletes the job for free.
        expires_at: exportExpiresAt(now.toISOString(), BUCKETS.exports.fileExpiryDays),
      },
      remove: ['gsi2pk', 'gsi2sk'],
    },
    { condition: { expression: 'started_at = :mine', values: { ':mine': job.started_at } } },
  );
  return finished !== false; // false: another worker took the job over meanwhile
}

/** Jobs a worker may take: every queued one, and processing ones started before `staleBefore`. */
export async function findClaimableJobs(staleBefore: Date, limit: number): Promise<Array<{ accountId: string; jobId: string }>> {
  const found: Array<{ accountId: string; jobId: string }> = [];
  const ranges = [
    { pk: WORK.queued, below: '\uffff' },
    { pk: WORK.processing, below: staleBefore.toISOString() },
  ];
  for (const range of ranges) {
    const { items } = await queryPage(
      { IndexName: INDEX.work, KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk < :below', ExpressionAttributeValues: { ':pk': range.pk, ':below': range.below } },
      { limit },
    );
    for (const item of items) {
      const [, accountId, jobId] = String(item.gsi2sk).split('#');
      if (accountId && jobId && found.length < limit) found.push({ accountId, jobId });
    }
  }
  return found;
}
