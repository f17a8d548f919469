import * as z from 'zod';
import { Refusal } from '../../domain/errors';
import { ORDERING_KEY_MAX, orderingKeyIssue } from '../../domain/ordering';
import { isReservedType } from '../../domain/operational-events';
import { parseTraceparent, type Trace } from '../../domain/trace-context';
import { unsendableHeaderMessage } from '../../domain/header-values';
import { gatheredEnqueue, type TaskSink } from '../../events/accept';
import { publishEvent, type PublishInput } from '../../events/publish';
import { batchItemResponse, duplicateResponse, exampleOutboundPayload, presentPublished, publishedResponse, type BatchItemResponse } from '../../events/shapes';
import { ids } from '../../api-kit/examples';
import { REFUSAL_STATUS } from '../http';
import { json, jsonBody, list, traceparentHeader } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { CUSTOMER_MESSAGE, customerField, named, SUBJECT_MESSAGE, subjectField } from '../../api-kit/schemas';
import { issueMessage, parseJsonBody, sendableHeaderRule, textField } from '../../api-kit/validation';
import { eventRoutes } from './events';
import { appendLogKeys } from '../../shared/log';
import { newTrace } from '../../shared/secrets';

export const MAX_BATCH_EVENTS = 100;
/** Publishes of one batch run this many at a time: enough to overlap AWS round trips, not a stampede. */
const BATCH_CONCURRENCY = 10;

const PAYLOAD_REQUIRED = 'payload is required';
const PAYLOAD_TYPE_MESSAGE = 'payload must be a string or a JSON value';

/**
 * A string is the delivery body as it is; any other JSON value is sent as its JSON text, as Svix and
 * Hookdeck accept an object. null counts as missing: a body of `null` is never what a publisher meant.
 * Parsed JSON holds nothing else, so the type message answers only callers that skip JSON (tests, scripts).
 */
const payload = z
  .union([z.string(), z.number(), z.boolean(), z.array(z.unknown()), z.record(z.string(), z.unknown())], {
    error: (issue) => (issue.input === undefined || issue.input === null ? PAYLOAD_REQUIRED : PAYLOAD_TYPE_MESSAGE),
  })
  .refine((value) => value !== '', { error: () => PAYLOAD_REQUIRED })
  .transform((value) => (typeof value === 'string' ? value : JSON.stringify(value)));

const orderingKeyField = z
  .string()
  .superRefine((key, ctx) => {
    const issue = orderingKeyIssue(key);
    if (issue) ctx.addIssue({ code: 'custom', message: issue });
  })
  .optional()
  .describe(
    `1-${ORDERING_KEY_MAX} visible characters (no spaces). At a destination with \`ordering: "per_key"\`, events with the same key are delivered one after the other, in the order they were accepted (a batch's in its order); an AWS FIFO queue or topic gets it as \`MessageGroupId\`.`,
  );

const RESERVED_TYPE_MESSAGE = 'event_type must not start with hookgate. (reserved for operational events)';

const publishBody = named(
  'PublishOutboundEventRequest',
  z.strictObject({
    payload: payload.describe(
      'The delivery body, sent with `Content-Type: application/json`: a string is sent as it is, any other JSON value (object, array, number, boolean) as its JSON text.',
    ),
    event_type: textField('event_type')
      .refine(...sendableHeaderRule('event_type'))
      .refine((type) => !isReservedType(type), { error: () => RESERVED_TYPE_MESSAGE })
      .optional()
      .describe('Tag used for route matching; sent as `X-Event-Type`, so printable ASCII only.'),
    external_event_id: textField('external_event_id', 256)
      .optional()
      .describe('Idempotency key: a repeat within the account answers the first event (`duplicate: true`).'),
    customer: customerField
      .optional()
      .describe('The customer it is for (your own id, as on its destinations): only destinations with this `customer` receive it, and only its portal shows it. Absent: only destinations without a `customer`.'),
    subject: subjectField
      .optional()
      .describe('The data subject the payload is about (your own id for the person): `POST /v1/erasures` with it erases this event’s payload. Stored only as an HMAC; never delivered.'),
    ordering_key: orderingKeyField,
  }),
);

const batchOf = <T extends z.ZodType>(event: T) => z.strictObject({ events: z.array(event).min(1).max(MAX_BATCH_EVENTS) });
/** The call is parsed as an array first and each event on its own, so one bad event does not stop the others. */
const batchBody = batchOf(z.unknown());
/** Documented as what each event must be: the same shape, built by the same function. */
const documentedBatchBody = named('PublishOutboundEventBatchRequest', batchOf(publishBody));

const publishErrors = [
  PAYLOAD_REQUIRED,
  PAYLOAD_TYPE_MESSAGE,
  'event_type must be a string',
  'event_type must be at most 200 characters',
  unsendableHeaderMessage('event_type'),
  RESERVED_TYPE_MESSAGE,
  'external_event_id must be at most 256 characters',
  CUSTOMER_MESSAGE,
  SUBJECT_MESSAGE,
  'ordering_key must be a string',
  `ordering_key must be 1 to ${ORDERING_KEY_MAX} characters`,
  'ordering_key must be visible characters only (no spaces or control characters)',
  'unknown field: eventtype',
  'the event reaches 1500 destinations; one event may reach at most 1000',
];

