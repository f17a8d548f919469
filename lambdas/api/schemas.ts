import * as z from 'zod';
import { END_REASONS } from '../domain/progress';
import { isCustomerId } from '../domain/portal';
import { ATTEMPT_OUTCOMES, DELIVERY_STATUSES, DIRECTIONS, EVENT_STATUSES } from '../domain/vocabulary';

/**
 * The OpenAPI document is generated from the very zod schemas the handlers parse with and the
 * presenters are typed by. zod's metadata (`.meta()`, `.describe()`) carries what the document adds:
 * a component name (`id`), a description, JSON Schema keywords that a refinement cannot express.
 */
export const CUSTOMER_MESSAGE = 'customer must be 1 to 128 letters, digits or . _ : @ + - (starting with a letter or digit)';
/** The account's own id for one of its customers: a destination's owner, an outbound event's recipient. */
export const customerField = z.string().refine(isCustomerId, { error: () => CUSTOMER_MESSAGE }).meta({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.:@+-]{0,127}$' });
const eventCustomer = z.string().nullable().describe('The customer the event is addressed to: only that customer’s destinations receive it. null: none (inbound events, and outbound events for your own destinations).');

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

export const eventListItemResponse = named(
  'EventListItem',
  z.strictObject({
    id: uuid,
    account_id: uuid,
    direction,
    source_id: uuid.nullable(),
    event_type: z.string().nullable(),
    external_event_id: z.string().nullable(),
    customer: eventCustomer,
    status: eventStatus,
    attempts_count: z.int().min(0),
    received_at: timestamp,
    created_at: timestamp,
  }),
);

export const eventDetailResponse = named(
  'EventDetail',
  z.strictObject({
    id: uuid,
    account_id: uuid,
    direction,
    source_id: uuid.nullable(),
    event_type: z.string().nullable(),
    external_event_id: z.string().nullable(),
    customer: eventCustomer,
    body: z
      .string()
      .nullable()
      .describe(
        'The payload: its text when valid UTF-8, else base64 (see `body_encoding`). null when the answer with the body inline would not fit in Lambda’s 6 MB response: read it from `body_url` instead.',
      ),
    body_encoding: z.enum(['utf8', 'base64']).nullable().describe('How `body` is written; null when `body` is.'),
    body_size: z.int().min(0).describe('The payload’s size in bytes, as received.'),
    body_url: z
      .url()
      .nullable()
      .describe('When `body` is null: a pre-signed URL of the exact payload bytes, valid 5 minutes, served as a download (`Content-Disposition: attachment`, `Content-Type: application/octet-stream`) whatever its `content_type`. null otherwise.'),
    content_type: z.string().nullable(),
    headers: z.record(z.string(), z.string()).describe('Stored request headers (lower-case), without credentials.'),
    payload_hash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
    status: eventStatus,
    attempts_count: z.int().min(0),
    created_by: z.enum(['ingest', 'api', 'hookgate']).describe('`hookgate`: an operational event Hookgate published about the account.'),
    received_at: timestamp,
    created_at: timestamp,
    replay_of: uuid.nullable().describe('The event this one is a replayed copy of (single, bulk or to one destination); null: not a copy.'),
    webhook_id: uuid.describe(
      'What its deliveries carry as `X-Webhook-Id` (and `webhook-id`): the first event of its replay chain, so a replayed copy keeps its original’s; the event’s own `id` when it is no copy.',
    ),
    replayed_by: uuid.nullable(),
    deliveries: z.array(
      z.strictObject({
        destination_id: uuid,
        status: z.enum(DELIVERY_STATUSES),
        attempts: z.int().min(0),
        next_attempt_at: nullableTimestamp,
        end_reason: z
          .enum(END_REASONS)
          .nullable()
          .describe(
            'Why a `dead_letter` delivery ended before its tries ran out: its destination was deleted, set inactive, or answered 410 Gone. null otherwise.',
          ),
      }),
    ),
  }),
);

export const attemptResponse = named(
  'Attempt',
  z.strictObject({
    id: uuid,
    event_id: uuid,
    destination_id: uuid,
    attempt_number: z.int().min(1),
    outcome: z.enum(ATTEMPT_OUTCOMES),
    response_status: z.int().nullable(),
    response_body: z.string().describe('The first 4 KB of the answer.'),
    error: z.string().nullable(),
    attempted_at: timestamp,
    duration_ms: z.int().min(0),
  }),
  'One delivery try.',
);

export const eventWithAttemptsResponse = named(
  'EventWithAttempts',
  z.strictObject({ event: eventDetailResponse, attempts: z.array(attemptResponse).describe('Oldest first.') }),
);

export const replayResponse = named(
  'ReplayResult',
  z.strictObject({
    original_event_id: uuid,
    replay_event_id: uuid,
    status: z.literal('queued').describe('Always `queued`; a replay no route matches then ends `accepted` (its detail shows it).'),
  }),
);

export const publishedResponse = named(
  'PublishedEvent',
  z.strictObject({ id: uuid, status: z.literal('queued') }),
  'A new event (it ends `accepted` at once if no route matches; its detail shows it).',
);

export const duplicateResponse = named(
  'DuplicateEvent',
  z.strictObject({ id: uuid.describe('The first event with this external_event_id.'), status: eventStatus, duplicate: z.literal(true) }),
  'A repeated external_event_id: nothing was stored or delivered again.',
);

export const batchItemResponse = named(
  'BatchItemResult',
  z.discriminatedUnion('status', [
    z.strictObject({ status: z.literal(201), data: publishedResponse }),
    z.strictObject({ status: z.literal(200), data: duplicateResponse }),
    z.strictObject({ status: z.literal(400), error: z.string() }),
  ]),
  'What the single publish would have answered for this event.',
);

export const ingestAcceptedResponse = named(
  'IngestAccepted',
  z.strictObject({ id: uuid, status: eventStatus.describe('`queued` when routes matched, `accepted` when none did.') }),
);

export const healthResponse = z.strictObject({ status: z.literal('ok') });
export const readyResponse = z.strictObject({ status: z.literal('ready') });

export type EventListItemResponse = z.output<typeof eventListItemResponse>;
export type EventDetailResponse = z.output<typeof eventDetailResponse>;
export type AttemptResponse = z.output<typeof attemptResponse>;
export type PublishedResponse = z.output<typeof publishedResponse>;
export type DuplicateResponse = z.output<typeof duplicateResponse>;
export type BatchItemResponse = z.output<typeof batchItemResponse>;
