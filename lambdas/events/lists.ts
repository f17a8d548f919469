import * as z from 'zod/mini';
import { SETTLED_STATUSES } from '../domain/event-status';
import { isExpired } from '../domain/retention';
import { eventEntity, findEvent, LIST_SHARDS, listPartition, withDeliveryStates } from './record';
import { eventRecord, type EventRecord } from './record';
import { batchGet, INDEX, queryEach } from '../store/table';
import type { Direction } from '../domain/vocabulary';

/**
 * The list index (INDEX.list) holds an account's events of one direction, spread over
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
  const walk = queryEach(
    {
      IndexName: INDEX.list,
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :low AND :high',
      ExpressionAttributeValues: values,
      ...(filters.length > 0 && { FilterExpression: filters.join(' AND '), ExpressionAttributeNames: names }),
      ScanIndexForward: !range.newestFirst,
    },
    pageSize,
  );
  for await (const item of walk) {
    const { id } = listedId.parse(item);
    if (id === range.after || id === range.below) continue;
    yield { id, item };
  }
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

const listedState = z.extend(z.pick(eventRecord, { id: true, status: true, attempts_count: true }), { expires_at: z.optional(z.number()) });

/**
 * The status items of listed events, consistently: exact statuses, and events past their window left
 * out. An unsettled event's status adds up its deliveries' items, read for it alone.
 */
async function withStatuses(accountId: string, listed: ListedKeys[]): Promise<EventListItem[]> {
  const now = new Date();
  const states = await batchGet(
    listed.map((e) => eventEntity.key(accountId, e.id)),
    listedState,
    { consistent: true, projection: ['id', 'status', 'attempts_count', 'expires_at'] },
  );
  const live = await Promise.all(
    states
      .filter((state) => !isExpired(state.expires_at, now))
      .map(async (state) => (SETTLED_STATUSES.includes(state.status) ? state : await findEvent(accountId, state.id))),
  );
  const found = new Map(live.flatMap((state) => (state ? [[state.id, { status: state.status, attempts_count: state.attempts_count }] as const] : [])));
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
    const found = await batchGet(ids.map((id) => eventEntity.key(accountId, id)), storedStatus, { consistent: true });
    const events = await withDeliveryStates(accountId, found.filter((item) => !isExpired(item.expires_at, now)).map(({ expires_at: _, ...event }) => event));
    const byId = new Map(events.map((event) => [event.id, event]));
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