async function publishItem(accountId: string, raw: unknown, now: Date, options: { enqueue: TaskSink; trace?: Trace }): Promise<BatchItemResponse> {
  const parsed = publishBody.safeParse(raw, { reportInput: true });
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return { status: REFUSAL_STATUS.invalid, error: first ? issueMessage(first) : 'invalid event' };
  }
  try {
    return presentPublished(await publishEvent(accountId, parsed.data as PublishInput, now, options));
  } catch (error) {
    // One event of the batch refused (over the fan-out limit): that event's answer, not the batch's.
    if (error instanceof Refusal && error.kind === 'invalid') return { status: REFUSAL_STATUS.invalid, error: error.message };
    throw error;
  }
}

/**
 * The indexes of a batch's events in lanes: events with the same ordering key in one lane, in their
 * order, so each is accepted (joins its key's line) only after the one before it; others one each.
 */
function orderingLanes(events: readonly unknown[], indexes: readonly number[]): number[][] {
  const byKey = new Map<string, number[]>();
  const lanes: number[][] = [];
  for (const index of indexes) {
    const key = (events[index] as { ordering_key?: unknown } | null)?.ordering_key;
    const lane = typeof key === 'string' ? byKey.get(key) : undefined;
    if (lane) lane.push(index);
    else {
      const fresh = [index];
      lanes.push(fresh);
      if (typeof key === 'string') byKey.set(key, fresh);
    }
  }
  return lanes;
}

function splitRepeats(events: readonly unknown[]): { firsts: number[]; repeats: number[] } {
  const seen = new Set<string>();
  const firsts: number[] = [];
  const repeats: number[] = [];
  events.forEach((event, index) => {
    const id = (event as { external_event_id?: unknown } | null)?.external_event_id;
    if (typeof id === 'string' && seen.has(id)) repeats.push(index);
    else {
      if (typeof id === 'string') seen.add(id);
      firsts.push(index);
    }
  });
  return { firsts, repeats };
}

/** Runs `work` over `items` with at most `limit` in flight, keeping the order of the results. */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  });
  await Promise.all(lanes);
  return results;
}

export const outboundEventRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/outbound-events',
    auth: 'api_key',
    doc: {
      operationId: 'publishOutboundEvent',
      summary: 'Publish an event',
      description:
        'Delivered to the destination of every matching route (routes without a `source_id` match outbound events), signed, retried and recorded like inbound webhooks.',
      tag: 'Outbound events',
      body: jsonBody(publishBody, { payload: exampleOutboundPayload, event_type: 'invoice.paid', external_event_id: 'in_1-paid' }),
      headers: [traceparentHeader],
      responses: {
        201: json('Stored and queued.', publishedResponse, { id: ids.outboundEvent, status: 'queued' }),
        200: json('A repeated `external_event_id`: the first event, nothing stored again.', duplicateResponse, {
          id: ids.outboundEvent,
          status: 'delivered',
          duplicate: true,
        }),
      },
      errors: { 400: publishErrors },
    },
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, publishBody);
      // An invalid traceparent is ignored, never refused: the event starts a trace of its own.
      const trace = parseTraceparent(request.headers.traceparent) ?? newTrace();
      appendLogKeys({ trace_id: trace.id });
      return presentPublished(await publishEvent(principal.accountId, body, now, { trace }));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/outbound-events/batch',
    auth: 'api_key',
    doc: {
      operationId: 'publishOutboundEventBatch',
      summary: 'Publish up to 100 events in one call',
      description:
        'One result per event, in order, each what the single call would have answered. One bad event does not stop the others; a repeat of an `external_event_id` inside the batch is answered as the duplicate of its first occurrence.',
      tag: 'Outbound events',
      body: jsonBody(documentedBatchBody, {
        events: [
          { payload: '{"order":1}', event_type: 'order.created', external_event_id: 'order-1' },
          { payload: '{"order":1}', event_type: 'order.created', external_event_id: 'order-1' },
          { payload: '{"order":2}', event_type: 'order.created' },
        ],
      }),
      headers: [{ ...traceparentHeader, description: `${traceparentHeader.description} A valid one is every event’s of the batch; without one, each event starts its own.` }],
      responses: {
        200: list('One result per event, in order: `201`, `200` (duplicate) or `400` with the error.', batchItemResponse, [
          { status: 201, data: { id: ids.outboundEvent, status: 'queued' } },
          { status: 200, data: { id: ids.outboundEvent, status: 'queued', duplicate: true } },
          { status: 201, data: { id: ids.replay, status: 'queued' } },
        ]),
      },
      errors: {
        400: ['events is required', 'events must be an array', 'events must contain at least 1 item(s)', 'events must contain at most 100 items'],
      },
    },
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, batchBody);
      // The request's trace is every event's; without one, each event starts its own (one log key cannot name them all).
      const trace = parseTraceparent(request.headers.traceparent) ?? undefined;
      if (trace) appendLogKeys({ trace_id: trace.id });
      const queue = gatheredEnqueue();
      const publish = (index: number) => queue.run(() => publishItem(principal.accountId, body.events[index], now, { enqueue: queue.enqueue, trace }));
      // A repeat of an external id inside the batch waits for its first occurrence, so it is the one
      // answered as the duplicate, as it would be had the events been sent one by one in order.
      const { firsts, repeats } = splitRepeats(body.events);
      const results = new Array<BatchItemResponse>(body.events.length);
      for (const phase of [firsts, repeats]) {
        await mapLimited(orderingLanes(body.events, phase), BATCH_CONCURRENCY, async (lane) => {
          for (const index of lane) results[index] = await publish(index);
        });
      }
      return { status: 200, data: results };
    },
  }),
  ...eventRoutes('/v1/outbound-events', 'outbound'),
];
