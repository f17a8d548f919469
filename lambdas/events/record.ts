import * as z from 'zod/mini';
import { eventSettlement, isTerminalDelivery, SETTLED_STATUSES, settleCheck } from '../domain/event-status';
import { statusAfter } from '../domain/delivery-plan';
import type { DeliveryState } from '../domain/progress';
import { END_REASONS, WAIT_REASONS } from '../domain/progress';
import { ATTEMPT_OUTCOMES, DELIVERY_STATUSES, DIRECTIONS, EVENT_STATUSES } from '../domain/vocabulary';
import { isExpired, keptFromNow, liveItemExpiresAt, settledExpiresAt, sideItemExpiresAt } from '../domain/retention';
import { erasedAttempt, tombstoneOf } from '../domain/erasure';
import { defineEntity, type Key } from '../store/entity';
import { accountPartition } from '../store/keys';
import { batchDelete, batchGet, deleteItem, getRawItem, ITEM_ABSENT, ITEM_EXISTS, putItem, queryAll, updateItem, updateOrSee } from '../store/table';


/** An event as stored, validated on every read: its status item, its body, its attempts. */
const timestamp = z.string();

const deliveryState = z.object({
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.int(),
  next_attempt_at: z.nullable(timestamp),
  claimed_at: z.nullable(timestamp),
  end_reason: z.optional(z.nullable(z.enum(END_REASONS))),
  /** `behind`: the event an `ordering` wait is behind. */
  waiting: z.optional(z.nullable(z.object({ reason: z.enum(WAIT_REASONS), until: z.nullable(timestamp), behind: z.optional(z.string()) }))),
});

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
  /**
   * As of the event's last own write: `queued` (or `accepted`) from its accept until it settles, then
   * final. Readers of an unsettled event add up its deliveries' items (`assemble`).
   */
  status: z.enum(EVENT_STATUSES),
  attempts_count: z.int(),
  created_by: z.string(),
  received_at: timestamp,
  created_at: timestamp,
  /** The plan (every delivery queued) until the event settles, then each delivery's final state. */
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
  /** Its ordering key (lambdas/domain/ordering.ts); absent or null: none. An erasure clears it (it may be payload data). */
  ordering_key: z.optional(z.nullable(z.string())),
  /**
   * The name of its key's lines, when it joined any: the key's HMAC (subject-index.ts `hashOrderingKey`),
   * which outlives an erasure so its deliveries still leave their lines. Absent with `lines`: an event
   * accepted before lines were named so, whose lines are named by `ordering_key`.
   */
  line_key: z.optional(z.string()),
  /** Its place in each ordering line it joined when accepted, by destination (`linesToJoin`): each of those deliveries leaves its line when it ends. */
  lines: z.optional(z.record(z.string(), z.int())),
  /**
   * First tries written with the outcome that settled the event (an only delivery, tried once without
   * a claim: `settleOnlyDelivery`), where no delivery item holds them.
   */
  first_attempts: z.optional(z.array(attemptRecord)),
  /**
   * The HMAC of the data subject the event's payload is about (lambdas/events/subject-index.ts), never
   * the subject itself: a replay's copy is indexed under it too. Absent: no subject given.
   */
  subject_hash: z.optional(z.string()),
  /** An erasure (lambdas/erasures) removed its payload and stored bodies: a tombstone kept for counts and the audit trail. */
  payload_erased: z.optional(z.boolean()),
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
  /**
   * The W3C trace the event belongs to (lambdas/domain/trace-context.ts): its caller's, or one Hookgate
   * started. Absent on events stored before traces were kept.
   */
  trace: z.optional(z.object({ id: z.string(), parent: z.nullable(z.string()), sampled: z.boolean() })),
});
export type EventBodyRecord = z.infer<typeof eventBodyRecord>;

/**
 * A body small enough to ride in its delivery tasks' messages (as stored: gzipped bytes stay gzipped),
 * so a first try reads no body item. Base64 in JSON; a body in S3 never rides (its object is read).
 */
