import { accountPartition } from './keys';
import { getRawItem, updateItem } from './table';

/**
 * A destination's tries in flight, counted across every deliver function: its `max_in_flight` slots,
 * one small item each in a partition of its own (a busy destination's slot writes spread over
 * partitions and never land in the account partition the routing table is read from). A try holds a
 * slot under a lease as long as its worker's Lambda may run: a slot whose worker died is free again
 * when the lease ends. `waiters`: deliveries parked because this slot (among others) was taken when
 * they looked; each release of the slot lets one of them go. Only ever updated field by field.
 */
const slotKey = (accountId: string, destinationId: string, slot: number) => ({ pk: `${accountPartition(accountId)}#FLIGHT#${destinationId}#${slot}`, sk: 'FLIGHT' });

/** A slot nobody has used for a day goes (TTL, free); a cap lowered since leaves no items behind for long. */
const SLOT_RETENTION_SECONDS = 86_400;

/**
 * Takes the slot for `holder` until `leaseUntil` (epoch ms), if nobody holds it: one conditional
 * write. Returns how many deliveries wait on the slot, or undefined when it is taken.
 */
export async function takeFlightSlot(accountId: string, destinationId: string, slot: number, holder: string, now: Date, leaseUntil: number): Promise<number | undefined> {
  const taken = await updateItem(
    slotKey(accountId, destinationId, slot),
    { set: { holder, lease_until: leaseUntil, expires_at: Math.ceil(leaseUntil / 1000) + SLOT_RETENTION_SECONDS } },
    { condition: { expression: 'attribute_not_exists(lease_until) OR lease_until <= :now', values: { ':now': now.getTime() } }, returnValues: 'ALL_NEW' },
  );
  return taken === false ? undefined : Number(taken?.waiters ?? 0);
}

/**
 * Lets the slot go, if `holder` still holds it (a lease taken over is the new holder's). True when a
 * delivery waits on it: one waiter is then counted off, and the caller lets one held delivery go.
 */
export async function releaseFlightSlot(accountId: string, destinationId: string, slot: number, holder: string): Promise<boolean> {
  const key = slotKey(accountId, destinationId, slot);
  const old = await updateItem(key, { remove: ['holder', 'lease_until'] }, { condition: { expression: 'holder = :holder', values: { ':holder': holder } }, returnValues: 'ALL_OLD' });
  if (!old || Number(old.waiters ?? 0) <= 0) return false;
  await updateItem(key, { add: { waiters: -1 } });
  return true;
}

/**
 * Counts a parked delivery as waiting on the slot, if the slot is still held: its holder's release
 * lets one go. Returns the lease's end (epoch ms) and how many wait on it now, or undefined when the
 * slot was let go meanwhile (the delivery should look again rather than wait).
 */
export async function waitOnFlightSlot(accountId: string, destinationId: string, slot: number, now: Date): Promise<{ leaseUntil: number; waiters: number } | undefined> {
  const marked = await updateItem(
    slotKey(accountId, destinationId, slot),
    { add: { waiters: 1 } },
    { condition: { expression: 'lease_until > :now', values: { ':now': now.getTime() } }, returnValues: 'ALL_NEW' },
  );
  return marked ? { leaseUntil: Number(marked.lease_until), waiters: Number(marked.waiters) } : undefined;
}

/**
 * At a slot's lease end, with deliveries waiting on it and nobody holding it (its worker died, or it
 * was let go while more than one waited): counts one waiter off. True when it did: the caller lets
 * one held delivery go. A slot held again is its new holder's to let go (and to check, if it dies).
 */
export async function waiterOfFreeSlot(accountId: string, destinationId: string, slot: number, now: Date): Promise<boolean> {
  const key = slotKey(accountId, destinationId, slot);
  const item = await getRawItem(key);
  if (!item || Number(item.waiters ?? 0) <= 0 || Number(item.lease_until ?? 0) > now.getTime()) return false;
  const counted = await updateItem(
    key,
    { add: { waiters: -1 } },
    { condition: { expression: 'waiters > :none AND (attribute_not_exists(lease_until) OR lease_until <= :now)', values: { ':none': 0, ':now': now.getTime() } } },
  );
  return counted !== false;
}
