import { scheduleFor } from '../domain/backoff';
import { invalid } from '../domain/errors';
import { payloadHash } from '../domain/payload-hash';
import { dedupeKeyOf } from '../domain/dedupe';
import { planDeliveries, statusAfter } from '../domain/delivery-plan';
import { isTerminalDelivery } from '../domain/event-status';
import { messagesMayGiveUp } from '../domain/delivery-phases';
import { sideItemExpiresAt } from '../domain/retention';
import { enqueueDeliveries, type DeliveryTask } from '../adapters/delivery-queue';
import { parseJsonPayload } from '../domain/payload-filter';
import { linesToJoin } from '../domain/ordering';
import { joinLines, leaveLines } from '../pipeline/ordering';
import { compactBody, deletePayload, INLINE_BODY_LIMIT_BYTES, payloadKey, putPayload, readStoredBody } from '../adapters/payloads';
import { config } from '../shared/config';
import { log } from '../shared/log';
import { recordIngested } from '../shared/metrics';
import { newId, newTrace } from '../shared/secrets';
import { deleteDedupeIfOwned, holdExternalId } from './dedupe';
import { logCustomerEvent } from './customer-index';
import { hashOrderingKey, indexSubjectEvent } from './subject-index';
import { carriedBodyOf, insertEvent, writeUntriedDeliveries, type CarriedBody, type EventBodyRecord, type EventRecord } from './record';
import { loadCurrentRoutingTable, withDestination, type RoutingTable } from '../store/routing-table';
import type { Direction, EventStatus } from '../domain/vocabulary';
import type { Trace } from '../domain/trace-context';

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
  /** The caller's trace (its `traceparent`); absent: the event starts one. A copy's is in its `storedBody`. */
  trace?: Trace;
  createdBy: string;
  /** The HMAC of the data subject the payload is about (subject-index.ts `hashSubject`); absent: none. */
  subjectHash?: string;
  replayOf?: string;
  /** A copy's webhook id (its chain's first event's); an event that is no copy is its own. */
  webhookId?: string;
  /** The id to store the event under (a bulk replay's copy, whose id its claim fixed); a new one otherwise. */
  id?: string;
  /**
   * Its ordering key (lambdas/domain/ordering.ts): the event joins the end of that key's line at each
   * destination it is planned for that orders per key. Null or absent: none.
   */
  orderingKey?: string | null;
  /** A body already stored (a replay's copy): used as is instead of `body`. */
  storedBody?: EventBodyRecord;
  /**
   * Deliver to this destination only, whatever the routes say (the portal's test event and its
   * resend to one endpoint); nothing is delivered when it is gone, and it is held while it is paused.
   */
  onlyDestination?: string;
  /**
   * A manual action (a replay, the first copy of a bulk replay, a portal resend or test): its
   * deliveries go at once as the probes of open breakers, the best probe there is.
   */
  manual?: boolean;
  /** Where the event's delivery tasks go: the queue, or a batch's `gatheredEnqueue`. Sent before the event is written. */
  enqueue?: TaskSink;
  /** The account's current routing table when the caller has just read it to decide (an operational event): not read twice. */
  routing?: RoutingTable;
  /**
   * Refuse an event whose routes reach more destinations than one event may (`maxFanout`): a publish,
   * whose caller can split it. Otherwise it is planned for the first ones by route age: a provider
   * cannot act on a refusal, so nothing it sends is turned away for the account's own routes.
   */
  refuseOverFanout?: boolean;
  now: Date;
}

/** Takes an accepted event's delivery tasks, by the delay (seconds) they are sent with, and sends them. */
export type TaskSink = (byDelay: ReadonlyMap<number, DeliveryTask[]>) => Promise<void>;

const sendNow: TaskSink = async (byDelay) => {
  await Promise.all([...byDelay].map(([delay, tasks]) => enqueueDeliveries(tasks, delay)));
};

export type AcceptResult =
  /** `beyondLimit`: destinations its routes reached past the fan-out limit, not planned. */
  | { duplicate: false; event: EventRecord; beyondLimit: string[] }
  | { duplicate: true; existingId: string; existingStatus: EventStatus };

