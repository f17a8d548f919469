import * as z from 'zod';
import { REPLAY_JOB_LIMIT } from '../../domain/bulk-replay';
import { invalid, notFound } from '../../domain/errors';
import { startJobWorker } from '../../adapters/job-trigger';
import { countReplayMatches } from '../../pipeline/replay-job';
import { newId } from '../../shared/secrets';
import { findDestination } from '../../destinations/record';
import { findReplayJob, insertReplayJob, listReplayJobs, type ReplayFilters, type ReplayJobRecord } from '../../store/replay-jobs';
import { findSource } from '../../sources/record';
import { exampleDoneReplayJob, exampleReplayJob, ids } from '../examples';
import { json, jsonBody, list } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { named, replayableStatus, replayDryRunResponse, replayJobResponse, type ReplayJobResponse } from '../schemas';
import { JOB_LIST_ERRORS, jobListQuery, parseJsonBody, parsePathId, parseWith, textField, timestampField, uuidField } from '../validation';
import { DIRECTIONS } from '../../domain/vocabulary';

const createReplayBody = named(
  'CreateReplayRequest',
  z.strictObject({
    direction: z.enum(DIRECTIONS),
    status: z
      .array(replayableStatus)
      .min(1)
      .max(replayableStatus.options.length)
      .refine((list) => new Set(list).size === list.length, { error: () => 'status must not repeat a value' })
      .optional()
      .describe('Event statuses to replay (terminal ones, and `accepted`). Default `["dead_letter"]`.'),
    destination_id: uuidField('destination_id')
      .optional()
      .describe(
        'Replay to this destination only. Only events routed to it match, and a `dead_letter` event only when its delivery to this destination is the one that failed.',
      ),
    source_id: uuidField('source_id').optional().describe('Inbound only: events from this source.'),
    event_type: textField('event_type').optional(),
    date_from: timestampField('date_from').optional().describe('ISO 8601; inclusive bound on `received_at`.'),
    date_to: timestampField('date_to').optional().describe('ISO 8601; inclusive bound on `received_at`.'),
    dry_run: z.boolean().optional().describe('`true`: answer 200 with how many events match, and replay nothing.'),
  }),
);

const presentReplayJob = (job: ReplayJobRecord): ReplayJobResponse => ({
  id: job.id,
  status: job.status,
  filters: job.filters,
  matched: job.matched,
  replayed: job.replayed,
  truncated: job.truncated,
  created_at: job.created_at,
  completed_at: job.completed_at,
  error_message: job.error_message,
});

/** Filters that name what the account has, in the direction they apply to; refused before a job exists. */
async function checkedFilters(accountId: string, body: z.output<typeof createReplayBody>): Promise<ReplayFilters> {
  const { dry_run: _dryRun, status, ...filters } = body;
  if (filters.date_from && filters.date_to && filters.date_from > filters.date_to) throw invalid('date_from must not be after date_to');
  if (filters.source_id !== undefined) {
    if (filters.direction !== 'inbound') throw invalid('source_id applies to inbound events only');
    if (!(await findSource(accountId, filters.source_id))) throw invalid('source_id does not match a source of this account');
  }
  if (filters.destination_id !== undefined && !(await findDestination(accountId, filters.destination_id))) {
    throw invalid('destination_id does not match a destination of this account');
  }
  return { ...filters, status: status ?? ['dead_letter'] };
}

export const replayRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/replays',
    auth: 'api_key',
    doc: {
      operationId: 'createReplay',
      summary: 'Replay many events at once',
      description: `Replays every event that matches, oldest first, each as \`POST /v1/events/{id}/replay\` would (a new event, the original \`replayed\`), in the background: the job moves to \`running\`, then \`done\` or \`failed\`. Only events received before the job was created are considered, and no job replays one event twice, even across a crash. At most ${REPLAY_JOB_LIMIT.toLocaleString('en-US')} events per job (\`truncated\`); with \`dry_run: true\` the answer is how many would be replayed.`,
      tag: 'Replays',
      body: jsonBody(createReplayBody, { direction: 'inbound', destination_id: ids.destination, date_from: '2026-05-01T00:00:00Z' }),
      responses: {
        200: json('A dry run: how many events match now.', replayDryRunResponse, { matched: 1312, truncated: false }),
        202: json('The job, queued.', replayJobResponse, exampleReplayJob),
      },
      errors: {
        400: [
          'direction must be one of: inbound, outbound',
          `status.0 must be one of: ${replayableStatus.options.join(', ')}`,
          'status must not repeat a value',
          'invalid destination_id',
          'destination_id does not match a destination of this account',
          'source_id applies to inbound events only',
          'source_id does not match a source of this account',
          'date_from must be an ISO 8601 timestamp',
          'date_from must not be after date_to',
          'dry_run must be a boolean',
          'unknown field: colour',
        ],
      },
    },
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, createReplayBody);
      const filters = await checkedFilters(principal.accountId, body);
      if (body.dry_run) return { status: 200, data: await countReplayMatches(principal.accountId, filters, now) };
      const job: ReplayJobRecord = {
        id: newId(),
        account_id: principal.accountId,
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
      return { status: 202, data: presentReplayJob(job) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/replays',
    auth: 'api_key',
    doc: {
      operationId: 'listReplays',
      summary: 'List bulk replays',
      description: 'Finished jobs are kept 30 days.',
      tag: 'Replays',
      query: jobListQuery,
      responses: { 200: list('The account’s jobs, newest first.', replayJobResponse, [exampleDoneReplayJob]) },
      errors: { 400: JOB_LIST_ERRORS },
    },
    handle: async ({ request, principal, now }) => {
      const query = parseWith(jobListQuery, request.query);
      const jobs = await listReplayJobs(principal.accountId, query.limit ?? 25, query.offset ?? 0, now);
      return { status: 200, data: jobs.map(presentReplayJob) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/replays/:id',
    auth: 'api_key',
    doc: {
      operationId: 'getReplay',
      summary: 'Show a bulk replay',
      tag: 'Replays',
      responses: { 200: json('The job.', replayJobResponse, exampleDoneReplayJob) },
    },
    handle: async ({ params, principal, now }) => {
      const job = await findReplayJob(principal.accountId, parsePathId(params.id), now);
      if (!job) throw notFound();
      return { status: 200, data: presentReplayJob(job) };
    },
  }),
];
