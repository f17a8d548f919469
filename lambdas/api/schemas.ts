import * as z from 'zod';
import { REPLAY_JOB_LIMIT } from '../domain/bulk-replay';
import { SETTLED_STATUSES } from '../domain/event-status';
import { isCustomerId } from '../domain/portal';
import { DIRECTIONS, EVENT_STATUSES, type EventStatus, EXPORT_FORMATS, EXPORT_STATUSES, REPLAY_JOB_STATUSES } from '../domain/vocabulary';

/**
 * The OpenAPI document is generated from the very zod schemas the handlers parse with and the
 * presenters are typed by. zod's metadata (`.meta()`, `.describe()`) carries what the document adds:
 * a component name (`id`), a description, JSON Schema keywords that a refinement cannot express.
 */
export const CUSTOMER_MESSAGE = 'customer must be 1 to 128 letters, digits or . _ : @ + - (starting with a letter or digit)';
/** The account's own id for one of its customers: a destination's owner, an outbound event's recipient. */
export const customerField = z.string().refine(isCustomerId, { error: () => CUSTOMER_MESSAGE }).meta({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.:@+-]{0,127}$' });

export interface SchemaDoc {
  description?: string;
  format?: string;
  pattern?: string;
}

/** A named component of the OpenAPI document (`#/components/schemas/<id>`): a documented copy of `schema`. */
export function named<T extends z.ZodType>(id: string, schema: T, description?: string): T {
  return schema.meta(description === undefined ? { id } : { id, description }) as T;
}

/** A copy of `schema` documented with JSON Schema keywords (for refinements zod cannot express). */
export function documented<T extends z.ZodType>(schema: T, doc: SchemaDoc): T {
  return schema.meta({ ...doc }) as T;
}

// ---------------------------------------------------------------------------------------------
// Response shapes. The presenters are typed by these (`z.output<typeof ...>`), so what the code
// returns and what the document says cannot drift apart; a test checks real responses against the
// generated document as well.
// ---------------------------------------------------------------------------------------------

export const durationMs = named('DurationMs', z.int().min(0), 'The server’s processing time in milliseconds.');

export const errorResponse = named(
  'Error',
  z.strictObject({ error: z.string().describe('The exact message; validation messages name the field.'), duration_ms: durationMs }),
  'Every error answer.',
);

const uuid = z.uuid();
const timestamp = z.iso.datetime();
const nullableTimestamp = timestamp.nullable();
const direction = z.enum(DIRECTIONS);
export const eventStatus = named('EventStatus', z.enum(EVENT_STATUSES), 'Event status; terminal: delivered, dead_letter, replayed.');

export const replayResponse = named(
  'ReplayResult',
  z.strictObject({
    original_event_id: uuid,
    replay_event_id: uuid,
    status: z.literal('queued').describe('Always `queued`; a replay no route matches then ends `accepted` (its detail shows it).'),
  }),
);

export const exportJobResponse = named(
  'ExportJob',
  z.strictObject({
    id: uuid,
    account_id: uuid,
    status: z.enum(EXPORT_STATUSES),
    format: z.enum(EXPORT_FORMATS),
    filters: z.strictObject({
      direction: direction.optional(),
      status: eventStatus.optional(),
      date_from: timestamp.optional(),
      date_to: timestamp.optional(),
    }),
    row_count: z.int().min(0).nullable(),
    created_at: timestamp,
    started_at: nullableTimestamp,
    completed_at: nullableTimestamp,
    error_message: z.string().nullable(),
  }),
);

export const replayableStatus = z.enum(SETTLED_STATUSES as readonly EventStatus[] as [EventStatus, ...EventStatus[]]);

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
    completed_at: nullableTimestamp,
    error_message: z.string().nullable(),
  }),
  'A bulk replay.',
);

export const replayDryRunResponse = named(
  'ReplayDryRun',
  z.strictObject({
    matched: z.int().min(0).describe(`Events a replay with these filters would send now, counted up to ${REPLAY_JOB_LIMIT.toLocaleString('en-US')}.`),
    truncated: z.boolean().describe('More events match than one job replays, or counting them all would have outlasted the call (narrow the dates).'),
  }),
);

const colour = z.string().regex(/^#[0-9a-f]{6}$/);

export const brandSettingsResponse = named(
  'BrandSettings',
  z.strictObject({
    company_name: z.string().nullable(),
    logo_url: z.string().nullable(),
    primary_color: colour.nullable(),
    accent_color: colour.nullable(),
    docs_title: z.string().nullable(),
    updated_at: nullableTimestamp.describe('null until the account sets something.'),
  }),
  'The effective settings: defaults filled in.',
);

export const healthResponse = z.strictObject({ status: z.literal('ok') });
export const readyResponse = z.strictObject({ status: z.literal('ready') });

export type ExportJobResponse = z.output<typeof exportJobResponse>;
export type ReplayJobResponse = z.output<typeof replayJobResponse>;
export type BrandSettingsResponse = z.output<typeof brandSettingsResponse>;
