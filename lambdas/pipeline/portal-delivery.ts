import { invalid } from '../domain/errors';
import { resendVerdict } from '../domain/portal';
import { copyPayload, payloadKey } from '../adapters/payloads';
import { newId } from '../shared/secrets';
import { findEventWithBody } from '../store/events';
import { acceptEvent } from './accept-event';
import { refused, type EventRef, type NotFound, type Refused } from './outcomes';

export type PortalSendOutcome = { kind: 'accepted'; event: EventRef } | NotFound | Refused;

export const TEST_EVENT_TYPE = 'webhook.test';

/**
 * A test event for one endpoint, from the consumer portal: a new outbound event whose only delivery
 * is that endpoint's, whatever its subscriptions, through the same pipeline as every event (signed,
 * retried, logged), so the customer watches a real attempt appear.
 */
export async function sendTestEvent(accountId: string, destinationId: string, now: Date): Promise<EventRef> {
  const payload = { type: TEST_EVENT_TYPE, endpoint_id: destinationId, sent_at: now.toISOString() };
  const accepted = await acceptEvent({
    accountId,
    direction: 'outbound',
    sourceId: null,
    eventType: TEST_EVENT_TYPE,
    externalEventId: null,
    body: Buffer.from(JSON.stringify(payload), 'utf8'),
    contentType: 'application/json',
    headers: {},
    createdBy: 'api',
    onlyDestination: destinationId,
    now,
  });
  if (accepted.duplicate) throw new Error('a test event claims no external id');
  return { id: accepted.event.id, status: accepted.event.status };
}

/**
 * Sends an outbound event again to one endpoint only: a new event (`replay_of` names the original)
 * with the same payload whose one delivery is that endpoint's. Unlike a replay, the original is left
 * as it is: its other endpoints, maybe other customers', are not this customer's to repeat or mark.
 * Only a settled delivery can be resent.
 */
export async function resendToEndpoint(accountId: string, eventId: string, destinationId: string, now: Date): Promise<PortalSendOutcome> {
  const loaded = await findEventWithBody(accountId, eventId);
  if (!loaded || loaded.event.direction !== 'outbound') return { kind: 'not_found' };
  const { event, body } = loaded;
  const verdict = resendVerdict(event.deliveries[destinationId]);
  if (verdict === 'not_found') return { kind: 'not_found' };
  if (verdict === 'not_settled') return refused(invalid('the delivery to this endpoint is still in progress'));
  // Each event owns its payload object, so retention can delete one without breaking the other.
  const storedBody = body.body_ref ? { ...body, body_ref: payloadKey(accountId, newId()) } : body;
  if (body.body_ref && storedBody.body_ref) await copyPayload(body.body_ref, storedBody.body_ref);
  const accepted = await acceptEvent({
    accountId,
    direction: 'outbound',
    sourceId: null,
    eventType: event.event_type,
    externalEventId: event.external_event_id,
    body: Buffer.alloc(0),
    contentType: body.content_type,
    headers: body.headers,
    createdBy: event.created_by,
    replayOf: event.id,
    storedBody,
    onlyDestination: destinationId,
    now,
  });
  if (accepted.duplicate) throw new Error('a resend never claims an external id');
  return { kind: 'accepted', event: { id: accepted.event.id, status: accepted.event.status } };
}