export const carriedBodyRecord = z.extend(z.omit(eventBodyRecord, { body: true, body_ref: true }), { body_base64: z.string() });
export type CarriedBody = z.infer<typeof carriedBodyRecord>;
/** Stored bytes up to this ride in a task's message (a message takes 1 MiB, a batch of ten 1 MiB too). */
export const CARRIED_BODY_MAX_BYTES = 4096;

/** The body as its tasks carry it, or undefined when it stays behind (too large, or in S3). */
export function carriedBodyOf({ body, body_ref: _, ...rest }: EventBodyRecord): CarriedBody | undefined {
  if (!body || body.length > CARRIED_BODY_MAX_BYTES) return undefined;
  return { ...rest, body_base64: Buffer.from(body).toString('base64') };
}

const bodyFromCarried = ({ body_base64, ...rest }: CarriedBody): EventBodyRecord => ({ ...rest, body: Buffer.from(body_base64, 'base64') });


/**
 * One delivery of an event, as its own item once a worker first claims it (until then the plan in the
 * status item is its state). `version` guards its writes; `first_attempt` is its first try, written
 * with that try's outcome: one write where an attempt item of its own would be a second.
 */
const deliveryRecord = z.extend(deliveryState, {
  destination_id: z.string(),
  version: z.int(),
  first_attempt: z.optional(attemptRecord),
  expires_at: z.optional(z.number()),
  /** A give-up mark (`markGaveUp`): the item a first message left when it found no event; the first claim rewrites it. */
  gave_up: z.optional(z.literal(true)),
});
type DeliveryRecord = z.infer<typeof deliveryRecord>;

/** A delivery as a worker read it: `version` 0 when it has no item yet (its state is the plan's). */
export interface StoredDelivery {
  state: DeliveryState;
  version: number;
  first_attempt?: AttemptRecord;
  /** Its TTL as read: a rewrite never moves it earlier (the sweeper may have pushed it out for a long wait). */
  expires_at?: number;
}

/**
 * Events live in their own partitions (one per event) so no account partition takes their writes:
 * the status item, the body beside it, the attempts after it (and replay claims, replay-jobs.ts).
 */
export const eventPartition = (accountId: string, eventId: string) => `${accountPartition(accountId)}#EVT#${eventId}`;
// Sort order within the partition: attempts, body, deliveries, status, tally. Readers take ranges of it.
const STATUS_SK = 'EVENT';
const BODY_SK = 'BODY';
const ATTEMPT_PREFIX = 'ATT#';
const DELIVERY_PREFIX = 'DLV#';
const TALLY_SK = 'TALLY';

