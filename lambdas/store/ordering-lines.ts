import { accountPartition } from './keys';
import { deleteItem, ITEM_EXISTS, putItem, queryPage, updateItem } from './table';

/**
 * Ordering lines (lambdas/domain/ordering.ts): one partition per (destination, ordering key), holding
 * the line's counter and one item per accepted delivery still in the line, sorted by the place the
 * counter gave it when it joined. The counter, not a clock, orders them: two events published one
 * after the other through different function instances (whose clocks differ), or within the same
 * millisecond, still line up in the order they were accepted. The head is the first place.
 *
 * A line takes a key's deliveries one at a time, so its partition sees three writes per delivery of
 * that key (count, join, leave) and a consistent one-item query per try and per release: far below a
 * partition's ~1,000 WCU/s and ~3,000 RCU/s, whatever the rate of all keys together. Every item
 * expires with its event's items (kept with them while the event waits: `keepPlace`); a place whose event was never written (its accept died after the
 * join) is given up by the delivery behind it (lambdas/pipeline/ordering.ts `lineCheck`).
 */

export interface LinePlace {
  accountId: string;
  destinationId: string;
  key: string;
  /** Its place in the line, from the line's counter. */
  place: number;
}

const PLACE_PREFIX = 'P#';
const COUNTER_SK = 'COUNTER';
const linePartition = (accountId: string, destinationId: string, key: string) => `${accountPartition(accountId)}#LINE#${destinationId}#${key}`;
/** Zero-padded, so the sort key orders places as numbers. */
const placeKey = ({ accountId, destinationId, key, place }: LinePlace) => ({
  pk: linePartition(accountId, destinationId, key),
  sk: `${PLACE_PREFIX}${String(place).padStart(15, '0')}`,
});

/** Joins the end of a line at `joinedAt` (epoch ms); `expiresAt`: when its event's items expire. Returns its place. */
export async function joinLine(accountId: string, destinationId: string, key: string, eventId: string, joinedAt: number, expiresAt: number): Promise<number> {
  const counted = await updateItem(
    { pk: linePartition(accountId, destinationId, key), sk: COUNTER_SK },
    { add: { last: 1 }, set: { entity: 'ordering_line_counter', expires_at: expiresAt } },
    { returnValues: 'UPDATED_NEW' },
  );
  const place = Number(counted ? counted.last : NaN);
  if (!Number.isSafeInteger(place)) throw new Error('ordering line counter gave no place');
  await putItem({ ...placeKey({ accountId, destinationId, key, place }), entity: 'ordering_line_place', event_id: eventId, joined_at: joinedAt, expires_at: expiresAt });
  return place;
}

/**
 * Pushes out the TTL of a waiting event's place, and of its line's counter unless a later join gave
 * that a later one: a counter gone while places wait would number the next join from 1 again.
 */
export async function keepPlace(place: LinePlace, expiresAt: number): Promise<void> {
  await updateItem(placeKey(place), { set: { expires_at: expiresAt } }, { condition: ITEM_EXISTS });
  await updateItem(
    { pk: linePartition(place.accountId, place.destinationId, place.key), sk: COUNTER_SK },
    { set: { expires_at: expiresAt } },
    { condition: { expression: 'attribute_exists(pk) AND expires_at < :at', values: { ':at': expiresAt } } },
  );
}

/** Leaves its line (nothing when it left already). */
export async function leaveLine(place: LinePlace): Promise<void> {
  await deleteItem(placeKey(place));
}

/** The head of a line: its event, and its place (to give up one whose event was never written). */
export interface LineHead {
  eventId: string;
  place: LinePlace;
  /** When it joined (epoch ms). */
  joinedAt: number;
}

/** The first `count` places of a line, head first, read consistently; empty when the line is. */
export async function lineFront(accountId: string, destinationId: string, key: string, count: number): Promise<LineHead[]> {
  const { items } = await queryPage(
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :places)',
      ExpressionAttributeValues: { ':pk': linePartition(accountId, destinationId, key), ':places': PLACE_PREFIX },
      ConsistentRead: true,
    },
    { limit: count },
  );
  return items
    .filter((item) => typeof item.event_id === 'string')
    .map((item) => ({
      eventId: String(item.event_id),
      place: { accountId, destinationId, key, place: Number(String(item.sk).slice(PLACE_PREFIX.length)) },
      joinedAt: Number(item.joined_at ?? 0),
    }));
}

/** The head of a line, read consistently; undefined when the line is empty. */
export const lineHead = async (accountId: string, destinationId: string, key: string): Promise<LineHead | undefined> =>
  (await lineFront(accountId, destinationId, key, 1))[0];
