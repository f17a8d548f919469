import * as z from 'zod/mini';
import { replayJobExpiresAt } from '../domain/bulk-replay';
import { isExpired } from '../domain/retention';
import { defineEntity } from '../store/entity';
import { eventPartition } from '../events/record';
import { accountPartition } from '../store/keys';
import { INDEX, queryAll, updateItem } from '../store/table';
import { DIRECTIONS, EVENT_STATUSES, REPLAY_JOB_STATUSES } from '../domain/vocabulary';

/**
 * Bulk replay jobs (issue 15), declared in one place: the item's key, its schema, and the attributes
 * derived from its state (the work-index entry while a worker may take it, the TTL once it is over).
 * A second item type lives here too: the claim a job writes into an original event's partition before
 * it creates the copy, which is what makes a resumed job find the copy instead of making another.
 */
const JOB_PREFIX = 'REPLAY#';
const jobKey = (accountId: string, jobId: string) => ({ pk: accountPartition(accountId), sk: `${JOB_PREFIX}${jobId}` });
const claimKey = (accountId: string, eventId: string, jobId: string) => ({ pk: eventPartition(accountId, eventId), sk: `REPLAYCOPY#${jobId}` });
/** Work-index partitions: jobs waiting for a worker (by creation), and jobs held under a lease (by its end). */
const WORK = { queued: 'REPLAYS#queued', running: 'REPLAYS#running' } as const;
const workSortKey = (at: string, job: { account_id: string; id: string }) => `${at}#${job.account_id}#${job.id}`;

const replayFilters = z.object({
  direction: z.enum(DIRECTIONS),
  status: z.array(z.enum(EVENT_STATUSES)),
  destination_id: z.optional(z.string()),
  source_id: z.optional(z.string()),
  event_type: z.optional(z.string()),
  date_from: z.optional(z.string()),
  date_to: z.optional(z.string()),
});
export type ReplayFilters = z.infer<typeof replayFilters>;

const replayJobRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  status: z.enum(REPLAY_JOB_STATUSES),
  filters: replayFilters,
  matched: z.int(),
  replayed: z.int(),
  /** More events matched than one job replays (REPLAY_JOB_LIMIT). */
  truncated: z.boolean(),
  /** The last event id the job has walked past, in id order: where a resumed run continues. */
  cursor: z.nullable(z.string()),
  created_at: z.string(),
  completed_at: z.nullable(z.string()),
  error_message: z.nullable(z.string()),
  lease_token: z.nullable(z.string()),
  lease_until: z.nullable(z.string()),
});
export type ReplayJobRecord = z.infer<typeof replayJobRecord>;

/** What the job's state implies for the indexes and TTL: one place, so every write agrees. */
function derived(job: ReplayJobRecord): Record<string, unknown> {
  if (job.status === 'queued') return { gsi2pk: WORK.queued, gsi2sk: workSortKey(job.created_at, job) };
  if (job.status === 'running') return { gsi2pk: WORK.running, gsi2sk: workSortKey(job.lease_until ?? job.created_at, job) };
  return { expires_at: replayJobExpiresAt(job.completed_at ?? job.created_at) };
}

const DERIVED_FIELDS = ['gsi2pk', 'gsi2sk', 'expires_at'];

/** A job past its TTL is gone for readers at once, though DynamoDB deletes it later. */
const live = (job: (ReplayJobRecord & { expires_at?: unknown }) | undefined, now: Date) => (job && !isExpired(job.expires_at, now) ? job : undefined);

/** Read with its TTL, so a job past it is hidden at once. */
const replayJobEntity = defineEntity({
  name: 'replay_job',
  schema: z.extend(replayJobRecord, { expires_at: z.optional(z.number()) }),
  key: jobKey,
  keyOf: (job: ReplayJobRecord) => jobKey(job.account_id, job.id),
  derived,
  collection: { partition: accountPartition, prefix: JOB_PREFIX },
});

export async function insertReplayJob(job: ReplayJobRecord): Promise<void> {
  if (!(await replayJobEntity.create(job))) throw new Error(`replay job id collision: ${job.id}`);
}