/** What an item read from an event's partition is, by its sort key; the literals stay in this module. */
export function eventItemKind(item: Record<string, unknown>): 'status' | 'body' | 'attempt' | 'delivery' | 'other' {
  const sk = String(item.sk);
  if (sk === STATUS_SK) return 'status';
  if (sk === BODY_SK) return 'body';
  if (sk.startsWith(DELIVERY_PREFIX)) return 'delivery';
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

const deliveryEntity = defineEntity({
  name: 'delivery',
  schema: deliveryRecord,
  key: (accountId: string, eventId: string, destinationId: string) => ({ pk: eventPartition(accountId, eventId), sk: `${DELIVERY_PREFIX}${destinationId}` }),
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
  const [bodyItem, statusItem] = newEventItems(event, body);
  await putItem(bodyItem);
  await putItem(statusItem);
}

/** The items `insertEvent` writes, in its order: the body, then the status item. */
export function newEventItems(event: EventRecord, body: EventBodyRecord): [Key & Record<string, unknown>, Key & Record<string, unknown>] {
  return [
    { ...eventBodyEntity.item(body, eventBodyEntity.key(event.account_id, event.id)), expires_at: sideItemExpiresAt(event.received_at, event.retention_days) },
    eventEntity.item(event),
  ];
}

/**
 * A status item past its TTL is out of the window for every reader at once, though DynamoDB deletes
 * it up to two days later (and the local emulator never): the finders treat it as gone.
 */
const liveStatus = (item: Record<string, unknown> | undefined) => (item && !isExpired(item.expires_at, new Date()) ? eventRecord.parse(item) : undefined);

const stateOf = ({ status, attempts, next_attempt_at, claimed_at, end_reason, waiting }: DeliveryRecord): DeliveryState => ({
  status,
  attempts,
  next_attempt_at,
  claimed_at,
  ...(end_reason !== undefined && { end_reason }),
  ...(waiting && { waiting }),
});

/** A delivery's item as a worker holds it: its state, the version its next write is conditioned on, its first try. */
const storedDeliveryOf = (item: DeliveryRecord): StoredDelivery => ({
  state: stateOf(item),
  version: item.version,
  ...(item.first_attempt && { first_attempt: item.first_attempt }),
  ...(item.expires_at !== undefined && { expires_at: item.expires_at }),
});

/**
 * An event as its readers see it. A settled event's status item holds everything; an unsettled one's
 * holds the plan, and each delivery that has an item of its own is as that item says.
 */
function assemble(stored: EventRecord, items: readonly DeliveryRecord[]): EventRecord {
  if (SETTLED_STATUSES.includes(stored.status)) return stored;
  const deliveries = { ...stored.deliveries };
  for (const item of items) if (item.destination_id in deliveries) deliveries[item.destination_id] = stateOf(item);
  const attempts = Object.values(deliveries).reduce((sum, d) => sum + d.attempts, 0);
  return { ...stored, deliveries, status: statusAfter(stored.status, deliveries), attempts_count: attempts };
}

/** `assemble` for a reader that found the items itself (the local runtime's queue restore scans the table). */
export const assembleEvent = (stored: EventRecord, deliveryItems: ReadonlyArray<Record<string, unknown>>) =>
  assemble(stored, deliveryItems.map((item) => deliveryRecord.parse(item)));

/** Items of one event's partition, told apart; the event assembled from its status and delivery items. */
function partsOf(items: ReadonlyArray<Record<string, unknown>>) {
  const stored = liveStatus(items.find((item) => eventItemKind(item) === 'status'));
  const deliveries = items.filter((item) => eventItemKind(item) === 'delivery').map((item) => deliveryRecord.parse(item));
  const bodyItem = items.find((item) => eventItemKind(item) === 'body');
  return { stored, deliveries, event: stored && assemble(stored, deliveries), body: bodyItem && eventBodyRecord.parse(bodyItem) };
}

/** One event's items in a range of its partition, read consistently. */
const readRange = (accountId: string, eventId: string, from: string, to: string) =>
  queryAll({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': eventPartition(accountId, eventId), ':from': from, ':to': to },
    ConsistentRead: true,
  });

/** The event with its deliveries' states (one query of its delivery and status items). */
export async function findEvent(accountId: string, eventId: string): Promise<EventRecord | undefined> {
  return partsOf(await readRange(accountId, eventId, DELIVERY_PREFIX, STATUS_SK)).event;
}

/** The event and its body in one strongly consistent query (body, deliveries and status sort together). */
export async function findEventWithBody(
  accountId: string,
  eventId: string,
): Promise<{ event: EventRecord; body: EventBodyRecord } | undefined> {
  const { event, body } = partsOf(await readRange(accountId, eventId, BODY_SK, STATUS_SK));
  return event && body ? { event, body } : undefined;
}

/** Events read from their status items alone, each unsettled one with its deliveries' states added. */
export async function withDeliveryStates(accountId: string, events: readonly EventRecord[]): Promise<EventRecord[]> {
  const assembled = await Promise.all(
    events.map(async (event) => (SETTLED_STATUSES.includes(event.status) ? event : await findEvent(accountId, event.id))),
  );
  return assembled.filter((event) => event !== undefined);
}

const anyItem = z.record(z.string(), z.unknown());

/**
 * What one delivery task reads, in one consistent request whatever the event's fan-out: the status item
 * as stored (not assembled: the task decides on its own delivery, and settles the event from the
 * stored status), its delivery (undefined: the event plans none to it), and the body unless the task
 * carries it.
 */
export async function findDeliveryContext(
  accountId: string,
  eventId: string,
  destinationId: string,
  carried?: CarriedBody,
): Promise<{ event: EventRecord; body: EventBodyRecord; delivery: StoredDelivery | undefined } | undefined> {
  const keys = [deliveryEntity.key(accountId, eventId, destinationId), statusKey(accountId, eventId)];
  const items = await batchGet(carried ? keys : [eventBodyEntity.key(accountId, eventId), ...keys], anyItem, { consistent: true });
  const parts = partsOf(items);
  const { stored, deliveries } = parts;
  const body = carried ? bodyFromCarried(carried) : parts.body;
  if (!stored || !body) return undefined;
  const item = deliveries[0];
  const planned = stored.deliveries[destinationId];
  const delivery = item
    ? storedDeliveryOf(item)
    : planned && { state: planned, version: 0 };
  return { event: stored, body, delivery };
}

/** Every item stored under one event (status, body, deliveries, attempts), read consistently. */
export const readEventPartition = (accountId: string, eventId: string): Promise<Array<Record<string, unknown>>> =>
  queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': eventPartition(accountId, eventId) },
    ConsistentRead: true,
  });

