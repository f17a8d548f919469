import { ConditionalCheckFailedException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { z } from 'zod/mini';
import { config } from '../shared/config';
import { TABLE } from '../shared/resource-definitions';
import { documentClient } from './client';

/**
 * The store's toolkit: the only code in lambdas/ that sends DynamoDB requests (a lint rule holds
 * everything else to it). Item modules say what to read and write; this file says how: the table name,
 * condition failures as return values, one update-expression builder, batches that retry what DynamoDB
 * left unprocessed, and queries page by page.
 */

type Key = { pk: string; sk: string };
type Item = Record<string, unknown>;

const tableName = () => config().tableName;

const [listIndex, workIndex] = TABLE.globalIndexes;
/** The secondary indexes by what they are for (resource-definitions.ts describes each). */
export const INDEX = {
  /** An account's events of one direction, by id (gsi1pk, gsi1sk). */
  list: listIndex.indexName,
  /** Sparse work index of the background jobs (gsi2pk, gsi2sk). */
  work: workIndex.indexName,
} as const;

/**
 * A condition on the item a write touches. `#word` in the expression stands for the attribute `word`
 * unless `names` says otherwise, so reserved words (status) need no hand-written name map.
 */
export interface Condition {
  expression: string;
  values?: Item;
  names?: Record<string, string>;
}

export const ITEM_EXISTS: Condition = { expression: 'attribute_exists(pk)' };
export const ITEM_ABSENT: Condition = { expression: 'attribute_not_exists(pk)' };

/** `field = value` for each entry, joined with AND, as a condition on the attributes `fields` name. */
function attributesEqual(fields: Item): Condition {
  const names: Record<string, string> = {};
  const values: Item = {};
  const clauses = Object.entries(fields).map(([field, value], i) => {
    names[`#w${i}`] = field;
    values[`:w${i}`] = value;
    return `#w${i} = :w${i}`;
  });
  return { expression: clauses.join(' AND '), names, values };
}

/** Both conditions (placeholders must not clash; each builder above uses its own). */
export function allOf(...conditions: Condition[]): Condition {
  const used = conditions.filter((c) => c.expression !== '');
  return {
    expression: used.map((c) => c.expression).join(' AND '),
    names: Object.assign({}, ...used.map((c) => c.names)),
    values: Object.assign({}, ...used.map((c) => c.values)),
  };
}

/** A call whose every try the SDK made was throttled (a hot key, or the table over its capacity). */
export const isThrottled = (error: unknown): boolean =>
  error instanceof Error && (error.name === 'ProvisionedThroughputExceededException' || error.name === 'ThrottlingException' || error.name === 'RequestLimitExceeded');

function isConditionFailure(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error instanceof Error && error.name === 'ConditionalCheckFailedException')
  );
}

