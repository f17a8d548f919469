import * as z from 'zod';
import { exampleSigningSecret, ids } from '../api-kit/examples';
import { CUSTOMER_MESSAGE, customerField, named } from '../api-kit/schemas';
import { uuidField } from '../api-kit/validation';
import { TIMEOUT_MS_RANGE } from '../destinations/changes';
import { SESSION_ID_PATTERN } from '../domain/listen';
import { isValidPattern } from '../domain/routing';
import type { OpenedSession } from '.';

/** `POST /v1/listen-sessions` and its answer. */

const SESSION_ID_MESSAGE = 'session_id must be 8 to 64 letters, digits, _ or -';

export const openListenSessionBody = named(
  'OpenListenSessionRequest',
  z.strictObject({
    session_id: z
      .string()
      .regex(SESSION_ID_PATTERN, { error: () => SESSION_ID_MESSAGE })
      .describe('The CLI’s own id for the session, kept in its config directory: the same id resumes the same destination.'),
    event_type_pattern: z
      .string()
      .max(200)
      .refine(isValidPattern, { error: () => 'event_type_pattern may contain * only as its last character' })
      .nullable()
      .optional()
      .describe('The route’s: an exact type, or text ending in `*`; null or absent: every type.'),
    source_id: uuidField('source_id').nullable().optional().describe('The route’s: only events of this source; null or absent: every source, and outbound events.'),
    customer: customerField
      .nullable()
      .optional()
      .describe('Receive what this customer’s endpoints receive: only outbound events addressed to it. The destination is never shown in that customer’s portal.'),
    timeout_ms: z.int().min(TIMEOUT_MS_RANGE.min).max(TIMEOUT_MS_RANGE.max).optional().describe(`How long each try waits for the CLI’s answer. Default ${TIMEOUT_MS_RANGE.default}.`),
  }),
);

export const listenSessionErrors = [
  'session_id is required',
  SESSION_ID_MESSAGE,
  'event_type_pattern may contain * only as its last character',
  'invalid source_id',
  'source_id does not match a source of this account',
  CUSTOMER_MESSAGE,
  'timeout_ms must be at least 100',
  'timeout_ms must be at most 30000',
  'unknown field: nmae',
];

export const listenSessionResponse = named(
  'ListenSession',
  z.strictObject({
    session_id: z.string(),
    resumed: z.boolean().describe('true: the session existed (its destination and any deliveries waiting for it are kept).'),
    destination_id: z.uuid().describe('The session’s destination, of type `cli`.'),
    route_id: z.uuid(),
    event_type_pattern: z.string().nullable(),
    source_id: z.uuid().nullable(),
    customer: z.string().nullable(),
    timeout_ms: z.int(),
    signing_secret: z.string().describe('Signs every delivery, as any destination’s does: a local handler can verify them.'),
    websocket_url: z.string().nullable().describe('Where the CLI connects (`?session=<session_id>`, the API key as `Authorization: Bearer`); null: this deployment has no listen endpoint.'),
  }),
  'A `hookgate listen` session: its destination and route.',
);

export type ListenSessionResponse = z.output<typeof listenSessionResponse>;

export const presentListenSession = ({ kind, session, destination, route }: OpenedSession, websocketUrl: string | undefined): ListenSessionResponse => ({
  session_id: session.session_id,
  resumed: kind === 'resumed',
  destination_id: destination.id,
  route_id: route.id,
  event_type_pattern: route.event_type_pattern,
  source_id: route.source_id,
  customer: destination.customer,
  timeout_ms: destination.timeout_ms,
  signing_secret: destination.signing_secret,
  websocket_url: websocketUrl ?? null,
});

export const exampleListenSession = {
  session_id: 'Vh2x9Qm4rT8kLp0a',
  resumed: false,
  destination_id: ids.destination,
  route_id: ids.route,
  event_type_pattern: 'payment.*',
  source_id: null,
  customer: null,
  timeout_ms: 15000,
  signing_secret: exampleSigningSecret,
  websocket_url: 'wss://abc123.execute-api.eu-west-1.amazonaws.com/live',
} satisfies ListenSessionResponse;