/**
 * An unsettled event as the retention sweeper ends its deliveries: the status item as stored, each
 * planned delivery as stored (version 0: no item of its own yet, its state the plan's), and every try
 * recorded. One consistent read of its partition; no body needed (past its window plus TTL's margin it
 * may be gone, and the deliveries must still end).
 */
export async function findEventDeliveries(
  accountId: string,
  eventId: string,
): Promise<{ event: EventRecord; deliveries: Record<string, StoredDelivery>; attempts: AttemptRecord[] } | undefined> {
  const items = await readEventPartition(accountId, eventId);
  const { stored, deliveries: own } = partsOf(items);
  if (!stored) return undefined;
  const byId = new Map(own.map((item) => [item.destination_id, storedDeliveryOf(item)]));
  const deliveries = Object.fromEntries(Object.entries(stored.deliveries).map(([id, state]) => [id, byId.get(id) ?? { state, version: 0 }]));
  const attempts = [
    ...items.filter((item) => eventItemKind(item) === 'attempt').map((item) => attemptRecord.parse(item)),
    ...own.flatMap((delivery) => delivery.first_attempt ?? []),
    ...(stored.first_attempts ?? []),
  ];
  return { event: stored, deliveries, attempts };
}

/** Everything stored for one event: its status, body and attempts (oldest first; first tries live in their deliveries' items). */
export async function findEventDetail(accountId: string, eventId: string) {
  const items = await readEventPartition(accountId, eventId);
  const { event, body, deliveries } = partsOf(items);
  if (!event || !body) return undefined;
  const attempts = [
    ...items.filter((item) => eventItemKind(item) === 'attempt').map((item) => attemptRecord.parse(item)),
    ...deliveries.flatMap((delivery) => delivery.first_attempt ?? []),
    ...(event.first_attempts ?? []),
  ].sort((a, b) => (a.attempted_at === b.attempted_at ? a.id.localeCompare(b.id) : a.attempted_at.localeCompare(b.attempted_at)));
  return { event, body, attempts };
}

/**
 * Optimistic concurrency on the status item: `decide` sees the current event as stored and returns the next one
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
    const current = held ?? liveStatus(await getRawItem(statusKey(accountId, eventId)));
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

/** The event a delivery belongs to; with its plan when the caller has it (an only delivery's writes look at the status item). */
type DeliveryOwner = Pick<EventRecord, 'account_id' | 'id' | 'received_at' | 'retention_days'> & { deliveries?: EventRecord['deliveries'] };

const settledMeanwhile = async (event: DeliveryOwner): Promise<boolean> => {
  const current = liveStatus(await getRawItem(statusKey(event.account_id, event.id)));
  return current !== undefined && SETTLED_STATUSES.includes(current.status);
};

async function findDelivery(event: DeliveryOwner, destinationId: string): Promise<StoredDelivery | undefined> {
  const item = await deliveryEntity.find(event.account_id, event.id, destinationId);
  return item && storedDeliveryOf(item);
}

/**
 * Optimistic concurrency on one delivery's item, which its first claim creates: `decide` sees the
 * delivery as stored (first `known`, as the caller read it) and returns its next state, or undefined
 * to leave it. `firstAttempt` is written with the state (the try it settles). Returns the delivery as
 * finally stored, or undefined when its item is gone (retention).
 */
