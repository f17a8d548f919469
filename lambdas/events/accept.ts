import { scheduleFor } from '../domain/backoff';
import { payloadHash } from '../domain/payload-hash';
import { dedupeKeyOf } from '../domain/dedupe';
import { planDeliveries, statusAfter } from '../domain/delivery-plan';
import { sideItemExpiresAt } from '../domain/retention';
import { enqueueDeliveries, type DeliveryTask } from '../adapters/delivery-queue';
import { parseJsonPayload } from '../domain/payload-filter';
import { compactBody, deletePayload, INLINE_BODY_LIMIT_BYTES, payloadKey, putPayload, readStoredBody } from '../adapters/payloads';
import { config } from '../shared/config';
import { log } from '../shared/log';
import { recordIngested } from '../shared/metrics';
import { newId } from '../shared/secrets';
import { claimExternalId } from './dedupe';
import { logCustomerEvent } from './customer-index';
import { deleteUnqueuedEvent, findEvent, insertEvent, type EventBodyRecord, type EventRecord } from './record';
import { loadCurrentRoutingTable, type RoutingTable } from '../store/routing-table';
import type { Direction, EventStatus } from '../domain/vocabulary';

export interface NewEvent {
  accountId: string;
  direction: Direction;
  sourceId: string | null;
  eventType: string | null;
  /** The customer an outbound event is addressed to; null: none (every inbound event). */
  customer: string | null;
  externalEventId: string | null;
  body: Buffer;
  contentType: string | null;
  headers: Record<string, string>;
  createdBy: string;
  replayOf?: string;
  /** A copy's webhook id (its chain's first event's); an event that is no copy is its own. */
  webhookId?: string;
  /** The id to store the event under (a bulk replay's copy, whose id its claim fixed); a new one otherwise. */
  id?: string;
  /** A body already stored (a replay's copy): used as is instead of `body`. */
  storedBody?: EventBodyRecord;
  /**
   * Deliver to this destination only, whatever the routes say (the portal's test event and its
   * resend to one endpoint); nothing is delivered when it is inactive or gone.
   */
  onlyDestination?: string;
  /** Where the event's delivery tasks go: the queue now, or a batch's `deferredEnqueue` sent once for all. */
  enqueue?: TaskSink;
  /** The account's current routing table when the caller has just read it to decide (an operational event): not read twice. */
  routing?: RoutingTable;
  now: Date;
}

/** Takes an accepted event's delivery tasks, all due after the same delay. */
export type TaskSink = (tasks: DeliveryTask[], delaySeconds: number) => Promise<void>;

export type AcceptResult =
  | { duplicate: false; event: EventRecord }
  | { duplicate: true; existingId: string; existingStatus: EventStatus };

/** Retention is unknown when routing could not be read; never let TTL take such an event early. */
const UNKNOWN_RETENTION_DAYS = 3650;

/**
 * The one way an event enters the pipeline (ingest, publish, replay): persisted first, then queued.
 * If the routes cannot be read the event is still stored, as `received`, and the reconciler routes it
 * later; if the queue cannot be reached it is stored `queued` and the reconciler sends it later.
 */
export async function acceptEvent(input: NewEvent): Promise<AcceptResult> {
  const id = input.id ?? newId();
  const at = input.now.toISOString();
  const routing =
    input.routing ??
    (await loadCurrentRoutingTable(input.accountId).catch((error: unknown) => {
      log.error('routing table unavailable; event kept as received', { account_id: input.accountId }, error);
      return undefined;
    }));
  const deliveries = routing ? planForEvent(routing, input, await payloadForFilters(routing, input)) : {};
  const event: EventRecord = {
    id,
    account_id: input.accountId,
    direction: input.direction,
    source_id: input.sourceId,
    event_type: input.eventType,
    external_event_id: input.externalEventId,
    customer: input.customer,
    status: routing ? statusAfter('received', deliveries) : 'received',
    attempts_count: 0,
    created_by: input.createdBy,
    received_at: at,
    created_at: at,
    deliveries,
    version: 0,
    retention_days: routing?.account.retention_days ?? UNKNOWN_RETENTION_DAYS,
    replay_of: input.replayOf ?? null,
    webhook_id: input.webhookId ?? null,
    replayed_by: null,
    dedupe_key: null,
  };
  const dedupe = dedupeKeyOf(event);
  event.dedupe_key = dedupe;

  const stored = await storeBody(input, id, event.retention_days);
  try {
    if (routing) await logCustomerEvent(event, (destinationId) => routing.destinations.get(destinationId)?.customer);
    await insertEvent(event, stored);
  } catch (error) {
    await discardPayload(stored.body_ref, input.accountId, id);
    throw error;
  }

  if (dedupe) {
    const holder = await claimExternalId(input.accountId, dedupe, id, sideItemExpiresAt(at, event.retention_days));
    if (holder !== undefined && holder !== id) {
      await deleteUnqueuedEvent(input.accountId, id);
      await discardPayload(stored.body_ref, input.accountId, id);
      const existing = await findEvent(input.accountId, holder);
      return { duplicate: true, existingId: holder, existingStatus: existing?.status ?? 'received' };
    }
  }

  await enqueueNew(event, input.now, input.enqueue ?? enqueueDeliveries);
  recordIngested(event.direction);
  return { duplicate: false, event };
}

