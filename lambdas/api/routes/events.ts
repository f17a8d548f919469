import * as z from 'zod';
import { notFound } from '../../domain/errors';
import { replayEvent } from '../../replays';
import { listAccountEvents, payloadLink, showEvent } from '../../events';
import {
  eventListItemResponse,
  eventWithAttemptsResponse,
  exampleAttempt,
  exampleInboundDetail,
  exampleInboundListItem,
  exampleOutboundDetail,
  exampleOutboundListItem,
  presentAttempt,
  presentEventDetail,
  presentEventListItem,
} from '../../events/shapes';
import { ids } from '../../api-kit/examples';
import { fitsLambdaResponse } from '../http';
import { json, jsonBody, page as eventPage } from '../route-doc';
import { settled } from '../outcomes';
import { defineRoute, type Route } from '../router';
import { CUSTOMER_MESSAGE, customerField, named, replayResponse } from '../../api-kit/schemas';
import { eventCursor, parseJsonBody, parsePathId, parseWith, timestampField, uuidField } from '../../api-kit/validation';
import { type Direction, EVENT_STATUSES } from '../../domain/vocabulary';

const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).optional().describe('Page size, 1..200; default 50.'),
  cursor: z.string().max(200).optional().describe('Opaque: the previous page’s `next_cursor`.'),
  status: z.enum(EVENT_STATUSES).optional(),
  event_type: z.string().min(1).max(200).optional().describe('Exact event type.'),
  source_id: uuidField('source_id').optional(),
  external_event_id: z.string().min(1).max(256).optional().describe('Exact provider delivery id (inbound) or `external_event_id` (outbound).'),
  customer: customerField.optional().describe('Only the events addressed to this customer (outbound).'),
  date_from: timestampField('date_from').optional().describe('ISO 8601; inclusive bound on `created_at`.'),
  date_to: timestampField('date_to').optional().describe('ISO 8601; inclusive bound on `created_at`.'),
});

const STATUS_LIST = EVENT_STATUSES.join(', ');

const replayBody = named(
  'ReplayRequest',
  z.strictObject({
    destination_id: uuidField('destination_id')
      .optional()
      .describe('Deliver the replay to this destination only, whatever the routes say (after one endpoint’s outage). Absent: today’s routes.'),
  }),
);

const cursor = eventCursor('v1');

/** List, detail and replay of one direction's events; inbound at /v1/events, outbound at /v1/outbound-events. */
export function eventRoutes(basePath: string, direction: Direction): Route[] {
  const inbound = direction === 'inbound';
  const noun = inbound ? 'Event' : 'OutboundEvent';
  const tag = inbound ? 'Events' : 'Outbound events';
  const exampleItem = inbound ? exampleInboundListItem : exampleOutboundListItem;
  const exampleDetail = inbound ? exampleInboundDetail : exampleOutboundDetail;
  const exampleId = inbound ? ids.event : ids.outboundEvent;
  return [
    defineRoute({
      method: 'GET',
      path: basePath,
      auth: 'api_key',
      doc: {
        operationId: `list${noun}s`,
        summary: `List ${direction} events`,
        description: `Newest first, 50 by default. Follow \`next_cursor\` (null on the last page) for older events.${inbound ? '' : ' Outbound events have `source_id: null`.'}`,
        tag,
        query: listQuery,
        responses: {
          200: eventPage(`A page of ${direction} events; \`next_cursor\` sits beside \`data\`.`, eventListItemResponse, [exampleItem]),
        },
        errors: {
          400: [
            'limit must be at least 1',
            'limit must be at most 200',
            'limit must be a number',
            `status must be one of: ${STATUS_LIST}`,
            'invalid cursor',
            'invalid source_id',
            'external_event_id must be at most 256 characters',
            CUSTOMER_MESSAGE,
            'date_from must be an ISO 8601 timestamp',
            'date_to must be an ISO 8601 timestamp',
            'date_from must not be after date_to',
          ],
        },
      },
      handle: async ({ request, principal }) => {
        const { limit, cursor: after, ...filters } = parseWith(listQuery, request.query);
        const page = settled(
          await listAccountEvents(principal.accountId, direction, { ...filters, limit: limit ?? 50, after: after ? cursor.decode(after) : undefined }),
        );
        return {
          status: 200,
          data: page.items.map(presentEventListItem),
          extra: { next_cursor: page.nextAfter ? cursor.encode(page.nextAfter) : null },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${basePath}/:id`,
      auth: 'api_key',
      doc: {
        operationId: `get${noun}`,
        summary: `Show ${inbound ? 'an inbound' : 'an outbound'} event with its delivery attempts`,
        description: `\`body\` is the payload’s text when it is valid UTF-8, else base64 (\`body_encoding\`). When the answer with the body inline would exceed Lambda’s 6 MB response limit, \`body\` is null and \`body_url\` is a pre-signed link to the payload (5 minutes). Attempts are oldest first. ${
          inbound ? 'An outbound event’s id here is a 404.' : 'An inbound event’s id here is a 404.'
        }`,
        tag,
        responses: {
          200: json('The event and its attempts.', eventWithAttemptsResponse, {
            event: exampleDetail,
            attempts: [{ ...exampleAttempt, event_id: exampleId }],
          }),
        },
      },
      handle: async ({ params, principal }) => {
        const shown = await showEvent(principal.accountId, parsePathId(params.id), { direction });
        if (!shown) throw notFound();
        const attempts = shown.attempts.map(presentAttempt);
        const now = new Date();
        const inline = { event: presentEventDetail(shown.event, shown.body, { bytes: shown.bytes }, now), attempts };
        if (fitsLambdaResponse(inline)) return { status: 200, data: inline };
        // Bodies that large always live in the payload bucket; a small one never makes the answer too large.
        const url = await payloadLink(shown.body);
        if (!url) return { status: 200, data: inline };
        return { status: 200, data: { event: presentEventDetail(shown.event, shown.body, { url }, now), attempts } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: `${basePath}/:id/replay`,
      auth: 'api_key',
      doc: {
        operationId: `replay${noun}`,
        summary: `Replay ${inbound ? 'an inbound' : 'an outbound'} event`,
        description:
          'A new event with the same payload and headers, routed by today’s routes (its `replay_of` names the original), or with `destination_id` delivered to that destination only; the original becomes `replayed`. Terminal events and `accepted` ones (nothing was in flight) can be replayed. The body is optional.',
        tag,
        body: jsonBody(replayBody, { destination_id: ids.destination }),
        responses: {
          202: json('The replay is queued.', replayResponse, { original_event_id: exampleId, replay_event_id: ids.replay, status: 'queued' }),
        },
        errors: { 400: ['event is not in a terminal status', 'invalid destination_id', 'destination_id does not match a destination of this account'] },
      },
      handle: async ({ request, params, principal, now }) => {
        const id = parsePathId(params.id);
        const { destination_id: destinationId } = parseJsonBody(request, replayBody);
        const outcome = await replayEvent(principal.accountId, direction, id, now, destinationId);
        if (outcome.kind === 'not_found') throw notFound();
        if (outcome.kind === 'refused') throw outcome.reason;
        // The spec fixes `queued`, as for a publish; a replay that no route matches ends `accepted`, which its detail shows.
        return { status: 202, data: { original_event_id: id, replay_event_id: outcome.replay.id, status: 'queued' } };
      },
    }),
  ];
}
