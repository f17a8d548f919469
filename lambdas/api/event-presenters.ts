import { webhookIdOf } from '../domain/ids';
import type { EventListItem } from '../events/lists';
import type { AttemptRecord, EventBodyRecord, EventRecord } from '../events/record';
import type { AttemptResponse, EventDetailResponse, EventListItemResponse } from './schemas';

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

export function presentEventDetail(event: EventRecord, stored: EventBodyRecord, view: BodyView): EventDetailResponse {
  return {
    id: event.id,
    account_id: event.account_id,
    direction: event.direction,
    source_id: event.source_id,
    event_type: event.event_type,
    external_event_id: event.external_event_id,
    customer: event.customer,
    ...('bytes' in view ? presentBody(view.bytes) : { body: null, body_encoding: null }),
    body_size: stored.body_size,
    body_url: 'url' in view ? view.url : null,
    content_type: stored.content_type,
    headers: stored.headers,
    payload_hash: stored.payload_hash,
    status: event.status,
    attempts_count: event.attempts_count,
    // Stored as a plain string; only the pipeline writes it, with one of these two values.
    created_by: event.created_by as EventDetailResponse['created_by'],
    received_at: event.received_at,
    created_at: event.created_at,
    replay_of: event.replay_of,
    webhook_id: webhookIdOf(event),
    replayed_by: event.replayed_by,
    deliveries: Object.entries(event.deliveries).map(([destination_id, d]) => ({
      destination_id,
      status: d.status,
      attempts: d.attempts,
      next_attempt_at: d.next_attempt_at,
      end_reason: d.end_reason ?? null,
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
