import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { TABLE } from '../shared/resource-definitions';
import { EVENT_STATUSES, SETTLED_STATUSES, type EventStatus } from '../domain/event-status';
import { documentClient } from '../adapters/aws-clients';
import { config } from '../shared/config';
import { eventEntity, eventItemKind, readEventPartition as readStoredEvent } from './events';
import { walkListIndex, type Direction } from './event-lists';
import { accountEntity, ACCOUNTS_WORK_PARTITION } from '../accounts/record';
import { dedupeEntity } from './dedupe';
import { defineEntity, type Key } from './entity';
import { eventRecord, type EventRecord } from './records';
import { isConditionFailure } from './table';

/**
 * Key queries and deletes for the retention sweeper. Everything here is idempotent: deleting what is
 * already gone, or rewriting a TTL to the value it already has, is harmless, so a run that stopped
 * half-way can simply be repeated.
 */
type Item = Record<string, unknown>;
export type { Direction };

const tableName = () => config().tableName;
const WORK_INDEX = TABLE.globalIndexes[1].indexName;
const BATCH_WRITE_LIMIT = 25;
const BATCH_WRITE_ROUNDS = 6;

// ---------------------------------------------------------------------------------------------------
// Accounts

/** Account ids in id order, strictly after `after`, one index page at a time. */
export async function* accountIdsAfter(after: string | undefined, pageSize = 100): AsyncGenerator<string> {
  let startKey: Item | undefined;
  do {
    const out = await documentClient().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: WORK_INDEX,
        KeyConditionExpression: after ? 'gsi2pk = :pk AND gsi2sk > :after' : 'gsi2pk = :pk',
        ExpressionAttributeValues: after ? { ':pk': ACCOUNTS_WORK_PARTITION, ':after': after } : { ':pk': ACCOUNTS_WORK_PARTITION },
        Limit: pageSize,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of out.Items ?? []) {
      if (typeof item.gsi2sk === 'string') yield item.gsi2sk;
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey);
}

const accountRetention = z.object({
  retention_days: z.int(),
  /** The window the account's TTLs were last written for; absent on accounts older than the sweeper. */
  ttl_retention_days: z.optional(z.int()),
});
export type AccountRetention = z.infer<typeof accountRetention>;

export async function readAccountRetention(accountId: string): Promise<AccountRetention | undefined> {
  const out = await documentClient().send(
    new GetCommand({ TableName: tableName(), Key: accountEntity.key(accountId), ConsistentRead: true }),
  );
  return out.Item ? accountRetention.parse(out.Item) : undefined;
}

/**
 * Records that the account's TTLs now follow `days`; only if the account still has that window, so a
 * plan change that landed during the resync leaves the account marked for another one.
 */
export async function recordTtlWindow(accountId: string, days: number): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: accountEntity.key(accountId),
        UpdateExpression: 'SET ttl_retention_days = :days',
        ConditionExpression: 'retention_days = :days',
        ExpressionAttributeValues: { ':days': days },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------------
// Events of one account (list index)

/**
 * One page of an account's events of one direction from the list index, OLDEST first, strictly after
 * the event `after` and (when `before` is given) with ids strictly below it, ids only: the sweeper reads
 * each event's partition before it touches it anyway. `before` goes into the key condition, so only old
 * entries are ever read. `next` is the id to continue after, if there is more.
 */
export async function listEventsOldestFirst(
  accountId: string,
  direction: Direction,
  options: { before?: string; after?: string | null; limit: number },
): Promise<{ items: Array<{ id: string }>; next: string | undefined }> {
  const items: Array<{ id: string }> = [];
  const walk = walkListIndex(accountId, direction, { newestFirst: false, after: options.after, below: options.before }, options.limit + 1);
  for await (const listed of walk) {
    if (items.length === options.limit) return { items, next: items.at(-1)?.id };
    items.push({ id: listed.id });
  }
  return { items, next: undefined };
}

/** An item stored beside an event's status item; its key stays opaque outside the store. */
export interface SideItem {
  readonly ref: SideItemRef;
  /** When its TTL counts from: an attempt's time, or null for the event's receipt (body, replay claims). */
  readonly countsFrom: string | null;
  readonly expiresAt: number | undefined;
}
declare const sideItemBrand: unique symbol;
export type SideItemRef = { readonly [sideItemBrand]: true };
const refOf = (key: Key) => key as unknown as SideItemRef;
const keyOf = (ref: SideItemRef) => ref as unknown as Key;

/** What the sweeper needs of one event's partition, read consistently. */
export interface StoredEventParts {
  /** The status item, undefined when it is gone (a sweep that stopped between deletes left the rest). */
  status: { status: EventStatus; dedupe_key: string | null } | 'unreadable' | undefined;
  /** The whole event, when its status item is a valid one. */
  event: EventRecord | undefined;
  payloadRef: string | undefined;
  attempts: number;
  /** Everything but the status item: body, attempts, replay claims. */
  sideItems: SideItem[];
}

const sweptStatus = z.object({ status: z.enum(EVENT_STATUSES), dedupe_key: z.optional(z.nullable(z.string())) });
const storedSide = z.object({ pk: z.string(), sk: z.string(), body_ref: z.optional(z.string()), attempted_at: z.optional(z.string()), expires_at: z.optional(z.number()) });

