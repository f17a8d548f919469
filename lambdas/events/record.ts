import * as z from 'zod/mini';
import { SETTLED_STATUSES } from '../domain/event-status';
import { END_REASONS } from '../domain/progress';
import { ATTEMPT_OUTCOMES, DELIVERY_STATUSES, DIRECTIONS, EVENT_STATUSES } from '../domain/vocabulary';
import { isExpired, settledExpiresAt, sideItemExpiresAt } from '../domain/retention';
import { defineEntity, type Key } from '../store/entity';
import { accountPartition } from '../store/keys';
import { batchDelete, deleteItem, getRawItem, ITEM_EXISTS, putItem, queryAll, queryPage, updateItem } from '../store/table';


/** An event as stored, validated on every read: its status item, its body, its attempts. */
const timestamp = z.string();

const deliveryState = z.object({
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.int(),
  next_attempt_at: z.nullable(timestamp),
  claimed_at: z.nullable(timestamp),
  end_reason: z.optional(z.nullable(z.enum(END_REASONS))),
});

/** The small, often-updated part of an event. The body lives in its own immutable item. */
export const eventRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  direction: z.enum(DIRECTIONS),
  source_id: z.nullable(z.string()),
  event_type: z.nullable(z.string()),
  external_event_id: z.nullable(z.string()),
  /** The customer an outbound event is addressed to (lambdas/domain/routing.ts `reachesCustomer`); null: none. */
  customer: z._default(z.nullable(z.string()), null),
  status: z.enum(EVENT_STATUSES),
  attempts_count: z.int(),
  created_by: z.string(),
  received_at: timestamp,
  created_at: timestamp,
  deliveries: z.record(z.string(), deliveryState),
  version: z.int(),
  retention_days: z.int(),
  replay_of: z.nullable(z.string()),
  /**
   * The id a replay chain's deliveries carry as `X-Webhook-Id`: its first event's, fixed when the
   * copy is made so delivery never walks the chain. Absent (events stored before it, and every
   * event that is no copy): the event's own id.
   */
  webhook_id: z.optional(z.nullable(z.string())),
  replayed_by: z.nullable(z.string()),
  /** The bulk replay (lambdas/store/replay-jobs.ts) that replayed this event, if one did. */
  replay_job: z.optional(z.nullable(z.string())),
  dedupe_key: z.nullable(z.string()),
});
export type EventRecord = z.infer<typeof eventRecord>;

const eventBodyRecord = z.object({
  body: z.optional(z.custom<Uint8Array>((value) => value instanceof Uint8Array)),
  /** `gzip` when `body` holds the compressed bytes (fewer write units for the same payload). */
  body_compression: z.optional(z.enum(['gzip'])),
  body_ref: z.optional(z.string()),
  body_size: z.int(),
  content_type: z.nullable(z.string()),
  headers: z.record(z.string(), z.string()),
  payload_hash: z.string(),
});
export type EventBodyRecord = z.infer<typeof eventBodyRecord>;

const attemptRecord = z.object({
  id: z.string(),
  event_id: z.string(),
  destination_id: z.string(),
  attempt_number: z.int(),
  outcome: z.enum(ATTEMPT_OUTCOMES),
  response_status: z.nullable(z.int()),
  response_body: z.string(),
  error: z.nullable(z.string()),
  attempted_at: timestamp,
  duration_ms: z.int(),
});
export type AttemptRecord = z.infer<typeof attemptRecord>;

/**
 * Events live in their own partitions (one per event) so no account partition takes their writes:
 * the status item, the body beside it, the attempts after it (and replay claims, replay-jobs.ts).
 */
export const eventPartition = (accountId: string, eventId: string) => `${accountPartition(accountId)}#EVT#${eventId}`;
const STATUS_SK = 'EVENT';
const BODY_SK = 'BODY';
const ATTEMPT_PREFIX = 'ATT#';

/** What an item read from an event's partition is, by its sort key; the literals stay in this module. */
export function eventItemKind(item: Record<string, unknown>): 'status' | 'body' | 'attempt' | 'other' {
  const sk = String(item.sk);
  if (sk === STATUS_SK) return 'status';
  if (sk === BODY_SK) return 'body';
  return sk.startsWith(ATTEMPT_PREFIX) ? 'attempt' : 'other';
}

/** 1,000 webhooks/s for one account is 250 index writes/s per shard, a quarter of a partition's limit. */
export const LIST_SHARDS = 4;

