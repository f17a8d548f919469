import * as z from 'zod';
import { webhookIdOf } from '../domain/ids';
import { traceOf } from '../domain/trace-context';
import { END_REASONS, WAIT_REASONS, waitingOf } from '../domain/progress';
import { ATTEMPT_OUTCOMES, DELIVERY_STATUSES, DIRECTIONS } from '../domain/vocabulary';
import { at, ids, later } from '../api-kit/examples';
import { eventStatus, named } from '../api-kit/schemas';
import type { Accepted } from '../domain/outcomes';
import type { EventListItem } from './lists';
import type { AttemptRecord, EventBodyRecord, EventRecord } from './record';

/**
 * An event's API shapes: the list item, the detail with its attempts, the answers to a publish and an
 * ingest; their presenters (typed by the shapes, so they cannot drift) and examples.
 */

const uuid = z.uuid();
const timestamp = z.iso.datetime();
const nullableTimestamp = timestamp.nullable();
const direction = z.enum(DIRECTIONS);
const eventCustomer = z.string().nullable().describe('The customer the event is addressed to: only that customer’s destinations receive it. null: none (inbound events, and outbound events for your own destinations).');

/** What names an event and where it came from: the first fields of the list item and of the detail. */
const eventIdentity = {
    id: uuid,
    account_id: uuid,
    direction,
    source_id: uuid.nullable(),
    event_type: z.string().nullable(),
    external_event_id: z.string().nullable(),
    customer: eventCustomer,
};

export const eventListItemResponse = named(
  'EventListItem',
  z.strictObject({
    ...eventIdentity,
    status: eventStatus,
    attempts_count: z.int().min(0),
    received_at: timestamp,
    created_at: timestamp,
  }),
);