export const findReplayJob = async (accountId: string, jobId: string, now = new Date()) => live(await replayJobEntity.find(accountId, jobId), now);

/** Newest first; offset paging reads offset + limit items of the account's jobs. */
export async function listReplayJobs(accountId: string, limit: number, offset: number, now = new Date()): Promise<ReplayJobRecord[]> {
  const jobs = await replayJobEntity.list(accountId, offset + limit);
  return jobs.filter((job) => live(job, now)).slice(offset, offset + limit);
}

/**
 * Takes a job under a new lease: a queued job, or a running one whose lease has run out (its worker
 * died). Conditional, so two workers never hold one job.
 */
export async function claimReplayJob(
  accountId: string,
  jobId: string,
  now: Date,
  lease: { token: string; until: string },
): Promise<ReplayJobRecord | undefined> {
  const nowIso = now.toISOString();
  const claimed = await updateItem(
    jobKey(accountId, jobId),
    {
      set: {
        status: 'running',
        lease_token: lease.token,
        lease_until: lease.until,
        gsi2pk: WORK.running,
        gsi2sk: workSortKey(lease.until, { account_id: accountId, id: jobId }),
      },
    },
    {
      condition: {
        expression: '#status = :queued OR (#status = :running AND lease_until < :now)',
        values: { ':queued': 'queued', ':running': 'running', ':now': nowIso },
      },
      returnValues: 'ALL_NEW',
    },
  );
  return claimed === false ? undefined : replayJobRecord.parse(claimed);
}

/**
 * Writes a job's new state, only while this worker still holds its lease (the same token): returns
 * false when another worker took the job over, and this one must stop.
 */
export async function saveReplayJob(job: ReplayJobRecord, heldToken: string): Promise<boolean> {
  // Parsed, so a job read with its TTL attribute does not both set and remove it.
  const { id, account_id, ...fields } = replayJobRecord.parse(job);
  const state = { ...fields, ...derived(job) };
  const removals = DERIVED_FIELDS.filter((field) => !(field in state));
  const saved = await replayJobEntity.update([account_id, id], state, removals, { lease_token: heldToken });
  return saved !== undefined;
}

/** Jobs a worker may take: queued ones, and running ones whose lease ran out before `now`. */
export async function findClaimableReplayJobs(now: Date, limit: number): Promise<Array<{ accountId: string; jobId: string }>> {
  const found: Array<{ accountId: string; jobId: string }> = [];
  for (const [pk, below] of [
    [WORK.queued, '\uffff'],
    [WORK.running, now.toISOString()],
  ] as const) {
    const items = await queryAll(
      {
        IndexName: INDEX.work,
        KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk < :below',
        ExpressionAttributeValues: { ':pk': pk, ':below': below },
      },
      limit - found.length,
    );
    for (const item of items) {
      const [, accountId, jobId] = String(item.gsi2sk).split('#');
      if (accountId && jobId) found.push({ accountId, jobId });
    }
    if (found.length >= limit) break;
  }
  return found;
}

/** Expires with the original event, whose retention the caller passes. */
const replayClaimEntity = defineEntity({
  name: 'replay_claim',
  schema: z.object({ copy_id: z.string(), expires_at: z.optional(z.number()) }),
  key: claimKey,
});

/**
 * Records, before the copy exists, which id this job's copy of an event has: the first call wins
 * (`fresh`), a resumed run gets the same id back and checks whether the copy was made. The claim
 * lives in the original's partition and expires with it.
 */
export async function claimReplayCopy(
  accountId: string,
  eventId: string,
  jobId: string,
  copyId: string,
  expiresAt: number,
): Promise<{ copyId: string; fresh: boolean }> {
  if (await replayClaimEntity.create({ copy_id: copyId, expires_at: expiresAt }, claimKey(accountId, eventId, jobId))) return { copyId, fresh: true };
  const held = await replayClaimEntity.find(accountId, eventId, jobId);
  if (!held) throw new Error(`replay claim of ${eventId} vanished`);
  return { copyId: held.copy_id, fresh: false };
}