export async function changeDelivery(
  event: DeliveryOwner,
  destinationId: string,
  decide: (current: DeliveryState) => DeliveryState | undefined,
  known: StoredDelivery,
  firstAttempt?: AttemptRecord,
): Promise<{ delivery: StoredDelivery; changed: boolean } | undefined> {
  let held: StoredDelivery | undefined = known;
  for (let round = 0; round < 20; round++) {
    const current = held ?? (await findDelivery(event, destinationId));
    held = undefined;
    if (!current) return undefined;
    const next = decide(current.state);
    if (!next) return { delivery: current, changed: false };
    const first = firstAttempt ?? current.first_attempt;
    const expiresAt = Math.max(liveItemExpiresAt(event.received_at, event.retention_days, new Date()), current.expires_at ?? 0);
    const stored: StoredDelivery = { state: next, version: current.version + 1, ...(first && { first_attempt: first }), expires_at: expiresAt };
    const item = deliveryEntity.item(
      { ...next, destination_id: destinationId, version: stored.version, first_attempt: first, expires_at: expiresAt },
      deliveryEntity.key(event.account_id, event.id, destinationId),
    );
    // The item an only delivery's first write creates: another copy's try may have settled the event in
    // its status item already (`settleOnlyDelivery`), which then decides.
    if (current.version === 0 && event.deliveries && Object.keys(event.deliveries).length === 1 && (await settledMeanwhile(event))) return { delivery: current, changed: false };
    // A keep of the sweeper's since `current` was read moved the TTL past ours without a new version: read again.
    const condition =
      current.version === 0
        ? ITEM_ABSENT
        : { expression: 'version = :v AND (attribute_not_exists(expires_at) OR expires_at <= :ttl)', values: { ':v': current.version, ':ttl': expiresAt } };
    if (await putItem(item, condition)) return { delivery: stored, changed: true };
  }
  throw new Error(`delivery ${event.id}/${destinationId} kept changing under us`);
}

/**
 * Where a first message and its accept meet when the event's write stalls (messages go first: a message
 * can give up on an event its accept then writes). A first message that gives up creates its delivery's
 * item as a mark, only while there is none; false: an item came first (the accept's, below: the event is
 * written). The mark is an untried delivery with an item of its own, so whatever finds the event later
 * claims its try, never sends it unclaimed.
 */
export async function markGaveUp(accountId: string, eventId: string, destinationId: string, now: Date): Promise<boolean> {
  const mark: DeliveryRecord = { status: 'queued', attempts: 0, next_attempt_at: null, claimed_at: null, destination_id: destinationId, version: 1, gave_up: true, expires_at: keptFromNow(now) };
  return deliveryEntity.create(mark, deliveryEntity.key(accountId, eventId, destinationId));
}

/**
 * The other side, for an accept whose write returned when its messages may have given up: each planned
 * delivery's item, as planned, created only while there is none, so that a first message finding the
 * event from now on claims its try (the accept may send it again). Returns the deliveries a mark held:
 * their message gave up, and only they are sent again. Any other item is a message's own work.
 */
export async function writeUntriedDeliveries(event: EventRecord): Promise<string[]> {
  const untried = Object.entries(event.deliveries).filter(([, state]) => !isTerminalDelivery(state.status));
  const expiresAt = liveItemExpiresAt(event.received_at, event.retention_days, new Date());
  const written = await Promise.all(
    untried.map(async ([destinationId, state]) => {
      const { pk, sk, ...attributes } = deliveryEntity.item({ ...state, destination_id: destinationId, version: 1, expires_at: expiresAt }, deliveryEntity.key(event.account_id, event.id, destinationId));
      const outcome = await updateOrSee({ pk, sk }, { set: attributes }, ITEM_ABSENT);
      return !outcome.written && outcome.seen?.gave_up === true ? destinationId : undefined;
    }),
  );
  return written.filter((destinationId) => destinationId !== undefined);
}

/**
 * The outcome of an event's only delivery written into its status item, settling the event in that
 * one write: no delivery item, no settlement after. `decide` sees the delivery as the status item
 * plans it; the event is left as it is (changed: false) when it is settled already, plans more than
 * this delivery, or `decide` declines. `attempt` is the try that ended it. Undefined: the event is gone.
 */
