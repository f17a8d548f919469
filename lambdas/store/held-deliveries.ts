import * as z from 'zod/mini';
import { accountPartition } from './keys';
import { newId } from '../shared/secrets';
import { deleteItem, putItem, queryCount, queryEach, queryPage, updateItem } from './table';

/**
 * Deliveries parked against their destination while something holds them (its open breaker, or the
 * destination being switched off or waiting for its endpoint's proof): one item each, in partitions of the
 * destination's own (never the account partition the routing table is read from), sorted by due time
 * so they are released in that order. No message, timer or read is spent on one while it waits.
 *
 * One partition per destination would be a hot key: a held delivery costs 1 WRU to park and 1 to
 * remove, and one re-opened breaker may park it again: 2-4 WRU per event, up to 4,000 a second on one
 * key at 1,000 events/s against ~1,000 a partition serves. Spread by event id over HELD_SHARDS keys
 * that is at most 4 / 16 = 0.25 WRU per event on a key on average; 16 rather than 8 leaves room for a
 * shard that gets more than its share. There is no count
 * beside them (it would take every park's and release's write on one key): the API counts the items
 * when it is asked.
 */
const HELD_SHARDS = 16;

const heldRecord = z.object({
  event_id: z.string(),
  /** The delivery's due time when it was parked: the release order. */
  due: z.string(),
  /**
   * New at every park: a release deletes only the park it read, so a delivery parked again while its
   * release was under way (its breaker re-opened) stays parked.
   */
  nonce: z.string(),
});
export type HeldDelivery = z.infer<typeof heldRecord>;

const heldBase = (accountId: string, destinationId: string) => `${accountPartition(accountId)}#HELD#${destinationId}`;
/** Event ids end in a random hex digit: one shard each. */
const shardOf = (eventId: string) => parseInt(eventId.slice(-1), 16) % HELD_SHARDS;
const shardPartition = (accountId: string, destinationId: string, shard: number) => `${heldBase(accountId, destinationId)}#${shard}`;
const shards = () => Array.from({ length: HELD_SHARDS }, (_, shard) => shard);

/**
 * A held item as a table scan finds it (the local runtime's queue restore): whose it is, and which
 * event. One from before the shards (no shard in its key) is not one: its delivery is restored a
 * message, which parks it again in its shard.
 */
export function heldItemOf(item: Record<string, unknown>): { accountId: string; destinationId: string; eventId: string } | undefined {
  if (item.entity !== 'held_delivery') return undefined;
  const [accountPart, shardPart = ''] = String(item.pk).split('#HELD#');
  const shardAt = shardPart.lastIndexOf('#');
  if (shardAt < 0) return undefined;
  return { accountId: String(accountPart).slice(accountPartition('').length), destinationId: shardPart.slice(0, shardAt), eventId: String(item.event_id) };
}

const heldKey = (accountId: string, destinationId: string, held: Pick<HeldDelivery, 'due' | 'event_id'>) => ({
  pk: shardPartition(accountId, destinationId, shardOf(held.event_id)),
  sk: `${held.due}#${held.event_id}`,
});

/**
 * Parks a delivery (again, if it is parked: a new nonce, and a claim on the old park dropped). A held
 * item has no TTL: its event is kept as long as it waits (retention's rule 5), and the item goes when
 * a release lets it go or the account ends what the destination holds (`endHeldDeliveries`).
 * Returns the park as written.
 */
export async function parkDelivery(accountId: string, destinationId: string, park: Omit<HeldDelivery, 'nonce'>): Promise<HeldDelivery> {
  const held = { ...park, nonce: newId() };
  await putItem({ ...heldKey(accountId, destinationId, held), entity: 'held_delivery', ...held });
  return held;
}

/**
 * Takes the TTL off a held item that versions before 0.5 parked with its event's: the sweeper's keep of
 * a waiting event calls it for each parked delivery (`due` is the delivery's due time when parked).
 * False when there is no such item.
 */
export async function keepParked(accountId: string, destinationId: string, held: Pick<HeldDelivery, 'due' | 'event_id'>): Promise<boolean> {
  return (await updateItem(heldKey(accountId, destinationId, held), { remove: ['expires_at'] }, { condition: { expression: 'attribute_exists(expires_at)' } })) !== false;
}

const shardQuery = (accountId: string, destinationId: string, shard: number) => ({
  KeyConditionExpression: 'pk = :pk',
  ExpressionAttributeValues: { ':pk': shardPartition(accountId, destinationId, shard) },
  ConsistentRead: true,
});

/**
 * The destination's held deliveries due first, at most `limit`, read consistently: each shard's first
 * `limit` merged by due time (a page is the exact global order; pages are rare, one per release).
 */
export async function heldPage(accountId: string, destinationId: string, limit: number): Promise<HeldDelivery[]> {
  const pages = await Promise.all(shards().map((shard) => queryPage(shardQuery(accountId, destinationId, shard), { limit })));
  const byDue = (a: HeldDelivery, b: HeldDelivery) => (a.due === b.due ? a.event_id.localeCompare(b.event_id) : a.due.localeCompare(b.due));
  return pages
    .flatMap(({ items }) => items.map((item) => heldRecord.parse(item)))
    .sort(byDue)
    .slice(0, limit);
}

/**
 * Held deliveries one shard at a time, each in due order, from `firstShard` on round the shards, read
 * consistently a page at a time, as far as the caller goes (ending what a destination holds walks them all).
 */
export async function* eachHeld(accountId: string, destinationId: string, firstShard: number, pageSize: number): AsyncGenerator<HeldDelivery> {
  for (const offset of shards()) {
    const shard = (firstShard + offset) % HELD_SHARDS;
    for await (const item of queryEach(shardQuery(accountId, destinationId, shard), pageSize)) yield heldRecord.parse(item);
  }
}

/** Removes released parks (after their messages went out), each only if it was not parked again since. */
export async function unparkDeliveries(accountId: string, destinationId: string, released: readonly HeldDelivery[]): Promise<void> {
  await Promise.all(released.map((held) => deleteItem(heldKey(accountId, destinationId, held), { condition: { expression: 'nonce = :nonce', values: { ':nonce': held.nonce } } })));
}

/**
 * How many deliveries the destination holds, counted from the held items themselves (a query of each
 * shard that returns only the count; DynamoDB bills the items it reads, ~1 RCU per 40 held). Only the
 * API asks, so the cost is paid per look, not per park.
 */
export async function heldCount(accountId: string, destinationId: string): Promise<number> {
  const counts = await Promise.all(shards().map((shard) => queryCount(shardQuery(accountId, destinationId, shard))));
  return counts.reduce((sum, n) => sum + n, 0);
}

/**
 * The chain mark a version before 0.5 kept beside a destination's held deliveries (on while its
 * concurrency slots' releases were to hand themselves on to them): deleted once its release pass ran.
 */
export async function forgetChainMark(accountId: string, destinationId: string): Promise<void> {
  await deleteItem({ pk: heldBase(accountId, destinationId), sk: 'CHAIN' });
}
