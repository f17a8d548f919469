import * as z from 'zod/mini';
import { defineEntity } from './entity';
import { accountPartition } from './keys';
import { deleteItem, getRawItem, putNew, queryPage, updateItem } from './table';

/**
 * Deliveries parked against their destination while its breaker holds them: one item each, in a
 * partition of the destination's own (never the account partition the routing table is read from),
 * sorted by due time so they are released in that order. No message, timer or read is spent on one
 * while it waits. A count beside them (ADD, so never read before it is written) is what the API
 * shows as `held`.
 */
const heldRecord = z.object({
  event_id: z.string(),
  /** The delivery's due time when it was parked: the release order. */
  due: z.string(),
});
export type HeldDelivery = z.infer<typeof heldRecord>;

const heldPartition = (accountId: string, destinationId: string) => `${accountPartition(accountId)}#HELD#${destinationId}`;
/** Due times are ISO instants (they start with a digit); the count sorts after every one of them. */
const COUNT_SK = '~count';

const heldEntity = defineEntity({
  name: 'held_delivery',
  schema: heldRecord,
  key: (accountId: string, destinationId: string, due: string, eventId: string) => ({ pk: heldPartition(accountId, destinationId), sk: `${due}#${eventId}` }),
});
const countKey = (accountId: string, destinationId: string) => ({ pk: heldPartition(accountId, destinationId), sk: COUNT_SK });

/**
 * Parks a delivery. `expiresAt`: when its event's items expire (the held item goes with them if it is
 * never released). False when it was parked already (a duplicate message): it is counted once.
 */
export async function parkDelivery(accountId: string, destinationId: string, held: HeldDelivery, expiresAt: number): Promise<boolean> {
  const key = heldEntity.key(accountId, destinationId, held.due, held.event_id);
  if (!(await putNew({ ...heldEntity.item(held, key), expires_at: expiresAt }))) return false;
  await updateItem(countKey(accountId, destinationId), { add: { held: 1 } });
  return true;
}

/** The destination's held deliveries due first, at most `limit`, read consistently. */
export async function heldPage(accountId: string, destinationId: string, limit: number): Promise<HeldDelivery[]> {
  const { items } = await queryPage(
    {
      KeyConditionExpression: 'pk = :pk AND sk < :count',
      ExpressionAttributeValues: { ':pk': heldPartition(accountId, destinationId), ':count': COUNT_SK },
      ConsistentRead: true,
    },
    { limit },
  );
  return items.map((item) => heldRecord.parse(item));
}

/** Removes released deliveries (after their messages went out); the count drops by those this call removed. */
export async function unparkDeliveries(accountId: string, destinationId: string, released: readonly HeldDelivery[]): Promise<void> {
  const removed = await Promise.all(
    released.map(async (held) => (await deleteItem(heldEntity.key(accountId, destinationId, held.due, held.event_id), { returnOld: true })) !== undefined),
  );
  const count = removed.filter(Boolean).length;
  if (count > 0) await updateItem(countKey(accountId, destinationId), { add: { held: -count } });
}

/** How many deliveries the destination holds (the count can run a little behind a crash; never below 0). */
export async function heldCount(accountId: string, destinationId: string): Promise<number> {
  const item = await getRawItem(countKey(accountId, destinationId), false);
  return Math.max(0, Number(item?.held ?? 0));
}
