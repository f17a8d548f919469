import { BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { SETTLED_STATUSES } from '../domain/event-status';
import { progressDueAt } from '../domain/progress';
import { isExpired, settledExpiresAt, sideItemExpiresAt } from '../domain/retention';
import { TABLE } from '../shared/resource-definitions';
import { documentClient } from '../adapters/aws-clients';
import { config } from '../shared/config';
import { ATTEMPT_PREFIX, BODY_SK, eventKeys, listShard, reconcileShard, STATUS_SK } from './keys';
import {
  attemptRecord,
  eventBodyRecord,
  eventRecord,
  type AttemptRecord,
  type EventBodyRecord,
  type EventRecord,
} from './records';
import { isConditionFailure, queryAll } from './table';


const tableName = () => config().tableName;

/** Index and TTL attributes that follow from an event's state; kept in one place so every write agrees. */
function derivedAttributes(event: EventRecord): Record<string, unknown> {
  const attributes: Record<string, unknown> = {
    gsi1pk: eventKeys.listPartition(event.account_id, event.direction, listShard(event.id)),
    gsi1sk: event.id,
  };
  const due = progressDueAt(event.status, event.received_at, event.deliveries);
  if (due && !SETTLED_STATUSES.includes(event.status)) {
    attributes.gsi2pk = eventKeys.reconcilePartition(reconcileShard(event.id));
    attributes.gsi2sk = `${due}#${event.account_id}#${event.id}`;
  }
  if (SETTLED_STATUSES.includes(event.status)) {
    attributes.expires_at = settledExpiresAt(event.received_at, event.retention_days);
  }
  return attributes;
}

function statusItem(event: EventRecord) {
  return { ...eventKeys.status(event.account_id, event.id), entity: 'event', ...event, ...derivedAttributes(event) };
}

/** Writes a new event: its status item and its body item, in one request. */
export async function insertEvent(event: EventRecord, body: EventBodyRecord): Promise<void> {
  const bodyItem = {
    ...eventKeys.body(event.account_id, event.id),
    entity: 'event_body',
    ...body,
    expires_at: sideItemExpiresAt(event.received_at, event.retention_days),
  };
  let pending: Array<{ PutRequest: { Item: Record<string, unknown> } }> = [
    { PutRequest: { Item: statusItem(event) } },
    { PutRequest: { Item: bodyItem } },
  ];
  for (let round = 0; pending.length > 0; round++) {
    if (round === 5) throw new Error('DynamoDB left event writes unprocessed after retries');
    const out = await documentClient().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
    pending = (out.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
    if (pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** round));
  }
}

/** Removes an event that was written but never enqueued (a duplicate that lost the de-duplication race). */
export async function deleteUnqueuedEvent(accountId: string, eventId: string): Promise<void> {
  for (const key of [eventKeys.status(accountId, eventId), eventKeys.body(accountId, eventId)]) {
    await documentClient().send(new DeleteCommand({ TableName: tableName(), Key: key }));
  }
}

/**
 * A status item past its TTL is out of the window for every reader at once, though DynamoDB deletes
 * it up to two days later (and the local emulator never): the finders treat it as gone.
 */
const liveStatus = (item: Record<string, unknown> | undefined) => (item && !isExpired(item.expires_at, new Date()) ? eventRecord.parse(item) : undefined);

export async function findEvent(accountId: string, eventId: string): Promise<EventRecord | undefined> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName(), Key: eventKeys.status(accountId, eventId), ConsistentRead: true }));
  return liveStatus(out.Item);
}

/** The event and its body in one strongly consistent query (the two items sort next to each other). */
export async function findEventWithBody(
  accountId: string,
  eventId: string,
): Promise<{ event: EventRecord; body: EventBodyRecord } | undefined> {
  const out = await documentClient().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :body AND :event',
      ExpressionAttributeValues: { ':pk': eventKeys.partition(accountId, eventId), ':body': BODY_SK, ':event': STATUS_SK },
      ConsistentRead: true,
    }),
  );
  const bodyItem = out.Items?.find((item) => item.sk === BODY_SK);
  const event = liveStatus(out.Items?.find((item) => item.sk === STATUS_SK));
  if (!bodyItem || !event) return undefined;
  return { event, body: eventBodyRecord.parse(bodyItem) };
}

/** Every item stored under one event (status, body, attempts), read consistently. */
export const readEventPartition = (accountId: string, eventId: string): Promise<Array<Record<string, unknown>>> =>
  queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': eventKeys.partition(accountId, eventId) },
    ConsistentRead: true,
  });

/** Everything stored for one event: its status, body and attempts (oldest first). */
export async function findEventDetail(accountId: string, eventId: string) {
  const items = await readEventPartition(accountId, eventId);
  const event = liveStatus(items.find((item) => item.sk === STATUS_SK));
  const bodyItem = items.find((item) => item.sk === BODY_SK);
  if (!event || !bodyItem) return undefined;
  const attempts = items
    .filter((item) => String(item.sk).startsWith(ATTEMPT_PREFIX))
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
    try {
      await documentClient().send(
        new PutCommand({
          TableName: tableName(),
          Item: statusItem(stored),
          ConditionExpression: 'version = :v',
          ExpressionAttributeValues: { ':v': current.version },
        }),
      );
      return { event: stored, changed: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  throw new Error(`event ${eventId} kept changing under us`);
}

export async function insertAttempt(accountId: string, attempt: AttemptRecord, retentionDays: number): Promise<void> {
  await documentClient().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...eventKeys.attempt(accountId, attempt.event_id, attempt.id),
        entity: 'attempt',
        ...attempt,
        expires_at: sideItemExpiresAt(attempt.attempted_at, retentionDays),
      },
    }),
  );
}

/**
 * Up to `max` events that should have shown progress before `cutoff`, from one shard of the work index
 * (gsi2, kept on every write of an unsettled event): the reconciler's reading list.
 */
export async function overdueEvents(shard: number, cutoff: string, max: number): Promise<Array<{ accountId: string; eventId: string }>> {
  const items = await queryAll(
    {
      IndexName: TABLE.globalIndexes[1].indexName,
      KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk < :cutoff',
      ExpressionAttributeValues: { ':pk': eventKeys.reconcilePartition(shard), ':cutoff': cutoff },
    },
    max,
  );
  return items.flatMap((item) => {
    const match = /^ACCT#([^#]+)#EVT#([^#]+)$/.exec(String(item.pk));
    return match?.[1] && match[2] ? [{ accountId: match[1], eventId: match[2] }] : [];
  });
}