/** Runs a conditional request; false when its condition failed, which is an answer, not an error. */
async function unlessConditionFails<T>(request: () => Promise<T>): Promise<T | false> {
  try {
    return await request();
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Placeholders a request's expressions share: they must not clash, or one would silently win. */
class Placeholders {
  readonly names: Record<string, string> = {};
  readonly values: Item = {};

  add(names: Record<string, string> = {}, values: Item = {}): void {
    for (const [token, name] of Object.entries(names)) this.put(this.names, token, name);
    for (const [token, value] of Object.entries(values)) this.put(this.values, token, value);
  }

  condition(condition: Condition | undefined): { ConditionExpression?: string } {
    if (!condition) return {};
    const named = { ...condition.names };
    for (const [token, name] of condition.expression.matchAll(/#(\w+)/g)) named[token] ??= name ?? '';
    this.add(named, condition.values);
    return { ConditionExpression: condition.expression };
  }

  /** The maps, each only when it has entries (DynamoDB refuses empty ones). */
  maps(): { ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Item } {
    return {
      ...(Object.keys(this.names).length > 0 && { ExpressionAttributeNames: this.names }),
      ...(Object.keys(this.values).length > 0 && { ExpressionAttributeValues: this.values }),
    };
  }

  private put<V>(map: Record<string, V>, token: string, value: V): void {
    if (token in map && map[token] !== value) throw new Error(`placeholder ${token} used twice in one request`);
    map[token] = value;
  }
}

/**
 * Resolves when the table answers a read: one eventually consistent read of an item that never
 * exists (the readiness probe), which every function's grants allow.
 */
export async function pingTable(): Promise<void> {
  await documentClient().send(new GetCommand({ TableName: tableName(), Key: { pk: 'HEALTH', sk: 'HEALTH' } }));
}

/** Reads one item and validates it; a stored item that fails its schema is a bug, not a 404. */
export async function getItem<T>(key: Key, schema: z.ZodMiniType<T>, consistent = true): Promise<T | undefined> {
  const item = await getRawItem(key, consistent);
  return item ? schema.parse(item) : undefined;
}

/** One item as stored, for a reader that tells item kinds apart before it validates. */
export async function getRawItem(key: Key, consistent = true): Promise<Item | undefined> {
  const out = await documentClient().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: consistent }));
  return out.Item;
}

/** Puts an item (with `condition`, only while it holds on the item it replaces). False when it did not hold. */
export async function putItem(item: Key & Item, condition?: Condition): Promise<boolean> {
  const placeholders = new Placeholders();
  const conditionExpression = placeholders.condition(condition);
  const written = await unlessConditionFails(() =>
    documentClient().send(new PutCommand({ TableName: tableName(), Item: item, ...conditionExpression, ...placeholders.maps() })),
  );
  return written !== false;
}

/** Puts an item that must not exist yet. Returns false when the key was already taken. */
export const putNew = (item: Key & Item): Promise<boolean> => putItem(item, ITEM_ABSENT);

/**
 * Deletes an item (with `condition`, only while it holds). False when the condition failed; else the
 * item as it was when `returnOld` asks for it (undefined: there was none), undefined otherwise.
 */
export async function deleteItem(key: Key, options: { condition?: Condition; returnOld?: boolean } = {}): Promise<Item | undefined | false> {
  const placeholders = new Placeholders();
  const conditionExpression = placeholders.condition(options.condition);
  const out = await unlessConditionFails(() =>
    documentClient().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: key,
        ...conditionExpression,
        ...placeholders.maps(),
        ...(options.returnOld && { ReturnValues: 'ALL_OLD' as const }),
      }),
    ),
  );
  return out === false ? false : out.Attributes;
}

/** What an update does: attributes to set, to remove, and numbers to add to (created at 0). */
interface Changes {
  set?: Item;
  remove?: string[];
  add?: Record<string, number>;
  /** Values appended to a list attribute (created empty first), in the same atomic write as the rest. */
  append?: Record<string, unknown[]>;
  /** Entries set in map attributes that exist (`{ leases: { [holder]: until } }` sets `leases.holder`). */
  setIn?: Record<string, Item>;
  /** Entries removed from map attributes. */
  removeIn?: Record<string, string[]>;
}

/**
 * Updates an item, creating it unless `condition` says it must exist. False when the condition failed;
 * else the attributes `returnValues` asks for (undefined without it). Every update expression in the
 * store is built here.
 */
export async function updateItem(
  key: Key,
  changes: Changes,
  options: { condition?: Condition; returnValues?: 'ALL_NEW' | 'UPDATED_NEW' | 'ALL_OLD' } = {},
): Promise<Item | undefined | false> {
  const out = await unlessConditionFails(() => documentClient().send(updateCommand(key, changes, options)));
  return out === false ? false : out.Attributes;
}

/**
 * A conditional update that, when its condition fails, says what the item is instead
 * (`ReturnValuesOnConditionCheckFailure`, no read and no extra cost): `seen` is the item as the
 * condition found it, undefined when there is none.
 */
