import * as z from 'zod';
import { REPLAY_JOB_LIMIT } from '../domain/bulk-replay';
import { SETTLED_STATUSES } from '../domain/event-status';
import { DIRECTIONS, REPLAY_JOB_STATUSES, type EventStatus } from '../domain/vocabulary';
import { at, ids, later } from '../api-kit/examples';
import { named } from '../api-kit/schemas';
import { textField, timestampField, uuidField } from '../api-kit/validation';
import type { ReplayJobRecord } from './record';

/** A bulk replay's API shapes: the request, the job and the dry run's answers, the presenter, the examples. */

const uuid = z.uuid();
const timestamp = z.iso.datetime();
const direction = z.enum(DIRECTIONS);

export const replayableStatus = z.enum(SETTLED_STATUSES as readonly EventStatus[] as [EventStatus, ...EventStatus[]]);

export const createReplayBody = named(
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

/** What a bulk replay selects, as stored on its job and as its request takes it (less `dry_run`). */
const replayFilterFields = {
  direction,
  status: z.array(replayableStatus).describe('Event statuses to replay. Default `["dead_letter"]`.'),
  destination_id: uuid.optional(),
  source_id: uuid.optional(),
  event_type: z.string().optional(),
  date_from: timestamp.optional(),
  date_to: timestamp.optional(),
};

export const replayJobResponse = named(
  'ReplayJob',
  z.strictObject({
    id: uuid,
    status: z.enum(REPLAY_JOB_STATUSES).describe('`queued`, `running`, then `done` or `failed` (`error_message`).'),
    filters: z.strictObject(replayFilterFields),
    matched: z.int().min(0).describe('Events found to match so far; final once the job is `done`.'),
    replayed: z.int().min(0).describe('Events replayed so far (each once, whatever crash happened in between).'),
    truncated: z
      .boolean()
      .describe(`More than ${REPLAY_JOB_LIMIT.toLocaleString('en-US')} events matched and the job stopped there: the same request again replays the rest (replayed events no longer match).`),
    created_at: timestamp,
    completed_at: timestamp.nullable(),
    error_message: z.string().nullable(),
  }),
  'A bulk replay.',
);
export type ReplayJobResponse = z.output<typeof replayJobResponse>;

export const replayDryRunResponse = named(
  'ReplayDryRun',
  z.strictObject({
    matched: z.int().min(0).describe(`Events a replay with these filters would send now, counted up to ${REPLAY_JOB_LIMIT.toLocaleString('en-US')}.`),
    truncated: z.boolean().describe('More events match than one job replays, or counting them all would have outlasted the call (narrow the dates).'),
  }),
);

export const presentReplayJob = (job: ReplayJobRecord): ReplayJobResponse => ({
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

export const exampleReplayJob = {
  id: ids.replayJob,
  status: 'queued',
  filters: { direction: 'inbound', status: ['dead_letter'], destination_id: ids.destination, date_from: '2026-05-01T00:00:00.000Z' },
  matched: 0,
  replayed: 0,
  truncated: false,
  created_at: at,
  completed_at: null,
  error_message: null,
} satisfies ReplayJobResponse;

export const exampleDoneReplayJob = { ...exampleReplayJob, status: 'done', matched: 1312, replayed: 1312, completed_at: later } satisfies ReplayJobResponse;
