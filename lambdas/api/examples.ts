import type {
  AttemptResponse,
  EventDetailResponse,
  EventListItemResponse,
} from './schemas';

/**
 * Example values for the OpenAPI document, typed by the response schemas (and checked against the
 * generated document in a test), so an example cannot show a field the API does not return.
 */
export const ids = {
  account: '01970c6e-5b1a-7c3d-8e4f-1a2b3c4d5e6f',
  apiKey: '01970c6e-5b1b-7a10-9b21-0c1d2e3f4a5b',
  source: '01970c6e-6a00-7b11-a2c3-4d5e6f708192',
  destination: '01970c6e-6b00-7c22-b3d4-5e6f708192a3',
  route: '01970c6e-6c00-7d33-84e5-6f708192a3b4',
  event: '01970c6f-1000-7e44-95f6-708192a3b4c5',
  outboundEvent: '01970c6f-2000-7e45-85f6-708192a3b4c6',
  replay: '01970c71-2000-7f55-a607-8192a3b4c5d6',
  attempt: '01970c6f-1001-7066-b718-92a3b4c5d6e7',
  exportJob: '01970c72-3000-7177-8829-a3b4c5d6e7f8',
  replayJob: '01970c72-5000-7399-8a4b-c5d6e7f8091a',
  customDomain: '01970c73-4000-7288-993a-b4c5d6e7f809',
} as const;

export const at = '2026-06-01T12:00:00.000Z';
export const later = '2026-06-01T12:00:01.250Z';
export const exampleSigningSecret = 'whsec_tZYWtAcaUq+08oVDZEpZi7eAgu1INz1420uIwUbV3rQ=';
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
  created_by: 'ingest',
  replay_of: null,
  webhook_id: exampleInboundListItem.id,
  replayed_by: null,
  deliveries: [{ destination_id: ids.destination, status: 'delivered', attempts: 1, next_attempt_at: null, end_reason: null }],
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
  created_by: 'api',
  replay_of: null,
  webhook_id: exampleOutboundListItem.id,
  replayed_by: null,
  deliveries: [{ destination_id: ids.destination, status: 'delivered', attempts: 1, next_attempt_at: null, end_reason: null }],
} satisfies EventDetailResponse;