/**
 * List index: an account's events of one direction, in LIST_SHARDS partitions (by the id's last hex
 * digit, which is random in a UUIDv7) so one busy account spreads its index writes; merged on read.
 */
export const listShard = (eventId: string) => parseInt(eventId.slice(-1), 16) % LIST_SHARDS;
export const listPartition = (accountId: string, direction: string, shard: number) =>
  `${accountPartition(accountId)}#EVENTS#${direction}#${shard}`;

/** Index and TTL attributes that follow from an event's state; kept in one place so every write agrees. */
function derivedAttributes(event: EventRecord): Record<string, unknown> {
  const attributes: Record<string, unknown> = {
    gsi1pk: listPartition(event.account_id, event.direction, listShard(event.id)),
    gsi1sk: event.id,
  };
  if (SETTLED_STATUSES.includes(event.status)) {
    attributes.expires_at = settledExpiresAt(event.received_at, event.retention_days);
  }
  return attributes;
}

const statusKey = (accountId: string, eventId: string) => ({ pk: eventPartition(accountId, eventId), sk: STATUS_SK });
/** The small, often rewritten item of an event, and the only one in the list and work indexes. */
export const eventEntity = defineEntity({
  name: 'event',
  schema: eventRecord,
  key: statusKey,
  keyOf: (event: EventRecord) => statusKey(event.account_id, event.id),
  derived: derivedAttributes,
});

/** The immutable body; its TTL follows the event's, which the body does not hold, so writes add it. */
const eventBodyEntity = defineEntity({
  name: 'event_body',
  schema: eventBodyRecord,
  key: (accountId: string, eventId: string) => ({ pk: eventPartition(accountId, eventId), sk: BODY_SK }),
});

/** One delivery try, after the body in the event's partition; its TTL counts from its own time. */
const attemptEntity = defineEntity({
  name: 'attempt',
  schema: attemptRecord,
  key: (accountId: string, eventId: string, attemptId: string) => ({
    pk: eventPartition(accountId, eventId),
    sk: `${ATTEMPT_PREFIX}${attemptId}`,
  }),
});

/**
 * Writes a new event: its body first, then the status item that points at it. Two requests rather
 * than one BatchWriteItem, which is not atomic: under throttling it can keep the status item alone,
 * an event that lists and reads as queued with nothing to deliver. A body written alone is reached by
 * nothing, and its TTL removes it.
 */
export async function insertEvent(event: EventRecord, body: EventBodyRecord): Promise<void> {
  await putItem({
    ...eventBodyEntity.item(body, eventBodyEntity.key(event.account_id, event.id)),
    expires_at: sideItemExpiresAt(event.received_at, event.retention_days),
  });
  await putItem(eventEntity.item(event));
}

/**
 * A status item past its TTL is out of the window for every reader at once, though DynamoDB deletes
 * it up to two days later (and the local emulator never): the finders treat it as gone.
 */
const liveStatus = (item: Record<string, unknown> | undefined) => (item && !isExpired(item.expires_at, new Date()) ? eventRecord.parse(item) : undefined);

export async function findEvent(accountId: string, eventId: string): Promise<EventRecord | undefined> {
  return liveStatus(await getRawItem(statusKey(accountId, eventId)));
}

/** The event and its body in one strongly consistent query (the two items sort next to each other). */
export async function findEventWithBody(
  accountId: string,
  eventId: string,
): Promise<{ event: EventRecord; body: EventBodyRecord } | undefined> {
  const { items } = await queryPage({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :body AND :event',
    ExpressionAttributeValues: { ':pk': eventPartition(accountId, eventId), ':body': BODY_SK, ':event': STATUS_SK },
    ConsistentRead: true,
  });
  const bodyItem = items.find((item) => eventItemKind(item) === 'body');
  const event = liveStatus(items.find((item) => eventItemKind(item) === 'status'));
  if (!bodyItem || !event) return undefined;
  return { event, body: eventBodyRecord.parse(bodyItem) };
}

/** Every item stored under one event (status, body, attempts), read consistently. */
export const readEventPartition = (accountId: string, eventId: string): Promise<Array<Record<string, unknown>>> =>
  queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': eventPartition(accountId, eventId) },
    ConsistentRead: true,
  });

