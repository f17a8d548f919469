import * as z from 'zod';
import { isEventTypeName, PORTAL_SESSION_SECONDS } from '../domain/portal';
import { attemptResponse, eventDetailResponse, eventListItemResponse } from '../events/shapes';
import { brandSettingsResponse, customerField, named } from './schemas';
import { uuidField } from './validation';
import { EVENT_STATUSES } from '../domain/vocabulary';

/** Shapes of the consumer portal (issue 16): its sessions, the event type catalog and the portal API. */



export const eventTypeName = (field: string, message: string) =>
  z.string({ error: () => `${field} is required` }).refine(isEventTypeName, { error: () => message });

const timestamp = z.iso.datetime();

// ------------------------------------------------------------------ portal sessions

export const createPortalSessionBody = named(
  'CreatePortalSessionRequest',
  z.strictObject({
    customer: customerField.describe('Your own id for the customer; the portal shows only destinations with this `customer`.'),
    expires_in_seconds: z
      .int()
      .min(PORTAL_SESSION_SECONDS.min)
      .max(PORTAL_SESSION_SECONDS.max)
      .optional()
      .describe(`How long the link works: ${PORTAL_SESSION_SECONDS.min} to ${PORTAL_SESSION_SECONDS.max} seconds; default ${PORTAL_SESSION_SECONDS.default}.`),
  }),
);

export const revokePortalSessionsBody = named(
  'RevokePortalSessionsRequest',
  z.strictObject({ customer: customerField.describe('The customer whose links end: every link made for it so far.') }),
);

export const portalSessionResponse = named(
  'PortalSession',
  z.strictObject({
    url: z
      .url()
      .describe('Opens the portal. The part after `#` is the session’s secret: shown once, stored as a SHA-256 hash, never sent to a server by the browser.'),
    expires_at: timestamp,
  }),
  'A link to the consumer portal for one customer, on your verified custom domain when you have one.',
);

// ------------------------------------------------------------------ the portal API




export const portalSessionInfoResponse = named(
  'PortalSessionInfo',
  z.strictObject({
    customer: z.string(),
    expires_at: timestamp,
    brand: brandSettingsResponse.pick({ company_name: true, logo_url: true, primary_color: true, accent_color: true, docs_title: true }),
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