export async function settleOnlyDelivery(
  event: EventRecord,
  destinationId: string,
  decide: (current: DeliveryState) => DeliveryState | undefined,
  attempt: AttemptRecord,
): Promise<{ event: EventRecord; changed: boolean } | undefined> {
  // Another copy of the task (a duplicate message, a re-armed one) may have given the delivery an item
  // of its own meanwhile (its failure, its claim): that item decides, and this try is an attempt of its
  // own. Read just before the write, so only copies finishing within the same moment can still race.
  if (await findDelivery(event, destinationId)) return { event, changed: false };
  return changeEvent(
    event.account_id,
    event.id,
    (current) => {
      const planned = current.deliveries[destinationId];
      if (SETTLED_STATUSES.includes(current.status) || !planned || Object.keys(current.deliveries).length !== 1) return undefined;
      const next = decide(planned);
      const deliveries = next && { [destinationId]: next };
      const settlement = deliveries && eventSettlement([destinationId], deliveries);
      // An erasure that marked the event while the try was on the wire: the try is kept, its answer (which may echo the payload) is not.
      const kept = current.payload_erased ? erasedAttempt(attempt).attempt : attempt;
      return settlement && { ...current, ...settlement, deliveries, first_attempts: [...(current.first_attempts ?? []), kept] };
    },
    event,
  );
}

/**
 * After one of its deliveries ended (or a task found it ended while the event is not settled: the
 * worker that ended it died before this): settles the event if every planned delivery has ended,
 * writing the final states, status and attempt count into the status item (whose TTL then starts).
 * Safe to repeat: a tally counted twice only makes a read that finds an unfinished delivery.
 */