export const eventDetailResponse = named(
  'EventDetail',
  z.strictObject({
    ...eventIdentity,
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
    payload_hash: z.string().regex(/^sha256:[0-9a-f]{64}$/).nullable().describe('null once the payload is erased.'),
    payload_erased: z
      .boolean()
      .describe('An erasure (`POST /v1/erasures`) removed its payload, headers and attempts’ response bodies: `body` is null and `body_size` 0; it cannot be replayed or resent.'),
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
    ordering_key: z.string().nullable().describe('Its ordering key (a published `ordering_key`, or read with its source’s `ordering_key_pointer`); null: none.'),
    trace_id: z
      .string()
      .regex(/^[0-9a-f]{32}$/)
      .describe(
        'The W3C trace id its deliveries carry in `traceparent` (each try a new span id): the `traceparent` it was ingested or published with, when valid; else one Hookgate started. A replayed copy keeps its original’s.',
      ),
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
            'Why a `dead_letter` delivery ended before its tries ran out: its destination was deleted, given to another customer, or answered 410 Gone; its body is over its AWS target’s limit; the account ended what its destination held (`held_ended`, `POST /v1/destinations/{id}/end-held`); versions before 0.5 only: it was still waiting when its event’s retention window ended (`expired`); its queue task kept failing, even sent once more (`task_failed`); or an erasure took its payload before it was sent (`payload_erased`). null otherwise.',
          ),
        waiting: z
          .strictObject({
            reason: z.enum(WAIT_REASONS),
            until: nullableTimestamp,
            behind: uuid.optional().describe('With `ordering`: the earlier event of its `ordering_key` it waits for.'),
          })
          .nullable()
          .describe(
            'While it waits without a try: `retry` (its next try is due at `until`), `breaker_open` (its destination’s circuit breaker holds it, parked without polling, until the breaker closes: `until` is the breaker’s next probe), `rate_limit` (its send slot), `ordering` (an earlier event of its `ordering_key`, `behind`, has not ended at this `per_key` destination: it goes as soon as that one ends). null while it is in flight, settled, or due now.',
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
    response_status: z.int().nullable().describe('The HTTP status of the answer (of the AWS API’s, for an AWS destination); null without one.'),
    response_body: z
      .string()
      .describe('The first 4 KB of the answer; for an AWS destination `{"aws_request_id", "error_code", "error_class"}` or the ids the service gave the message.'),
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

export type EventListItemResponse = z.output<typeof eventListItemResponse>;
export type EventDetailResponse = z.output<typeof eventDetailResponse>;
export type AttemptResponse = z.output<typeof attemptResponse>;
type PublishedResponse = z.output<typeof publishedResponse>;
type DuplicateResponse = z.output<typeof duplicateResponse>;
export type BatchItemResponse = z.output<typeof batchItemResponse>;

export const presentEventListItem = (e: EventListItem): EventListItemResponse => ({
  id: e.id,
  account_id: e.account_id,
  direction: e.direction,
  source_id: e.source_id,
  event_type: e.event_type,
  external_event_id: e.external_event_id,
  customer: e.customer,
  status: e.status,
  attempts_count: e.attempts_count,
  received_at: e.received_at,
  created_at: e.created_at,
});

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Text bodies are returned as they are; bodies that are not valid UTF-8 as base64, and said so. */
type PresentedBody = Pick<EventDetailResponse, 'body' | 'body_encoding'>;

function presentBody(bytes: Buffer): PresentedBody {
  try {
    return { body: utf8.decode(bytes), body_encoding: 'utf8' };
  } catch {
    return { body: bytes.toString('base64'), body_encoding: 'base64' };
  }
}

/** The body inline (its bytes), or, when the answer would be too large for Lambda, a link to it. */
export type BodyView = { bytes: Buffer } | { url: string };

export function presentEventDetail(event: EventRecord, stored: EventBodyRecord, view: BodyView, now: Date): EventDetailResponse {
  return {
    id: event.id,
    account_id: event.account_id,
    direction: event.direction,
    source_id: event.source_id,
    event_type: event.event_type,
    external_event_id: event.external_event_id,
    customer: event.customer,
    ...('bytes' in view && !event.payload_erased ? presentBody(view.bytes) : { body: null, body_encoding: null }),
    body_size: stored.body_size,
    body_url: 'url' in view ? view.url : null,
    content_type: stored.content_type,
    headers: stored.headers,
    payload_hash: stored.payload_hash === '' ? null : stored.payload_hash,
    payload_erased: event.payload_erased === true,
    status: event.status,
    attempts_count: event.attempts_count,
    // Stored as a plain string; only the pipeline writes it, with one of these two values.
    created_by: event.created_by as EventDetailResponse['created_by'],
    received_at: event.received_at,
    created_at: event.created_at,
    replay_of: event.replay_of,
    webhook_id: webhookIdOf(event),
    replayed_by: event.replayed_by,
    ordering_key: event.ordering_key ?? null,
    trace_id: traceOf(stored.trace, event.id).id,
    deliveries: Object.entries(event.deliveries).map(([destination_id, d]) => ({
      destination_id,
      status: d.status,
      attempts: d.attempts,
      next_attempt_at: d.next_attempt_at,
      end_reason: d.end_reason ?? null,
      waiting: waitingOf(d, now),
    })),
  };
}

export const presentAttempt = (a: AttemptRecord): AttemptResponse => ({
  id: a.id,
  event_id: a.event_id,
  destination_id: a.destination_id,
  attempt_number: a.attempt_number,
  outcome: a.outcome,
  response_status: a.response_status,
  response_body: a.response_body,
  error: a.error,
  attempted_at: a.attempted_at,
  duration_ms: a.duration_ms,
});

export type PublishAnswer = { status: 201; data: PublishedResponse } | { status: 200; data: DuplicateResponse };

/**
 * A publish's answer. A new event answers `queued` (spec) even when it matched no route and ended
 * `accepted` at once, as its detail shows; a duplicate answers the first event as it stands.
 */
export const presentPublished = (outcome: Accepted): PublishAnswer =>
  outcome.kind === 'accepted'
    ? { status: 201, data: { id: outcome.event.id, status: 'queued' } }
    : { status: 200, data: { id: outcome.event.id, status: outcome.event.status, duplicate: true } };

// Examples for the OpenAPI document, typed by the shapes above (a test checks them against the document).
export const exampleInboundBody = '{"id":"evt_123","amount":4200}';
export const exampleOutboundPayload = '{"invoice":"in_1","total":999}';

export const exampleInboundListItem = {
  id: ids.event,
  account_id: ids.account,
  direction: 'inbound',
  source_id: ids.source,
  event_type: 'payment.succeeded',
  external_event_id: 'evt_123',
  customer: null,
  status: 'delivered',
  attempts_count: 1,
  received_at: at,
  created_at: at,
} satisfies EventListItemResponse;

export const exampleOutboundListItem = {
  id: ids.outboundEvent,
  account_id: ids.account,
  direction: 'outbound',
  source_id: null,
  event_type: 'invoice.paid',
  external_event_id: 'in_1-paid',
  customer: 'cus_42',
  status: 'delivered',
  attempts_count: 1,
  received_at: at,
  created_at: at,
} satisfies EventListItemResponse;

export const exampleAttempt = {
  id: ids.attempt,
  event_id: ids.event,
  destination_id: ids.destination,
  attempt_number: 1,
  outcome: 'success',
  response_status: 200,
  response_body: 'ok',
  error: null,
  attempted_at: later,
  duration_ms: 84,
} satisfies AttemptResponse;

export const exampleInboundDetail = {
  ...exampleInboundListItem,
  body: exampleInboundBody,
  body_encoding: 'utf8',
  body_size: Buffer.byteLength(exampleInboundBody),
  body_url: null,
  content_type: 'application/json',
  headers: { 'content-type': 'application/json', 'x-event-type': 'payment.succeeded', 'idempotency-key': 'evt_123' },
  payload_hash: 'sha256:6bf0c09c0d1f278d16f76bad34d1c570900216904b30d14b55e4d86957a87ba1',
  payload_erased: false,
  created_by: 'ingest',
  replay_of: null,
  webhook_id: exampleInboundListItem.id,
  replayed_by: null,
  ordering_key: null,
  trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
  deliveries: [{ destination_id: ids.destination, status: 'delivered', attempts: 1, next_attempt_at: null, end_reason: null, waiting: null }],
} satisfies EventDetailResponse;

export const exampleOutboundDetail = {
  ...exampleOutboundListItem,
  body: exampleOutboundPayload,
  body_encoding: 'utf8',
  body_size: Buffer.byteLength(exampleOutboundPayload),
  body_url: null,
  content_type: 'application/json',
  headers: {},
  payload_hash: 'sha256:d351bbe327500db60d55e9395f78695427fd5c60bdf92d2cda00ecf2585f4a53',
  payload_erased: false,
  created_by: 'api',
  replay_of: null,
  webhook_id: exampleOutboundListItem.id,
  replayed_by: null,
  ordering_key: null,
  trace_id: '0af7651916cd43dd8448eb211c80319c',
  deliveries: [{ destination_id: ids.destination, status: 'delivered', attempts: 1, next_attempt_at: null, end_reason: null, waiting: null }],
} satisfies EventDetailResponse;