export async function updateOrSee(key: Key, changes: Changes, condition: Condition): Promise<{ written: true } | { written: false; seen: Item | undefined }> {
  try {
    await documentClient().send(updateCommand(key, changes, { condition, returnOnFailure: true }));
    return { written: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const seen = (error as { Item?: Record<string, AttributeValue> }).Item;
    return { written: false, seen: seen && unmarshall(seen) };
  }
}

function updateCommand(
  key: Key,
  changes: Changes,
  options: { condition?: Condition; returnValues?: 'ALL_NEW' | 'UPDATED_NEW' | 'ALL_OLD'; returnOnFailure?: boolean },
): UpdateCommand {
  const placeholders = new Placeholders();
  const clause = (verb: string, parts: string[]) => (parts.length > 0 ? `${verb} ${parts.join(', ')}` : '');
  const sets = Object.entries(changes.set ?? {}).map(([field, value], i) => {
    placeholders.add({ [`#s${i}`]: field }, { [`:s${i}`]: value });
    return `#s${i} = :s${i}`;
  });
  const entrySets = Object.entries(changes.setIn ?? {}).flatMap(([field, entries], i) =>
    Object.entries(entries).map(([entry, value], j) => {
      placeholders.add({ [`#m${i}`]: field, [`#m${i}_${j}`]: entry }, { [`:m${i}_${j}`]: value });
      return `#m${i}.#m${i}_${j} = :m${i}_${j}`;
    }),
  );
  const removes = (changes.remove ?? []).map((field, i) => {
    placeholders.add({ [`#r${i}`]: field });
    return `#r${i}`;
  });
  const entryRemoves = Object.entries(changes.removeIn ?? {}).flatMap(([field, entries], i) =>
    entries.map((entry, j) => {
      placeholders.add({ [`#n${i}`]: field, [`#n${i}_${j}`]: entry });
      return `#n${i}.#n${i}_${j}`;
    }),
  );
  const appends = Object.entries(changes.append ?? {}).map(([field, values], i) => {
    placeholders.add({ [`#l${i}`]: field }, { [`:l${i}`]: values, [`:le${i}`]: [] });
    return `#l${i} = list_append(if_not_exists(#l${i}, :le${i}), :l${i})`;
  });
  const adds = Object.entries(changes.add ?? {}).map(([field, value], i) => {
    placeholders.add({ [`#a${i}`]: field }, { [`:a${i}`]: value });
    return `#a${i} :a${i}`;
  });
  const conditionExpression = placeholders.condition(options.condition);
  return new UpdateCommand({
    TableName: tableName(),
    Key: key,
    UpdateExpression: [clause('SET', [...sets, ...entrySets, ...appends]), clause('REMOVE', [...removes, ...entryRemoves]), clause('ADD', adds)].filter(Boolean).join(' '),
    ...conditionExpression,
    ...placeholders.maps(),
    ...(options.returnValues && { ReturnValues: options.returnValues }),
    ...(options.returnOnFailure && { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const }),
  });
}

/**
 * Sets attributes on an item that must exist (and, with `when`, whose attributes hold those values);
 * returns the item after the update, or undefined when it did not exist or did not hold them (so an
 * update never creates a half item).
 */
export async function updateExisting<T>(
  key: Key,
  changes: Item,
  schema: z.ZodMiniType<T>,
  removals: string[] = [],
  when: Item = {},
): Promise<T | undefined> {
  const updated = await updateItem(key, { set: changes, remove: removals }, { condition: allOf(ITEM_EXISTS, attributesEqual(when)), returnValues: 'ALL_NEW' });
  return updated === false ? undefined : schema.parse(updated);
}

/** A query of the table or of one of its indexes (INDEX), without paging: the helpers below page. */
export type Query = Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit'>;
export type StartKey = Item;

/** One page of a query: at most `limit` items, and where the next page starts (undefined: no more). */
export async function queryPage(query: Query, page: { limit?: number; startKey?: StartKey } = {}): Promise<{ items: Item[]; next: StartKey | undefined }> {
  const out = await documentClient().send(
    new QueryCommand({ ...query, TableName: tableName(), ExclusiveStartKey: page.startKey, Limit: page.limit }),
  );
  return { items: out.Items ?? [], next: out.LastEvaluatedKey };
}

/** Every item a query matches, page after page of `pageSize`, read only as far as the caller iterates. */
export async function* queryEach(query: Query, pageSize?: number): AsyncGenerator<Item> {
  let startKey: StartKey | undefined;
  do {
    const page = await queryPage(query, { limit: pageSize, startKey });
    yield* page.items;
    startKey = page.next;
  } while (startKey);
}

/** How many items a query matches, page after page; only the count comes back (DynamoDB still bills the items read). */
export async function queryCount(query: Query): Promise<number> {
  let count = 0;
  let startKey: StartKey | undefined;
  do {
    const out = await documentClient().send(new QueryCommand({ ...query, TableName: tableName(), ExclusiveStartKey: startKey, Select: 'COUNT' }));
    count += out.Count ?? 0;
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return count;
}

/** Every item a query matches, page after page (or the first `max`), on this table. */
export async function queryAll(query: Query, max = Infinity): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: StartKey | undefined;
  do {
    const page = await queryPage(query, { limit: Number.isFinite(max) ? max - items.length : undefined, startKey });
    items.push(...page.items);
    startKey = page.next;
  } while (startKey && items.length < max);
  return items;
}

/** Items of a partition whose sort key starts with `prefix`, newest first (ids are UUIDv7), up to `max`. */
export async function queryPrefix<T>(pk: string, prefix: string, schema: z.ZodMiniType<T>, max = Infinity): Promise<T[]> {
  const items = await queryAll(
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
      ScanIndexForward: false,
    },
    max,
  );
  return items.map((item) => schema.parse(item));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const BATCH_GET_LIMIT = 100;
const BATCH_WRITE_LIMIT = 25;

/** How a batch retries what DynamoDB left unprocessed: `attempts` requests at most, backing off between. */
interface Retries {
  attempts?: number;
  /** The first wait; each later one doubles it. */
  backoffMs?: number;
}

/**
 * Sends `requests` in chunks of `size`, one chunk after the other, each retried with backoff on what
 * DynamoDB hands back unprocessed; throws when a chunk still has some after the last attempt.
 */
async function inChunks<R>(
  requests: R[],
  size: number,
  { attempts = 5, backoffMs = 25 }: Retries,
  send: (chunk: R[]) => Promise<R[]>,
): Promise<void> {
  for (let start = 0; start < requests.length; start += size) {
    let pending = requests.slice(start, start + size);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === attempts) throw new Error('DynamoDB left requests unprocessed after retries');
      if (attempt > 0) await sleep(backoffMs * 2 ** (attempt - 1));
      pending = await send(pending);
    }
  }
}

