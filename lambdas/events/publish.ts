import { acceptEvent, type TaskSink } from './accept';
import { hashSubject } from './subject-index';
import { acceptedOutcome, type Accepted } from '../domain/outcomes';
import type { Trace } from '../domain/trace-context';

export interface PublishInput {
  payload: string;
  event_type?: string;
  external_event_id?: string;
  /** The customer it is for: only that customer's destinations receive it. */
  customer?: string;
  /** The data subject the payload is about, for erasure; stored only as its HMAC. */
  subject?: string;
  /** Its ordering key: at a `per_key` destination, delivered after every earlier event of the key. */
  ordering_key?: string;
}

/**
 * An account publishes an event for its own customers: the same pipeline as inbound webhooks, with
 * the payload string as a JSON body, addressed to one customer or to none. A repeated
 * `external_event_id` is the first event's duplicate. `trace`: the request's (its `traceparent`); absent,
 * the event starts its own.
 */
export async function publishEvent(
  accountId: string,
  input: PublishInput,
  now: Date,
  { enqueue, trace }: { enqueue?: TaskSink; trace?: Trace } = {},
): Promise<Accepted> {
  const result = await acceptEvent({
    accountId,
    direction: 'outbound',
    sourceId: null,
    eventType: input.event_type ?? null,
    customer: input.customer ?? null,
    ...(input.subject !== undefined && { subjectHash: await hashSubject(accountId, input.subject) }),
    orderingKey: input.ordering_key ?? null,
    externalEventId: input.external_event_id ?? null,
    body: Buffer.from(input.payload, 'utf8'),
    contentType: 'application/json',
    headers: {},
    trace,
    createdBy: 'api',
    refuseOverFanout: true,
    enqueue,
    now,
  });
  return acceptedOutcome(result);
}
