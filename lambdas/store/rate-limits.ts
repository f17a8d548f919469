import { SEND_LEAD_MS, slotIntervalMs } from '../domain/rate-limit';
import { accountPartition } from './keys';
import { updateItem } from './table';

/**
 * A rate-limited destination's send schedule: one small item in a partition of its own, so its writes
 * (one per delivery, only for destinations with a limit) never land in the account partition the
 * routing table is read from. Only ever updated field by field (no `entity` attribute, no put).
 */
const rateKey = (accountId: string, destinationId: string) => ({ pk: `${accountPartition(accountId)}#RATE#${destinationId}`, sk: 'RATE' });

/**
 * Takes the destination's next send slot (epoch ms): in SEND_LEAD_MS, when nobody is ahead, else the slot after
 * the last one taken. Two conditional updates and no read: the common case (a slot in the future)
 * moves `next_slot` on atomically, whatever the concurrency, so every delivery gets a slot of its own.
 * No TTL: `next_slot` may lie hours ahead during a backlog, and the item is one per limited destination.
 */
export async function takeSendSlot(accountId: string, destinationId: string, limitPerSecond: number, now: Date): Promise<number> {
  const interval = slotIntervalMs(limitPerSecond);
  const key = rateKey(accountId, destinationId);
  for (let round = 0; round < 10; round++) {
    const at = now.getTime();
    // The condition holds only on an existing next_slot, so ADD moves it on rather than starting at 0.
    const queued = await updateItem(
      key,
      { add: { next_slot: interval } },
      { condition: { expression: 'next_slot > :now', values: { ':now': at } }, returnValues: 'UPDATED_NEW' },
    );
    if (queued) return Number(queued.next_slot) - interval;
    const started = await updateItem(
      key,
      { set: { next_slot: at + SEND_LEAD_MS + interval } },
      { condition: { expression: 'attribute_not_exists(next_slot) OR next_slot <= :now', values: { ':now': at } } },
    );
    if (started !== false) return at + SEND_LEAD_MS;
  }
  throw new Error(`send slots of destination ${destinationId} kept changing under us`);
}