/**
 * Reads items by key, 100 per request; missing ones are left out. `projection` reads only those
 * attributes.
 */
export async function batchGet<T>(
  itemKeys: Key[],
  schema: z.ZodMiniType<T>,
  options: { consistent?: boolean; projection?: string[] } & Retries = {},
): Promise<T[]> {
  const found: T[] = [];
  const names = Object.fromEntries((options.projection ?? []).map((field, i) => [`#p${i}`, field]));
  const projection = options.projection && { ProjectionExpression: Object.keys(names).join(', '), ExpressionAttributeNames: names };
  await inChunks(itemKeys, BATCH_GET_LIMIT, options, async (keys) => {
    const out = await documentClient().send(
      new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: keys, ConsistentRead: options.consistent ?? false, ...projection } } }),
    );
    for (const item of out.Responses?.[tableName()] ?? []) found.push(schema.parse(item));
    return (out.UnprocessedKeys?.[tableName()]?.Keys as Key[] | undefined) ?? [];
  });
  return found;
}

/** One write of a batch: an item to put whole, or a key to delete. */
type BatchWrite = { put: Key & Item } | { delete: Key };
type WriteRequest = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: Key } };

/**
 * Puts and deletes, 25 per BatchWriteItem. Not atomic: each write lands on its own, so a caller
 * orders its writes (and its batches) so that any prefix of them is a safe state to stop in.
 */
export async function batchWrite(writes: BatchWrite[], retries: Retries = {}): Promise<void> {
  const requests: WriteRequest[] = writes.map((write) =>
    'put' in write ? { PutRequest: { Item: write.put } } : { DeleteRequest: { Key: { pk: write.delete.pk, sk: write.delete.sk } } },
  );
  await inChunks(requests, BATCH_WRITE_LIMIT, retries, async (chunk) => {
    const out = await documentClient().send(new BatchWriteCommand({ RequestItems: { [tableName()]: chunk } }));
    return (out.UnprocessedItems?.[tableName()] ?? []) as WriteRequest[];
  });
}

/** Deletes items by key, in batches (see batchWrite), retrying unprocessed ones with backoff. */
export const batchDelete = (itemKeys: Key[], retries: Retries = {}) => batchWrite(itemKeys.map((key) => ({ delete: key })), retries);
