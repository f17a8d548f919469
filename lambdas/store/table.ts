import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type QueryCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { z } from 'zod/mini';
import { documentClient } from '../adapters/aws-clients';
import { config } from '../shared/config';

type Key = { pk: string; sk: string };
type Item = Record<string, unknown>;

const tableName = () => config().tableName;

export function isConditionFailure(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error instanceof Error && error.name === 'ConditionalCheckFailedException')
  );
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
  const out = await documentClient().send(
    new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: consistent }),
  );
  return out.Item ? schema.parse(out.Item) : undefined;
}

/** Puts an item that must not exist yet. Returns false when the key was already taken. */
export async function putNew(item: Key & Item): Promise<boolean> {
  try {
    await documentClient().send(
      new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Puts an item whether or not it exists. */
export async function putItem(item: Key & Item): Promise<void> {
  await documentClient().send(new PutCommand({ TableName: tableName(), Item: item }));
}

export async function deleteItem(key: Key): Promise<void> {
  await documentClient().send(new DeleteCommand({ TableName: tableName(), Key: key }));
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
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const conditions = ['attribute_exists(pk)'];
  Object.entries(when).forEach(([field, value], i) => {
    names[`#w${i}`] = field;
    values[`:w${i}`] = value;
    conditions.push(`#w${i} = :w${i}`);
  });
  Object.entries(changes).forEach(([field, value], i) => {
    names[`#s${i}`] = field;
    values[`:s${i}`] = value;
    sets.push(`#s${i} = :s${i}`);
  });
  const removes = removals.map((field, i) => {
    names[`#r${i}`] = field;
    return `#r${i}`;
  });
  const expression = [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : '']
    .filter(Boolean)
    .join(' ');
  const input: UpdateCommandInput = {
    TableName: tableName(),
    Key: key,
    UpdateExpression: expression,
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ReturnValues: 'ALL_NEW',
  };
  if (Object.keys(values).length) input.ExpressionAttributeValues = values;
  try {
    const out = await documentClient().send(new UpdateCommand(input));
    return schema.parse(out.Attributes);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Every item a query matches, page after page (or the first `max`), on this table. */
export async function queryAll(
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit'>,
  max = Infinity,
): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const out = await documentClient().send(
      new QueryCommand({
        ...input,
        TableName: tableName(),
        ExclusiveStartKey: startKey,
        Limit: Number.isFinite(max) ? max - items.length : undefined,
      }),
    );
    items.push(...(out.Items ?? []));
    startKey = out.LastEvaluatedKey;
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

/** Reads items by key, 100 per request; missing ones are left out. */
export async function batchGet<T>(itemKeys: Key[], schema: z.ZodMiniType<T>, consistent = false): Promise<T[]> {
  const found: T[] = [];
  for (let start = 0; start < itemKeys.length; start += 100) {
    let pending: Key[] = itemKeys.slice(start, start + 100);
    for (let round = 0; pending.length > 0 && round < 5; round++) {
      const out = await documentClient().send(
        new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: consistent } } }),
      );
      for (const item of out.Responses?.[tableName()] ?? []) found.push(schema.parse(item));
      pending = (out.UnprocessedKeys?.[tableName()]?.Keys as Key[] | undefined) ?? [];
    }
    if (pending.length > 0) throw new Error('DynamoDB left keys unprocessed after retries');
  }
  return found;
}
