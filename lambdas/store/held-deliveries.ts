import * as z from 'zod/mini';
import { accountPartition } from './keys';
import { newId } from '../shared/secrets';
import { deleteItem, getRawItem, queryEach, queryPage, updateItem } from './table';

/**
 * Deliveries parked against their destination while something holds them (its open breaker, its
 * `max_in_flight` cap, or the destination being switched off): one item each, in a
 * partition of the destination's own (never the account partition the routing table is read from),
 * sorted by due time so they are released in that order. No message, timer or read is spent on one
 * while it waits. A count beside them (ADD, so never read before it is written) is what the API
 * shows as `held`.
 */
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

const heldPartition = (accountId: string, destinationId: string) => `${accountPartition(accountId)}#HELD#${destinationId}`;

/** A held item as a table scan finds it (the local runtime's queue restore): whose it is, and which event. */
export function heldItemOf(item: Record<string, unknown>): { accountId: string; destinationId: string; eventId: string } | undefined {
  if (item.entity !== 'held_delivery') return undefined;
  const [accountPart, destinationId] = String(item.pk).split('#HELD#');
  return { accountId: String(accountPart).slice(accountPartition('').length), destinationId: String(destinationId), eventId: String(item.event_id) };
}
/** Due times are ISO instants (they start with a digit); the count sorts after every one of them. */
const COUNT_SK = '~count';

const heldKey = (accountId: string, destinationId: string, held: Pick<HeldDelivery, 'due' | 'event_id'>) => ({
  pk: heldPartition(accountId, destinationId),
  sk: `${held.due}#${held.event_id}`,
});
const countKey = (accountId: string, destinationId: string) => ({ pk: heldPartition(accountId, destinationId), sk: COUNT_SK });

/**
 * Parks a delivery (again, if it is parked: a new nonce, counted once). `expiresAt`: when its event's
 * items expire (the held item goes with them if it is never released). Returns the park as written.
 */
export async function parkDelivery(accountId: string, destinationId: string, park: Omit<HeldDelivery, 'nonce'>, expiresAt: number): Promise<HeldDelivery> {
  const held = { ...park, nonce: newId() };
  const old = await updateItem(heldKey(accountId, destinationId, held), { set: { entity: 'held_delivery', ...held, expires_at: expiresAt }, remove: ['releasing'] }, { returnValues: 'ALL_OLD' });
  if (!old) await updateItem(countKey(accountId, destinationId), { add: { held: 1 } });
  return held;
}

const heldQuery = (accountId: string, destinationId: string) => ({
  KeyConditionExpression: 'pk = :pk AND sk < :count',
  ExpressionAttributeValues: { ':pk': heldPartition(accountId, destinationId), ':count': COUNT_SK },
  ConsistentRead: true,
});

/** The destination's held deliveries due first, at most `limit`, read consistently. */
export async function heldPage(accountId: string, destinationId: string, limit: number): Promise<HeldDelivery[]> {
  const { items } = await queryPage(heldQuery(accountId, destinationId), { limit });
  return items.map((item) => heldRecord.parse(item));
}

/** Every held delivery of the destination in due order, read consistently a page at a time, as far as the caller goes. */
export async function* eachHeld(accountId: string, destinationId: string, pageSize: number): AsyncGenerator<HeldDelivery> {
  for await (const item of queryEach(heldQuery(accountId, destinationId), pageSize)) yield heldRecord.parse(item);
}

/** A claim to let a held delivery go that is older than this was its releaser's last act (it died): another may take it. */
const RELEASE_CLAIM_MS = 60_000;

/**
 * Takes a held delivery to let it go: deliveries let go one at a time from many workers at once (a
 * concurrency slot's release) could otherwise each send the one due first. False when another
 * release has it, or it was parked again since it was read.
 */
export async function claimRelease(accountId: string, destinationId: string, held: HeldDelivery, now: Date): Promise<boolean> {
  const claimed = await updateItem(
    heldKey(accountId, destinationId, held),
    { set: { releasing: now.getTime() } },
    {
      condition: {
        expression: 'nonce = :nonce AND (attribute_not_exists(releasing) OR releasing < :stale)',
        values: { ':nonce': held.nonce, ':stale': now.getTime() - RELEASE_CLAIM_MS },
      },
    },
  );
  return claimed !== false;
}

/** Removes released parks (after their messages went out), each only if it was not parked again since; the count drops by those removed. */
export async function unparkDeliveries(accountId: string, destinationId: string, released: readonly HeldDelivery[]): Promise<void> {
  const removed = await Promise.all(
    released.map(async (held) => {
      const gone = await deleteItem(heldKey(accountId, destinationId, held), { condition: { expression: 'nonce = :nonce', values: { ':nonce': held.nonce } }, returnOld: true });
      return gone !== false && gone !== undefined;
    }),
  );
  const count = removed.filter(Boolean).length;
  if (count > 0) await updateItem(countKey(accountId, destinationId), { add: { held: -count } });
}

/** How many deliveries the destination holds (the count can run a little behind a crash; never below 0). */
export async function heldCount(accountId: string, destinationId: string): Promise<number> {
  const item = await getRawItem(countKey(accountId, destinationId), false);
  return Math.max(0, Number(item?.held ?? 0));
}