/** Everything stored for one event: its status, body and attempts (oldest first). */
export async function findEventDetail(accountId: string, eventId: string) {
  const items = await readEventPartition(accountId, eventId);
  const event = liveStatus(items.find((item) => eventItemKind(item) === 'status'));
  const bodyItem = items.find((item) => eventItemKind(item) === 'body');
  if (!event || !bodyItem) return undefined;
  const attempts = items
    .filter((item) => eventItemKind(item) === 'attempt')
    .map((item) => attemptRecord.parse(item))
    .sort((a, b) => (a.attempted_at === b.attempted_at ? a.id.localeCompare(b.id) : a.attempted_at.localeCompare(b.attempted_at)));
  return { event, body: eventBodyRecord.parse(bodyItem), attempts };
}

/**
 * Optimistic concurrency on the status item: `decide` sees the current event and returns the next one
 * (or undefined to leave it); the write succeeds only if nobody changed the event in between, else we
 * read again and decide again. Returns the event as finally stored, or undefined if it does not exist.
 */
export async function changeEvent(
  accountId: string,
  eventId: string,
  decide: (current: EventRecord) => EventRecord | undefined,
  /** The event as the caller just read it: the first try writes against it instead of reading again. */
  known?: EventRecord,
): Promise<{ event: EventRecord; changed: boolean } | undefined> {
  let held = known;
  for (let round = 0; round < 20; round++) {
    const current = held ?? (await findEvent(accountId, eventId));
    held = undefined;
    if (!current) return undefined;
    const next = decide(current);
    if (!next) return { event: current, changed: false };
    const stored = { ...next, version: current.version + 1 };
    if (await putItem(eventEntity.item(stored), { expression: 'version = :v', values: { ':v': current.version } })) {
      return { event: stored, changed: true };
    }
  }
  throw new Error(`event ${eventId} kept changing under us`);
}

/**
 * The try of a delivery recorded under `attemptNumber`, if one was: a worker that dies after recording
 * its try and before writing the outcome leaves it, and whoever takes the delivery over settles from it.
 */
export async function findAttempt(accountId: string, eventId: string, destinationId: string, attemptNumber: number): Promise<AttemptRecord | undefined> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :attempts)',
    FilterExpression: 'destination_id = :destination AND attempt_number = :number',
    ExpressionAttributeValues: { ':pk': eventPartition(accountId, eventId), ':attempts': ATTEMPT_PREFIX, ':destination': destinationId, ':number': attemptNumber },
    ConsistentRead: true,
  });
  return items[0] && attemptRecord.parse(items[0]);
}

export async function insertAttempt(accountId: string, attempt: AttemptRecord, retentionDays: number): Promise<void> {
  await putItem({
    ...attemptEntity.item(attempt, attemptEntity.key(accountId, attempt.event_id, attempt.id)),
    expires_at: sideItemExpiresAt(attempt.attempted_at, retentionDays),
  });
}

// The sweeper's writes (pipeline/retention.ts decides; store/retention.ts reads what it decides on).

/**
 * Deletes items of events' partitions other than status items (bodies, attempts, and the replay
 * claims that live beside them), in batches. The sweeper deletes these first and the status item
 * last, so a run that stops part-way leaves an event it will find again; it can afford one more
 * attempt than ingest, which answers a caller.
 */
export const deleteEventSideItems = (keys: Key[]) => batchDelete(keys, { attempts: 6 });

/** Re-times an item of an event's partition, never creating one. False when it is gone. */
export async function setEventItemExpiry(key: Key, expiresAt: number): Promise<boolean> {
  return (await updateItem(key, { set: { expires_at: expiresAt } }, { condition: ITEM_EXISTS })) !== false;
}

/** Points a body item at its payload object's new key (retention moved the object), only while it points at `from`. */
export async function setEventBodyRef(key: Key, from: string, to: string): Promise<boolean> {
  return (await updateItem(key, { set: { body_ref: to } }, { condition: { expression: '#body_ref = :from', values: { ':from': from } } })) !== false;
}

/**
 * Deletes an event's status item, the last item of an event to go, unless it is unsettled (a status
 * read from the eventually consistent index can be stale). True when this call removed it.
 */
export async function deleteSettledStatusItem(accountId: string, eventId: string): Promise<boolean> {
  const values = Object.fromEntries(SETTLED_STATUSES.map((status, i) => [`:s${i}`, status]));
  const removed = await deleteItem(statusKey(accountId, eventId), {
    condition: { expression: `attribute_not_exists(pk) OR #status IN (${Object.keys(values).join(', ')})`, values },
    returnOld: true,
  });
  return removed !== false && removed !== undefined;
}