/**
 * The one way an event enters the pipeline (ingest, publish, replay), as an outbox: its delivery
 * messages are sent first and its items written second, so every stored event has its messages and
 * nothing has to find it again later. A failure on the way throws (the caller answers 5xx): a message
 * sent for an event that was then not stored finds no event, waits out `missingEventGraceSeconds`,
 * marks its delivery given up and is dropped (lambdas/pipeline/deliver-task.ts). An external id is
 * claimed before anything is sent, so a duplicate never has messages. Without its routes an event
 * cannot be planned, so it is not accepted either.
 */
export async function acceptEvent(input: NewEvent): Promise<AcceptResult> {
  const id = input.id ?? newId();
  const at = input.now.toISOString();
  const loaded = input.routing ?? (await loadCurrentRoutingTable(input.accountId));
  if (!loaded) throw new Error(`account ${input.accountId} has no routing table`);
  // The table holds the destinations routes name; one addressed directly may be named by none.
  const routing = input.onlyDestination === undefined ? loaded : await withDestination(loaded, input.onlyDestination);
  const { deliveries, beyondLimit } = planForEvent(routing, input, await payloadForFilters(routing, input));
  if (beyondLimit.length > 0 && input.refuseOverFanout) {
    throw invalid(`the event reaches ${Object.keys(deliveries).length + beyondLimit.length} destinations; one event may reach at most ${config().maxFanout}`);
  }
  const event: EventRecord = {
    id,
    account_id: input.accountId,
    direction: input.direction,
    source_id: input.sourceId,
    event_type: input.eventType,
    external_event_id: input.externalEventId,
    customer: input.customer,
    status: statusAfter('received', deliveries),
    attempts_count: 0,
    created_by: input.createdBy,
    received_at: at,
    created_at: at,
    deliveries,
    version: 0,
    retention_days: routing.account.retention_days,
    replay_of: input.replayOf ?? null,
    webhook_id: input.webhookId ?? null,
    replayed_by: null,
    dedupe_key: null,
    ...(input.subjectHash !== undefined && { subject_hash: input.subjectHash }),
    // Absent rather than null on unkeyed events: their items are not one byte larger for ordering.
    ...(input.orderingKey && { ordering_key: input.orderingKey }),
  };
  const lined = linesToJoin(input.orderingKey ?? null, deliveries, (destinationId) => routing.destinations.get(destinationId)?.ordering);
  const dedupe = dedupeKeyOf(event);
  event.dedupe_key = dedupe;

  if (dedupe) {
    const holder = await holdExternalId(input.accountId, dedupe, id, sideItemExpiresAt(at, event.retention_days), input.now);
    if (holder) return { duplicate: true, existingId: holder.id, existingStatus: holder.status };
  }

  let stored: EventBodyRecord | undefined;
  /** The event's body, when its write returned past half the grace (`messagesMayGiveUp`). */
  let writtenLate: EventBodyRecord | undefined;
  const enqueue = input.enqueue ?? sendNow;
  const grace = config().missingEventGraceSeconds;
  try {
    // Places first: a task sent below finds its delivery's place in its line.
    if (input.orderingKey && lined.length > 0) {
      event.line_key = await hashOrderingKey(input.accountId, input.orderingKey);
      event.lines = await joinLines(event, event.line_key, lined);
    }
    stored = await storeBody(input, id, event.retention_days);
    const sentAt = Date.now();
    const tasks = tasksOf(event, carriedBodyOf(stored), input.now, sentAt, { manual: input.manual === true });
    if (tasks.size > 0) await enqueue(tasks);
    // A `hookgate listen` session receiving a customer's events is the developer's, never shown in that customer's portal.
    await logCustomerEvent(event, (destinationId) => {
      const destination = routing.destinations.get(destinationId);
      return destination?.listen_session ? undefined : destination?.customer;
    });
    // Its messages give up on it a grace after `sent_at`: an event written later would never be delivered.
    if (messagesMayGiveUp(sentAt, new Date(), grace)) throw new Error('accept too slow: its messages may give up before it is written');
    await indexSubjectEvent(event);
    await insertEvent(event, stored);
    if (tasks.size > 0 && messagesMayGiveUp(sentAt, new Date(), grace)) writtenLate = stored;
  } catch (error) {
    await discardPayload(stored?.body_ref, input.accountId, id);
    await leaveLines(event);
    // Its sender will retry: a claim left on an event that was never stored would hold it off until the grace ends.
    if (dedupe) await deleteDedupeIfOwned(input.accountId, dedupe, id).catch(() => undefined);
    throw error;
  }

  // Outside the try: the event is written, and nothing of it may be discarded now. A write that stalled
  // past half the grace: a message may have given up on it already (it was answered 202 and would never
  // be delivered). Its deliveries get items of their own, and each one a mark shows given up gets a
  // message again; a message that finds the event meanwhile claims its try, as the resend does, so one sends.
  if (writtenLate) {
    const gaveUp = new Set(await writeUntriedDeliveries(event));
    const resend = tasksOf(event, carriedBodyOf(writtenLate), input.now, Date.now(), { manual: input.manual === true, only: gaveUp });
    if (resend.size > 0) await enqueue(resend);
  }
  recordIngested(event.direction);
  return { duplicate: false, event, beyondLimit };
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
    { source_id: input.sourceId, event_type: input.eventType, customer: input.customer, payload, bodySize: input.storedBody?.body_size ?? input.body.length },
    firstTryAt,
    config().maxFanout,
  );
}

