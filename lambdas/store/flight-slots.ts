import { accountPartition } from './keys';
import * as z from 'zod/mini';
import { batchGet, getRawItem, updateItem } from './table';

/**
 * A destination's tries in flight, counted across every deliver function: its `max_in_flight` slots,
 * one small item each in a partition of its own (a busy destination's slot writes spread over
 * partitions and never land in the account partition the routing table is read from). A try holds a
 * slot under a lease as long as its worker's Lambda may run: a slot whose worker died is free again
 * when the lease ends. Only ever updated field by field.
 */
const slotKey = (accountId: string, destinationId: string, slot: number) => ({ pk: `${accountPartition(accountId)}#FLIGHT#${destinationId}#${slot}`, sk: 'FLIGHT' });
/** An account's share of the deliver concurrency (lambdas/domain/max-in-flight.ts `accountTries`): slots of the same kind, one partition each. */
const accountSlotKey = (accountId: string, slot: number) => ({ pk: `${accountPartition(accountId)}#TRIES#${slot}`, sk: 'FLIGHT' });

type Key = ReturnType<typeof slotKey>;

/** A try's hold on one of its destination's `max_in_flight` slots (or on one of its account's places). */
export interface FlightSlot {
  slot: number;
  holder: string;
}

/** A slot nobody has used for a day goes (TTL, free); a cap lowered since leaves no items behind for long. */
const SLOT_RETENTION_SECONDS = 86_400;

/** Takes the slot for `holder` until `leaseUntil` (epoch ms), if nobody holds it: one conditional write. */
export const takeFlightSlot = (accountId: string, destinationId: string, slot: number, holder: string, now: Date, leaseUntil: number) =>
  takeSlotAt(slotKey(accountId, destinationId, slot), holder, now, leaseUntil);

/** Lets the slot go, if `holder` still holds it (a lease taken over is the new holder's). */
export const releaseFlightSlot = (accountId: string, destinationId: string, slot: number, holder: string) => releaseSlotAt(slotKey(accountId, destinationId, slot), holder);

/** One of the account's slots, as `takeFlightSlot` takes one of a destination's. */
export const takeAccountSlot = (accountId: string, slot: number, holder: string, now: Date, leaseUntil: number) => takeSlotAt(accountSlotKey(accountId, slot), holder, now, leaseUntil);

export const releaseAccountSlot = (accountId: string, slot: number, holder: string) => releaseSlotAt(accountSlotKey(accountId, slot), holder);

/**
 * Hands the slot from `from` to `to` until `leaseUntil`, if `from` still holds it: one conditional
 * write where a release and the next holder's take would be two (`to` = `from` extends the lease).
 */
export const handFlightSlot = (accountId: string, destinationId: string, slot: number, from: string, to: string, leaseUntil: number) =>
  handSlotAt(slotKey(accountId, destinationId, slot), from, to, leaseUntil);

export const handAccountSlot = (accountId: string, slot: number, from: string, to: string, leaseUntil: number) => handSlotAt(accountSlotKey(accountId, slot), from, to, leaseUntil);

async function takeSlotAt(key: Key, holder: string, now: Date, leaseUntil: number): Promise<boolean> {
  const taken = await updateItem(
    key,
    { set: { holder, lease_until: leaseUntil, expires_at: Math.ceil(leaseUntil / 1000) + SLOT_RETENTION_SECONDS } },
    { condition: { expression: 'attribute_not_exists(lease_until) OR lease_until <= :now', values: { ':now': now.getTime() } } },
  );
  return taken !== false;
}

async function handSlotAt(key: Key, from: string, to: string, leaseUntil: number): Promise<boolean> {
  const handed = await updateItem(
    key,
    { set: { holder: to, lease_until: leaseUntil, expires_at: Math.ceil(leaseUntil / 1000) + SLOT_RETENTION_SECONDS } },
    { condition: { expression: 'holder = :from', values: { ':from': from } } },
  );
  return handed !== false;
}

/** False when `holder` no longer held it (its lease ended and another took it, or it was handed on). */
async function releaseSlotAt(key: Key, holder: string): Promise<boolean> {
  return (await updateItem(key, { remove: ['holder', 'lease_until'] }, { condition: { expression: 'holder = :holder', values: { ':holder': holder } } })) !== false;
}

const leased = z.object({ pk: z.string(), lease_until: z.optional(z.number()) });

/** Whether `holder` holds the slot now, read consistently. */
export async function holdsFlightSlot(accountId: string, destinationId: string, slot: number, holder: string, now: Date): Promise<boolean> {
  const item = await getRawItem(slotKey(accountId, destinationId, slot));
  return item?.holder === holder && Number(item.lease_until) > now.getTime();
}

/**
 * When each of these slots' leases ends (epoch ms), in their order, read consistently in one
 * request; undefined for a slot nobody holds now (never taken, let go, or its lease ended).
 */
export const flightSlotLeases = (accountId: string, destinationId: string, slots: readonly number[], now: Date) =>
  leasesOf(slots, (slot) => slotKey(accountId, destinationId, slot), now, true);

/**
 * The account's places that nobody holds now, of its first `count`: one eventually consistent read of
 * them all (a place let go a moment ago may still read as held, which only costs a wait).
 */
export const freeAccountSlots = (accountId: string, count: number, now: Date) =>
  freeOf(Array.from({ length: count }, (_, slot) => slot), (slot) => accountSlotKey(accountId, slot), now);

/**
 * Which of these slots of the destination nobody holds now, read as `freeAccountSlots` reads: a take
 * that fails is a write on the slot's key, a read is half a read unit, so a destination over its cap
 * takes nothing on its slots' keys per delivery that arrives to find them held.
 */
export const freeFlightSlots = (accountId: string, destinationId: string, slots: readonly number[], now: Date) =>
  freeOf(slots, (slot) => slotKey(accountId, destinationId, slot), now);

async function freeOf(slots: readonly number[], keyOf: (slot: number) => Key, now: Date): Promise<number[]> {
  const leases = await leasesOf(slots, keyOf, now, false);
  return slots.filter((_, i) => leases[i] === undefined);
}

async function leasesOf(slots: readonly number[], keyOf: (slot: number) => Key, now: Date, consistent: boolean): Promise<Array<number | undefined>> {
  const items = await batchGet(slots.map(keyOf), leased, { consistent, projection: ['pk', 'lease_until'] });
  const leaseOf = new Map(items.filter((item) => (item.lease_until ?? 0) > now.getTime()).map((item) => [item.pk, item.lease_until]));
  return slots.map((slot) => leaseOf.get(keyOf(slot).pk));
}
