import { conflict, invalid } from '../domain/errors';
import { PAYLOAD_ERASED } from '../domain/erasure';
import { resendVerdict } from '../domain/portal';
import { findEventWithBody } from '../events/record';
import { acceptEvent } from '../events/accept';
import { copyEvent } from './replay-event';
import { refused, type EventRef, type NotFound, type Refused } from '../domain/outcomes';

export type PortalSendOutcome = { kind: 'accepted'; event: EventRef } | NotFound | Refused;

const TEST_EVENT_TYPE = 'webhook.test';

/**
 * A test event for one endpoint, from the consumer portal: a new outbound event whose only delivery
 * is that endpoint's, whatever its subscriptions, through the same pipeline as every event (signed,
 * retried, logged), so the customer watches a real attempt appear.
 */
export async function sendTestEvent(accountId: string, endpoint: { id: string; customer: string | null }, now: Date): Promise<EventRef> {
  const payload = { type: TEST_EVENT_TYPE, endpoint_id: endpoint.id, sent_at: now.toISOString() };
  const accepted = await acceptEvent({
    accountId,
    direction: 'outbound',
    sourceId: null,
    eventType: TEST_EVENT_TYPE,
    customer: endpoint.customer,
    externalEventId: null,
    body: Buffer.from(JSON.stringify(payload), 'utf8'),
    contentType: 'application/json',
    headers: {},
    createdBy: 'api',
    onlyDestination: endpoint.id,
    manual: true,
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
  if (loaded.event.payload_erased) return refused(conflict(PAYLOAD_ERASED));
  const verdict = resendVerdict(loaded.event.deliveries[destinationId]);
  if (verdict === 'not_found') return { kind: 'not_found' };
  if (verdict === 'not_settled') return refused(invalid('the delivery to this endpoint is still in progress'));
  const copy = await copyEvent(accountId, loaded, destinationId, now, { manual: true });
  return { kind: 'accepted', event: { id: copy.id, status: copy.status } };
}