async function storeBody(input: NewEvent, eventId: string, retentionDays: number): Promise<EventBodyRecord> {
  if (input.storedBody) return input.storedBody;
  const common = {
    body_size: input.body.length,
    content_type: input.contentType,
    headers: input.headers,
    payload_hash: payloadHash(input.body),
    trace: input.trace ?? newTrace(),
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

/** The first message of each delivery, its body aboard when small; destinations with their own schedule may wait a different time before the first try. */
function tasksOf(event: EventRecord, body: CarriedBody | undefined, now: Date, sentAt: number, { manual, only }: { manual: boolean; only?: ReadonlySet<string> }): Map<number, DeliveryTask[]> {
  const byDelay = new Map<number, DeliveryTask[]>();
  for (const [destination_id, delivery] of Object.entries(event.deliveries)) {
    if (isTerminalDelivery(delivery.status)) continue; // ended at planning: nothing to send
    if (only && !only.has(destination_id)) continue;
    const delay = Math.max(0, Math.round((Date.parse(delivery.next_attempt_at ?? event.created_at) - now.getTime()) / 1000));
    const task: DeliveryTask = { v: 1, account_id: event.account_id, event_id: event.id, destination_id, sent_at: sentAt, ...(manual && { manual: true }), ...(body && { body }) };
    byDelay.set(delay, [...(byDelay.get(delay) ?? []), task]);
  }
  return byDelay;
}

/** SQS takes ten messages per SendMessageBatch. */
const SQS_BATCH = 10;

/**
 * A sink for the accepts of a publish batch, run side by side through `run`: their tasks go out
 * together, one SendMessageBatch per ten tasks rather than one per event. Tasks are sent as soon as
 * ten wait, or when every accept in flight is waiting for its send (none can add more); each accept
 * still waits for its own tasks to be sent before it writes its event.
 */
export function gatheredEnqueue(): { enqueue: TaskSink; run: <T>(work: () => Promise<T>) => Promise<T> } {
  let active = 0;
  let waiting: Array<{ byDelay: ReadonlyMap<number, DeliveryTask[]>; done: (error?: unknown) => void }> = [];
  const flush = () => {
    const taken = waiting;
    waiting = [];
    const merged = new Map<number, DeliveryTask[]>();
    for (const { byDelay } of taken) for (const [delay, tasks] of byDelay) merged.set(delay, [...(merged.get(delay) ?? []), ...tasks]);
    sendNow(merged).then(
      () => taken.forEach((entry) => entry.done()),
      (error: unknown) => taken.forEach((entry) => entry.done(error ?? new Error('enqueue failed'))),
    );
  };
  const check = () => {
    const count = waiting.reduce((sum, entry) => sum + [...entry.byDelay.values()].reduce((n, tasks) => n + tasks.length, 0), 0);
    if (waiting.length > 0 && (count >= SQS_BATCH || waiting.length >= active)) flush();
  };
  return {
    enqueue: (byDelay) =>
      new Promise<void>((resolve, reject) => {
        waiting.push({ byDelay, done: (error) => (error === undefined ? resolve() : reject(error)) });
        check();
      }),
    run: async (work) => {
      active++;
      try {
        return await work();
      } finally {
        active--;
        check();
      }
    },
  };
}
