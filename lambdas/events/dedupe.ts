import * as z from 'zod/mini';
import { defineEntity } from '../store/entity';
import { accountPartition } from '../store/keys';
import { allOf, deleteItem, ITEM_EXISTS, updateItem } from '../store/table';

/**
 * A claimed external id, in a partition of its own per (account, scope hash) so claims never meet an
 * account's other writes. It expires with the event that holds it (retention re-times it).
 */
const dedupeEntity = defineEntity({
  name: 'dedupe',
  schema: z.object({ event_id: z.string(), expires_at: z.optional(z.number()) }),
  key: (accountId: string, scopeHash: string) => ({ pk: `${accountPartition(accountId)}#DEDUP#${scopeHash}`, sk: 'DEDUP' }),
});

/**
 * Claims an external id for an event. Returns undefined when this event got it, or the id of the
 * event that already holds it.
 */
export async function claimExternalId(
  accountId: string,
  key: string,
  eventId: string,
  expiresAt: number,
): Promise<string | undefined> {
  const claim = { event_id: eventId, expires_at: expiresAt };
  // The holder can vanish between our write and our read (retention); then the id is free to claim again.
  for (let round = 0; round < 3; round++) {
    if (await dedupeEntity.create(claim, dedupeEntity.key(accountId, key))) return undefined;
    const existing = await dedupeEntity.find(accountId, key);
    if (existing) return existing.event_id;
  }
  throw new Error('external id claim kept racing with deletion');
}

/** While the claim still names this event: the id may have been claimed again since. */
const heldBy = (eventId: string) => ({ expression: 'event_id = :id', values: { ':id': eventId } });

/** Re-times an event's claim (the sweeper, after a retention change), only while it names this event. */
export async function setDedupeExpiry(accountId: string, key: string, eventId: string, expiresAt: number): Promise<boolean> {
  const updated = await updateItem(dedupeEntity.key(accountId, key), { set: { expires_at: expiresAt } }, { condition: allOf(ITEM_EXISTS, heldBy(eventId)) });
  return updated !== false;
}

/** Deletes an event's claim (the sweeper, with the event), only while it names this event. */
export async function deleteDedupeIfOwned(accountId: string, key: string, eventId: string): Promise<void> {
  await deleteItem(dedupeEntity.key(accountId, key), { condition: heldBy(eventId) });
}