export async function readEventParts(accountId: string, eventId: string): Promise<StoredEventParts> {
  const items = await readStoredEvent(accountId, eventId);
  const statusItem = items.find((item) => eventItemKind(item) === 'status');
  const loose = statusItem === undefined ? undefined : sweptStatus.safeParse(statusItem);
  const event = statusItem === undefined ? undefined : eventRecord.safeParse(statusItem);
  const sides = items.filter((item) => eventItemKind(item) !== 'status').map((item) => storedSide.parse(item));
  return {
    status: loose === undefined ? undefined : loose.success ? { status: loose.data.status, dedupe_key: loose.data.dedupe_key ?? null } : 'unreadable',
    event: event?.success ? event.data : undefined,
    payloadRef: sides.find((item) => eventItemKind(item) === 'body')?.body_ref,
    attempts: sides.filter((item) => eventItemKind(item) === 'attempt').length,
    sideItems: sides.map((item) => ({
      ref: refOf({ pk: item.pk, sk: item.sk }),
      countsFrom: eventItemKind(item) === 'attempt' ? (item.attempted_at ?? null) : null,
      expiresAt: item.expires_at,
    })),
  };
}

export const deleteSideItems = (items: readonly SideItem[]) => batchDeleteKeys(items.map((item) => keyOf(item.ref)));

export const setSideItemExpiry = (item: SideItem, expiresAt: number) => setExpiresAt(keyOf(item.ref), expiresAt);

/** Re-times an event's de-duplication item, only while it still names this event. */
export const setDedupeExpiry = (accountId: string, dedupeKey: string, eventId: string, expiresAt: number) =>
  setExpiresAt(dedupeEntity.key(accountId, dedupeKey), expiresAt, eventId);

// ---------------------------------------------------------------------------------------------------
// Deletes

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Deletes items by key, 25 per BatchWriteItem, retrying unprocessed ones with backoff. */
export async function batchDeleteKeys(itemKeys: Key[], backoffMs = 25): Promise<void> {
  for (let start = 0; start < itemKeys.length; start += BATCH_WRITE_LIMIT) {
    let pending = itemKeys
      .slice(start, start + BATCH_WRITE_LIMIT)
      .map((key) => ({ DeleteRequest: { Key: { pk: key.pk, sk: key.sk } } }));
    for (let round = 0; pending.length > 0; round++) {
      if (round === BATCH_WRITE_ROUNDS) throw new Error('DynamoDB left deletes unprocessed after retries');
      if (round > 0) await sleep(backoffMs * 2 ** (round - 1));
      const out = await documentClient().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = (out.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
    }
  }
}

/**
 * Deletes an event's status item, the last item of an event to go, unless it is unsettled (a status
 * read from the eventually consistent index can be stale). True when this call removed it.
 */
export async function deleteSettledStatusItem(accountId: string, eventId: string): Promise<boolean> {
  const names: Record<string, string> = { '#status': 'status' };
  const values: Item = {};
  SETTLED_STATUSES.forEach((status, i) => (values[`:s${i}`] = status));
  try {
    const out = await documentClient().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: eventEntity.key(accountId, eventId),
        ConditionExpression: `attribute_not_exists(pk) OR #status IN (${Object.keys(values).join(', ')})`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_OLD',
      }),
    );
    return out.Attributes !== undefined;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Deletes a de-duplication item only while it still names this event (the id may have been claimed again). */
export async function deleteDedupeIfOwned(accountId: string, dedupeKey: string, eventId: string): Promise<void> {
  try {
    await documentClient().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: dedupeEntity.key(accountId, dedupeKey),
        ConditionExpression: 'event_id = :id',
        ExpressionAttributeValues: { ':id': eventId },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

// ---------------------------------------------------------------------------------------------------
// TTL rewrites

/**
 * Sets `expires_at` on an existing item (never creates one). `ownerEventId` adds a condition that the
 * item still belongs to that event (for de-duplication items). False when the condition failed.
 */
async function setExpiresAt(key: Key, expiresAt: number, ownerEventId?: string): Promise<boolean> {
  const values: Item = { ':e': expiresAt };
  let condition = 'attribute_exists(pk)';
  if (ownerEventId !== undefined) {
    condition += ' AND event_id = :id';
    values[':id'] = ownerEventId;
  }
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: key.pk, sk: key.sk },
        UpdateExpression: 'SET expires_at = :e',
        ConditionExpression: condition,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------------
// Checkpoint

/** Where a run that ran out of time stopped: one item, which only the sweeper reads or writes. */
export const SWEEPER_CHECKPOINT_KEY = { pk: 'SWEEPER', sk: 'CHECKPOINT' } as const;

export const sweepCursor = z.object({
  account_id: z.string(),
  phase: z.enum(['delete', 'resync']),
  direction: z.enum(['inbound', 'outbound']),
  /** The last event handled in this phase and direction; null to start at the oldest. */
  after: z.nullable(z.string()),
  /** The account's retention when the cursor was written; a different window restarts the account. */
  retention_days: z.int(),
});
export type SweepCursor = z.infer<typeof sweepCursor>;

export const sweepCheckpoint = z.object({
  /** The last account that was fully swept in the current pass; null before the first. */
  last_account_id: z.nullable(z.string()),
  /** Position inside the account after `last_account_id`, when the run stopped part-way through it. */
  cursor: z.optional(z.nullable(sweepCursor)),
  updated_at: z.string(),
});
export type SweepCheckpoint = z.infer<typeof sweepCheckpoint>;

const checkpointEntity = defineEntity({
  name: 'sweeper_checkpoint',
  schema: sweepCheckpoint,
  key: () => SWEEPER_CHECKPOINT_KEY,
  keyOf: () => SWEEPER_CHECKPOINT_KEY,
});

export const readCheckpoint = (): Promise<SweepCheckpoint | undefined> => checkpointEntity.find();

export async function writeCheckpoint(checkpoint: SweepCheckpoint): Promise<void> {
  await documentClient().send(new PutCommand({ TableName: tableName(), Item: checkpointEntity.item({ ...checkpoint, cursor: checkpoint.cursor ?? null }) }));
}

export const clearCheckpoint = (): Promise<void> => checkpointEntity.remove();
