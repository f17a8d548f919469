import * as z from 'zod';
import { attemptResponse, eventDetailResponse, eventListItemResponse } from '../events/shapes';
import { named } from '../api-kit/schemas';
import { uuidField } from '../api-kit/validation';
import { portalBrandResponse } from '../brand/shapes';
import { EVENT_STATUSES } from '../domain/vocabulary';

/** Shapes of the consumer portal's API (issue 16). */

const timestamp = z.iso.datetime();

// ------------------------------------------------------------------ the portal API




export const portalSessionInfoResponse = named(
  'PortalSessionInfo',
  z.strictObject({
    customer: z.string(),
    expires_at: timestamp,
    brand: portalBrandResponse,
    jwks_url: z.url().describe('This customer’s public JWKS: what it verifies its `ed25519` endpoints’ deliveries with. Its key pair signs only its own endpoints.'),
  }),
);

export const portalEventListItemResponse = named(
  'PortalEventListItem',
  eventListItemResponse.pick({ id: true, event_type: true, status: true, attempts_count: true, created_at: true }).extend({
    endpoint_ids: z.array(z.uuid()).describe('The customer’s endpoints it was sent to.'),
  }),
  '`status` and `attempts_count` count the customer’s own deliveries only.',
);

const portalEventResponse = named(
  'PortalEvent',
  eventDetailResponse.pick({
    id: true,
    event_type: true,
    body: true,
    body_encoding: true,
    body_size: true,
    body_url: true,
    content_type: true,
    payload_erased: true,
    status: true,
    attempts_count: true,
    created_at: true,
    replay_of: true,
  }).extend({
    deliveries: z.array(
      eventDetailResponse.shape.deliveries.element.extend({
        request_headers: z
          .nullable(z.record(z.string(), z.string()))
          .describe('The headers each try to this endpoint carries; per-try values are described and credentials hidden. `null` once the endpoint is deleted.'),
      }),
    ),
  }),
  'An event with the customer’s own deliveries only.',
);

export const portalEventWithAttemptsResponse = named(
  'PortalEventWithAttempts',
  z.strictObject({ event: portalEventResponse, attempts: z.array(attemptResponse).describe('To the customer’s endpoints, oldest first.') }),
);

export const portalSendResponse = named(
  'PortalSend',
  z.strictObject({ event_id: z.uuid(), status: z.literal('queued') }),
  'A new event for this one endpoint; follow it in the event log.',
);

export const portalResendBody = named('PortalResendRequest', z.strictObject({ endpoint_id: uuidField('endpoint_id') }));

export const portalEventQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional().describe('Page size, 1..100; default 25.'),
  cursor: z.string().max(200).optional().describe('Opaque: the previous page’s `next_cursor`.'),
  status: z.enum(EVENT_STATUSES).optional().describe('The status of the customer’s own deliveries.'),
  event_type: z.string().min(1).max(200).optional(),
});

export type PortalEventResponse = z.output<typeof portalEventResponse>;