export async function settleEventIfDone(stored: EventRecord): Promise<boolean> {
  if (SETTLED_STATUSES.includes(stored.status)) return false;
  const planned = Object.keys(stored.deliveries);
  const pk = eventPartition(stored.account_id, stored.id);
  if (settleCheck(planned.length) === 'count') {
    const tally = await updateItem(
      { pk, sk: TALLY_SK },
      { add: { done: 1 }, set: { expires_at: liveItemExpiresAt(stored.received_at, stored.retention_days, new Date()) } },
      { returnValues: 'UPDATED_NEW' },
    );
    if (tally === false || Number(tally?.done ?? 0) < planned.length) return false;
  }
  const { stored: current, deliveries } = partsOf(await readRange(stored.account_id, stored.id, DELIVERY_PREFIX, STATUS_SK));
  const byId = new Map(deliveries.map((item) => [item.destination_id, item]));
  const settlement = eventSettlement(planned, Object.fromEntries(byId));
  if (!current || !settlement) return false;
  const final = Object.fromEntries(planned.flatMap((id) => {
    const item = byId.get(id);
    return item ? [[id, stateOf(item)]] : [];
  }));
  const written = await changeEvent(
    stored.account_id,
    stored.id,
    (event) => (SETTLED_STATUSES.includes(event.status) ? undefined : { ...event, ...settlement, deliveries: final }),
    current,
  );
  return written?.changed === true;
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

// An erasure's writes (lambdas/erasures/worker.ts decides when).

/** What erasing one event removes, read before any of it is: what the erasure counts. */
export interface EventErasurePlan {
  /** False: the event is gone (retention) or a tombstone already. */
  live: boolean;
  payloadObject: string | undefined;
  requestBody: boolean;
  responseBodies: number;
}

/** The parts of one event an erasure removes, from one consistent read of its partition. */
export async function planEventErasure(accountId: string, eventId: string): Promise<EventErasurePlan> {
  const items = await readEventPartition(accountId, eventId);
  const { stored, body, deliveries } = partsOf(items);
  const attempts = [
    ...items.filter((item) => eventItemKind(item) === 'attempt').map((item) => attemptRecord.parse(item)),
    ...deliveries.flatMap((delivery) => delivery.first_attempt ?? []),
    ...(stored?.first_attempts ?? []),
  ];
  return {
    live: stored !== undefined && stored.payload_erased !== true,
    payloadObject: body?.body_ref,
    requestBody: body !== undefined && (body.body !== undefined || body.body_ref !== undefined),
    responseBodies: attempts.filter((attempt) => erasedAttempt(attempt).erased).length,
  };
}

/**
 * Turns one event into a tombstone (`tombstoneOf`): its body item keeps its size-free facts (content type, trace)
 * without the bytes, the headers or their hash (a hash of a short payload gives the payload away);
 * every stored response body is emptied; the status item says `payload_erased`, written first so no
 * try starts from an emptied body, and its first tries' bodies are emptied last, so a run that stops
 * part-way is repeated whole by the next. Versioned items are written under their version, so a worker's late
 * write cannot put a body back.
 */
export async function eraseEventParts(accountId: string, eventId: string, deleteObject: (key: string) => Promise<void>): Promise<void> {
  // Marked first: a delivery that reads the event from here on ends untried (payload_erased) instead of
  // sending the body this is about to empty, signed and recorded as delivered.
  await changeEvent(accountId, eventId, (current) => (current.payload_erased ? undefined : tombstoneOf(current)));
  const items = await readEventPartition(accountId, eventId);
  const { body } = partsOf(items);
  if (body?.body_ref) await deleteObject(body.body_ref);
  if (body) {
    await updateItem(
      eventBodyEntity.key(accountId, eventId),
      { set: { body_size: 0, headers: {}, payload_hash: '' }, remove: ['body', 'body_ref', 'body_compression'] },
      { condition: ITEM_EXISTS },
    );
  }
  await eraseResponseBodies(accountId, eventId, items);
}

/**
 * After a try recorded its answer where `eraseEventParts` may have looked already (its attempt item,
 * its delivery's first try): a try on the wire while an erasure ran empties its own response body once
 * the event is a tombstone. The erasure marks the event before it reads the attempts, so either it
 * saw this try's write or this read sees its mark.
 */
export async function eraseLateResponseBodies(accountId: string, eventId: string): Promise<void> {
  if (await isTombstone(accountId, eventId)) await eraseResponseBodies(accountId, eventId, await readEventPartition(accountId, eventId));
}

/** Whether an erasure has marked the event (one consistent read of its status item). */
export const isTombstone = async (accountId: string, eventId: string): Promise<boolean> =>
  liveStatus(await getRawItem(statusKey(accountId, eventId)))?.payload_erased === true;

/** Every stored response body of an event's tries, emptied where it lies: attempt items, delivery items' first tries, the status item's first tries (last). */
async function eraseResponseBodies(accountId: string, eventId: string, items: ReadonlyArray<Record<string, unknown>>): Promise<void> {
  for (const item of items.filter((item) => eventItemKind(item) === 'attempt')) {
    const attempt = attemptRecord.parse(item);
    if (erasedAttempt(attempt).erased) await updateItem({ pk: String(item.pk), sk: String(item.sk) }, { set: { response_body: '' } }, { condition: ITEM_EXISTS });
  }
  for (const item of items.filter((item) => eventItemKind(item) === 'delivery')) await eraseDeliveryFirstAttempt({ pk: String(item.pk), sk: String(item.sk) });
  await changeEvent(accountId, eventId, (current) =>
    current.first_attempts?.some((attempt) => erasedAttempt(attempt).erased)
      ? { ...current, first_attempts: current.first_attempts.map((attempt) => erasedAttempt(attempt).attempt) }
      : undefined,
  );
}

/** Empties a delivery item's first try's response body under the item's version (a worker may be writing it). */
async function eraseDeliveryFirstAttempt(key: Key): Promise<void> {
  for (let round = 0; round < 20; round++) {
    const item = await getRawItem(key);
    if (!item) return;
    const delivery = deliveryRecord.parse(item);
    if (!delivery.first_attempt || !erasedAttempt(delivery.first_attempt).erased) return;
    const written = await updateItem(
      key,
      { set: { first_attempt: erasedAttempt(delivery.first_attempt).attempt, version: delivery.version + 1 } },
      { condition: { expression: 'version = :v', values: { ':v': delivery.version } } },
    );
    if (written !== false) return;
  }
  throw new Error('a delivery kept changing under an erasure');
}
