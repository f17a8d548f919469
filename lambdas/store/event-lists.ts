import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { TABLE } from '../../lib/resource-definitions';
import { documentClient } from '../adapters/aws-clients';
import { config } from '../shared/config';
import { eventKeys } from './keys';
import { eventRecord } from './records';

/** The fields the list index projects (TABLE.globalIndexes[0]): enough for lists and exports. */
export const eventListItem = z.pick(eventRecord, {
  id: true,
  account_id: true,
  direction: true,
  source_id: true,
  event_type: true,
  external_event_id: true,
  status: true,
  attempts_count: true,
  received_at: true,
  created_at: true,
});
export type EventListItem = z.infer<typeof eventListItem>;

export interface EventListQuery {
  limit: number;
  /** The id of the last event of the previous page. */
  after?: string;
  status?: string;
  event_type?: string;
  source_id?: string;
}

const MAX_PAGES = 25;

/**
 * A page of an account's events of one direction, newest first, from the list index. Filters are
 * applied by DynamoDB after the key range is read, so a sparse filter may read several index pages;
 * the walk is bounded and a cursor is returned wherever it stopped.
 */
export async function listEvents(
  accountId: string,
  direction: 'inbound' | 'outbound',
  query: EventListQuery,
): Promise<{ items: EventListItem[]; nextAfter: string | null }> {
  const listPartition = eventKeys.listPartition(accountId, direction);
  const filters: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':pk': listPartition };
  for (const field of ['status', 'event_type', 'source_id'] as const) {
    const value = query[field];
    if (value === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    filters.push(`#${field} = :${field}`);
  }
  let startKey: Record<string, unknown> | undefined = query.after
    ? { gsi1pk: listPartition, gsi1sk: query.after, ...eventKeys.status(accountId, query.after) }
    : undefined;
  const items: EventListItem[] = [];
  for (let page = 0; page < MAX_PAGES; page++) {
    const input: QueryCommandInput = {
      TableName: config().tableName,
      IndexName: TABLE.globalIndexes[0].indexName,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: values,
      ScanIndexForward: false,
      Limit: query.limit + 1,
      ExclusiveStartKey: startKey,
    };
    if (filters.length) {
      input.FilterExpression = filters.join(' AND ');
      input.ExpressionAttributeNames = names;
    }
    const out = await documentClient().send(new QueryCommand(input));
    for (const raw of out.Items ?? []) {
      items.push(eventListItem.parse(raw));
      if (items.length > query.limit) {
        const page = items.slice(0, query.limit);
        return { items: page, nextAfter: page.at(-1)?.id ?? null };
      }
    }
    startKey = out.LastEvaluatedKey;
    if (!startKey) return { items, nextAfter: null };
  }
  return { items, nextAfter: typeof startKey?.gsi1sk === 'string' ? startKey.gsi1sk : null };
}