/** The JSON body, read only when a route has a payload filter: routes without one never pay for parsing. */
async function payloadForFilters(routing: RoutingTable, input: NewEvent): Promise<{ json: unknown } | undefined> {
  if (input.onlyDestination !== undefined || !routing.routes.some((route) => route.filter)) return undefined;
  return parseJsonPayload(input.storedBody ? await readStoredBody(input.storedBody) : input.body);
}

function planForEvent(routing: RoutingTable, input: NewEvent, payload: { json: unknown } | undefined) {
  const firstTryAt = (destinationId: string) => {
    const firstStep = scheduleFor(routing.destinations.get(destinationId), config().retrySchedule)[0] ?? 0;
    return new Date(input.now.getTime() + firstStep * 1000).toISOString();
  };
  return planDeliveries(
    input.onlyDestination === undefined
      ? routing.routes
      : [{ destination_id: input.onlyDestination, source_id: null, event_type_pattern: null, active: true }],
    (destinationId) => routing.destinations.get(destinationId),
    { source_id: input.sourceId, event_type: input.eventType, customer: input.customer, payload },
    firstTryAt,
  );
}

async function storeBody(input: NewEvent, eventId: string, retentionDays: number): Promise<EventBodyRecord> {
  if (input.storedBody) return input.storedBody;
  const common = {
    body_size: input.body.length,
    content_type: input.contentType,
    headers: input.headers,
    payload_hash: payloadHash(input.body),
  };
  if (input.body.length <= INLINE_BODY_LIMIT_BYTES) return { ...common, ...compactBody(input.body) };
  const key = payloadKey(input.accountId, eventId, retentionDays);
  await putPayload(key, input.body, input.contentType);
  return { ...common, body_ref: key };
}

/**
 * Deletes the payload object of an event that was never stored (or lost the de-duplication race): no
 * retention run would ever find it. Failing here must not hide the answer; the bucket's lifecycle
 * rule takes what is left.
 */
async function discardPayload(key: string | undefined, accountId: string, eventId: string): Promise<void> {
  if (!key) return;
  try {
    await deletePayload(key);
  } catch (error) {
    log.error('payload of an unstored event left behind; the lifecycle rule will remove it', { account_id: accountId, event_id: eventId }, error);
  }
}

async function enqueueNew(event: EventRecord, now: Date, enqueue: TaskSink): Promise<void> {
  // Destinations with their own schedule may wait a different time before the first try: one send per delay.
  const byDelay = new Map<number, DeliveryTask[]>();
  for (const [destination_id, delivery] of Object.entries(event.deliveries)) {
    const delay = Math.max(0, Math.round((Date.parse(delivery.next_attempt_at ?? event.created_at) - now.getTime()) / 1000));
    byDelay.set(delay, [...(byDelay.get(delay) ?? []), { v: 1, account_id: event.account_id, event_id: event.id, destination_id }]);
  }
  try {
    for (const [delay, tasks] of byDelay) await enqueue(tasks, delay);
  } catch (error) {
    // The event is persisted and `queued`: the reconciler finds it past the grace period and resends.
    log.error('enqueue failed; the reconciler will resend', { account_id: event.account_id, event_id: event.id }, error);
  }
}

/**
 * Delivery tasks of many events (a publish batch) gathered and sent together at the end: one
 * SendMessageBatch per ten tasks rather than one per event. Each event is persisted `queued` before
 * its tasks are gathered, so a process that dies before `send` loses nothing: the reconciler resends.
 */
export function deferredEnqueue(): { enqueue: TaskSink; send: () => Promise<void> } {
  const byDelay = new Map<number, DeliveryTask[]>();
  return {
    enqueue: async (tasks, delaySeconds) => {
      byDelay.set(delaySeconds, [...(byDelay.get(delaySeconds) ?? []), ...tasks]);
    },
    send: async () => {
      for (const [delay, tasks] of byDelay) {
        try {
          await enqueueDeliveries(tasks, delay);
        } catch (error) {
          log.error('batch enqueue failed; the reconciler will resend', { tasks: tasks.length }, error);
        }
      }
      byDelay.clear();
    },
  };
}
