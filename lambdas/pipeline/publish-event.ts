import { acceptEvent } from './accept-event';

export interface PublishInput {
  payload: string;
  event_type?: string;
  external_event_id?: string;
}

export type PublishResult =
  | { status: 201; data: { id: string; status: 'queued' } }
  | { status: 200; data: { id: string; status: string; duplicate: true } };

/**
 * An account publishes an event for its own customers: the same pipeline as inbound webhooks, with
 * the payload string as a JSON body. A new event answers `queued` (spec); one that matched no route
 * ends `accepted` at once, as its detail shows. A repeated `external_event_id` answers the first event.
 */
export async function publishEvent(accountId: string, input: PublishInput, now: Date): Promise<PublishResult> {
  const result = await acceptEvent({
    accountId,
    direction: 'outbound',
    sourceId: null,
    eventType: input.event_type ?? null,
    externalEventId: input.external_event_id ?? null,
    body: Buffer.from(input.payload, 'utf8'),
    contentType: 'application/json',
    headers: {},
    createdBy: 'api',
    now,
  });
  if (result.duplicate) {
    return { status: 200, data: { id: result.existingId, status: result.existingStatus, duplicate: true } };
  }
  return { status: 201, data: { id: result.event.id, status: 'queued' } };
}
