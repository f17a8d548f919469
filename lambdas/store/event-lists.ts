import { BatchGetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { TABLE } from '../shared/resource-definitions';
import { isExpired } from '../domain/retention';
import { documentClient } from '../adapters/aws-clients';
import { config } from '../shared/config';
import { eventEntity, LIST_SHARDS, listPartition } from './events';
import { eventRecord, type EventRecord } from './records';
import { batchGet } from './table';
import type { Direction } from '../domain/vocabulary';

/**
 * The list index (TABLE.globalIndexes[0]) holds an account's events of one direction, spread over
 * LIST_SHARDS partitions by id so no account's writes meet one partition's limit, and merged here by
 * id (UUIDv7, so by time). It projects only what never changes after ingest, so a status change writes
 * nothing to it; a page's statuses come from the status items (one consistent BatchGet), which makes
 * them exact and leaves out events past their window.
 */
const listedKeys = z.pick(eventRecord, {
  id: true,
  account_id: true,
  direction: true,
  source_id: true,
  event_type: true,
  external_event_id: true,
  customer: true,
  received_at: true,
  created_at: true,
});
type ListedKeys = z.infer<typeof listedKeys>;

export type EventListItem = ListedKeys & Pick<EventRecord, 'status' | 'attempts_count'>;

export interface ListRange {
  newestFirst: boolean;
  /** The last id already handled: the walk continues past it. */
  after?: string | null;
  /** Inclusive id bounds (from time bounds: `firstIdAt`, `lastIdAt`). */
  from?: string;
  to?: string;
  /** Exclusive upper id bound. */
  below?: string;
  /** Equality filters the index can apply itself (immutable fields only). */
  event_type?: string;
  source_id?: string;
  external_event_id?: string;
  customer?: string;
}

const LIST_INDEX = TABLE.globalIndexes[0].indexName;
const LOWEST = '0';
const HIGHEST = 'g';

const listedId = z.object({ id: z.string() });
/** An index entry: its id, parsed; the rest only by the reader who needs it. */
type Entry = { id: string; item: Record<string, unknown> };

/** One shard's entries in the range, in order, page by page. */
async function* walkShard(accountId: string, direction: Direction, shard: number, range: ListRange, pageSize: number): AsyncGenerator<Entry> {
  let low = range.from ?? LOWEST;
  let high = range.to ?? HIGHEST;
  if (range.below !== undefined && range.below < high) high = range.below;
  // BETWEEN is inclusive, so the `after` entry itself and `below` are skipped below.
  if (range.after) {
    if (range.newestFirst && range.after < high) high = range.after;
    if (!range.newestFirst && range.after > low) low = range.after;
  }
  if (low > high) return;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':pk': listPartition(accountId, direction, shard), ':low': low, ':high': high };
  const filters: string[] = [];
  for (const field of ['event_type', 'source_id', 'external_event_id', 'customer'] as const) {
    if (range[field] === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = range[field];
    filters.push(`#${field} = :${field}`);
  }
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await documentClient().send(
      new QueryCommand({
        TableName: config().tableName,
        IndexName: LIST_INDEX,
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :low AND :high',
        ExpressionAttributeValues: values,
        ...(filters.length > 0 && { FilterExpression: filters.join(' AND '), ExpressionAttributeNames: names }),
        ScanIndexForward: !range.newestFirst,
        Limit: pageSize,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of out.Items ?? []) {
      const { id } = listedId.parse(item);
      if (id === range.after || id === range.below) continue;
      yield { id, item };
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey);
}

/** Every shard's entries merged into one ordered walk (each shard is read only as far as needed). */
export async function* walkListIndex(accountId: string, direction: Direction, range: ListRange, pageSize = 100): AsyncGenerator<Entry> {
  const shards = Array.from({ length: LIST_SHARDS }, (_, shard) => walkShard(accountId, direction, shard, range, pageSize));
  const heads = await Promise.all(shards.map((shard) => shard.next()));
  const before = (a: string, b: string) => (range.newestFirst ? a > b : a < b);
  for (;;) {
    let pick = -1;
    heads.forEach((head, i) => {
      const best = heads[pick];
      if (!head.done && (pick === -1 || (best && !best.done && before(head.value.id, best.value.id)))) pick = i;
    });
    const head = heads[pick];
    if (!head || head.done) return;
    yield head.value;
    heads[pick] = await (shards[pick] as AsyncGenerator<Entry>).next();
  }
}

const listedState = z.pick(eventRecord, { id: true, status: true, attempts_count: true });

/** The status items of listed events, consistently: exact statuses, and events past their window left out. */
async function withStatuses(accountId: string, listed: ListedKeys[]): Promise<EventListItem[]> {
  const found = new Map<string, { status: EventListItem['status']; attempts_count: number }>();
  const table = config().tableName;
  const now = new Date();
  for (let start = 0; start < listed.length; start += 100) {
    let pending: Array<Record<string, unknown>> = listed.slice(start, start + 100).map((e) => eventEntity.key(accountId, e.id));
    for (let round = 0; pending.length > 0; round++) {
      if (round === 5) throw new Error('DynamoDB left keys unprocessed after retries');
      const out = await documentClient().send(
        new BatchGetCommand({
          RequestItems: { [table]: { Keys: pending, ConsistentRead: true, ProjectionExpression: 'id, #s, attempts_count, expires_at', ExpressionAttributeNames: { '#s': 'status' } } },
        }),
      );
      for (const item of out.Responses?.[table] ?? []) {
        if (isExpired(item.expires_at, now)) continue;
        const { id, status, attempts_count } = listedState.parse(item);
        found.set(id, { status, attempts_count });
      }
      pending = (out.UnprocessedKeys?.[table]?.Keys as Array<Record<string, unknown>> | undefined) ?? [];
    }
  }
  return listed.flatMap((e) => {
    const state = found.get(e.id);
    return state ? [{ ...e, ...state }] : [];
  });
}

/** The walk in pages of complete list items (statuses included), optionally one status only. */
export async function* listEventPages(
  accountId: string,
  direction: Direction,
  range: ListRange & { status?: string },
  pageSize = 100,
): AsyncGenerator<{ items: EventListItem[]; lastScanned: string }> {
  let batch: ListedKeys[] = [];
  const flush = async () => {
    const items = (await withStatuses(accountId, batch)).filter((e) => range.status === undefined || e.status === range.status);
    const lastScanned = batch.at(-1)?.id ?? '';
    batch = [];
    return { items, lastScanned };
  };
  for await (const entry of walkListIndex(accountId, direction, range, pageSize)) {
    batch.push(listedKeys.parse(entry.item));
    if (batch.length >= pageSize) yield await flush();
  }
  if (batch.length > 0) yield await flush();
}

const storedStatus = z.extend(eventRecord, { expires_at: z.optional(z.number()) });

/**
 * The walk in pages of whole status items (deliveries included), read consistently, for a job that
 * decides per event (bulk replay); events past their window are left out.
 */
export async function* listEventRecordPages(
  accountId: string,
  direction: Direction,
  range: ListRange,
  pageSize = 100,
): AsyncGenerator<{ events: EventRecord[]; lastScanned: string }> {
  let ids: string[] = [];
  const flush = async () => {
    const now = new Date();
    const found = await batchGet(ids.map((id) => eventEntity.key(accountId, id)), storedStatus, true);
    const byId = new Map(found.filter((item) => !isExpired(item.expires_at, now)).map(({ expires_at: _, ...event }) => [event.id, event]));
    const page = { events: ids.flatMap((id) => byId.get(id) ?? []), lastScanned: ids.at(-1) ?? '' };
    ids = [];
    return page;
  };
  for await (const entry of walkListIndex(accountId, direction, range, pageSize)) {
    ids.push(entry.id);
    if (ids.length >= pageSize) yield await flush();
  }
  if (ids.length > 0) yield await flush();
}

export interface EventListQuery {
  limit: number;
  /** The id of the last event of the previous page. */
  after?: string;
  status?: string;
  event_type?: string;
  source_id?: string;
  external_event_id?: string;
  customer?: string;
  /** Inclusive id bounds (from time bounds). */
  from?: string;
  to?: string;
}

/** Pages walked at most for one answer: a sparse filter returns a cursor rather than reading for ever. */
const MAX_PAGES = 25;

/** A page of an account's events of one direction, newest first. */
export async function listEvents(
  accountId: string,
  direction: Direction,
  query: EventListQuery,
): Promise<{ items: EventListItem[]; nextAfter: string | null }> {
  const items: EventListItem[] = [];
  let pages = 0;
  // A little more than a page per round, so an unfiltered page is usually one round.
  const pageSize = Math.min(query.limit + 1, 100);
  for await (const page of listEventPages(accountId, direction, { newestFirst: true, ...query }, pageSize)) {
    items.push(...page.items);
    if (items.length > query.limit) {
      const shown = items.slice(0, query.limit);
      return { items: shown, nextAfter: shown.at(-1)?.id ?? null };
    }
    if (++pages >= MAX_PAGES) return { items, nextAfter: page.lastScanned };
  }
  return { items, nextAfter: null };
}
