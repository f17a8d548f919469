import { breakerGate, breakerTransition, releasePlan, wakeTimes, wakeVerdict, type BreakerState } from '../domain/breaker';
import { handedLeaseCovers, maxInFlight, slotsToTry } from '../domain/max-in-flight';
import { enqueueDeliveries, type DeliveryTask, type DestinationTask } from '../adapters/delivery-queue';
import { log } from '../shared/log';
import { newId } from '../shared/secrets';
import { findBreaker } from '../store/breakers';
import { flightSlotLeases, freeFlightSlots, handFlightSlot, holdsFlightSlot, releaseFlightSlot, takeFlightSlot, type FlightSlot } from '../store/flight-slots';
import { chainEnded, chainMarked, claimRelease, eachHeld, HELD_SHARDS, heldPage, markChain, parkDelivery, unparkDeliveries, type HeldDelivery } from '../store/held-deliveries';
import { destinationRouting } from '../store/routing-table';
import { findDestination } from '../destinations/record';
import { handSharePlace, letSharePlaceGo, type SharePlace } from './account-share';
import { pendingVerification } from '../domain/endpoint-verification';
import type { DestinationRecord } from '../destinations/record';

/** Switched off, or waiting for its endpoint's proof of ownership: it keeps every delivery until that is over. */
const holdsAll = (destination: DestinationRecord) => !destination.active || pendingVerification(destination);

/**
 * Held deliveries sleep. A delivery its destination's breaker holds is parked against the destination
 * (store/held-deliveries.ts) and its message is done: nothing is spent on it while it waits. The
 * destination keeps one timer instead, a wake message at each instant a breaker write sets; a wake
 * lets one held delivery through as the probe, and the breaker's closing (a probe that succeeded, a
 * manual try, the owner switching the destination back on) starts releasing the rest, in due order.
 * Holding N deliveries costs N parks and N releases, whatever the time they wait.
 *
 * A delivery over its destination's concurrency cap, or for a switched-off destination, is parked
 * the same way. Each concurrency slot's release lets a held delivery go (the due first of one shard),
 * with the slot, so a released page only starts the chain (`releasePlan`).
 */

/** What a released delivery's task carries besides its ids: the slot it was handed, as a number to try first or with its lease (`handed`). */
type Handing = Pick<DeliveryTask, 'flight_slot' | 'handed'>;

const taskOf = (accountId: string, destinationId: string, held: HeldDelivery, handing: Handing = {}): DeliveryTask => ({
  v: 1,
  account_id: accountId,
  event_id: held.event_id,
  destination_id: destinationId,
  ...handing,
});

/** Lets held deliveries go: their messages first, then their held items (a crash between leaves a duplicate the claim ignores). */
async function release(accountId: string, destinationId: string, held: readonly HeldDelivery[], handing?: Handing): Promise<void> {
  await enqueueDeliveries(held.map((h) => taskOf(accountId, destinationId, h, handing)), 0);
  await unparkDeliveries(accountId, destinationId, held);
}

/**
 * Parks one delivery held by its open breaker or its switched-off destination. Its task read what
 * holds it a moment before, and the breaker may close (releasing what was held) or come to its probe
 * (its wake finding nothing held), or the destination be switched back on, before the park is
 * written; rather than read the breaker or the destination again for every park, the other side
 * covers that moment: a close or a switch-on sends a second release a few seconds after the first
 * (`sendReleaseBackstop`), and a wake that finds nothing held comes back once (`PROBE_FALLBACK_SECONDS`).
 */
export async function park(task: DeliveryTask, how: Park): Promise<void> {
  await parkAndSay(task, how);
}

/** How a delivery is parked: why, its due time (the release order), and whether it waited parked before (a released delivery parking again). */
export interface Park {
  reason: 'breaker_open' | 'paused' | 'unverified' | 'concurrency';
  due: string;
  again: boolean;
}

/**
 * Parks a delivery and logs it: the line the per-destination held alarm counts (a Contributor Insights
 * rule on `destination_id`), once per delivery parked, not each time a released one parks again.
 */
async function parkAndSay(task: DeliveryTask, { reason, due, again }: Park): Promise<HeldDelivery> {
  const held = await parkDelivery(task.account_id, task.destination_id, { event_id: task.event_id, due });
  if (!again) log.info('delivery parked', { account_id: task.account_id, destination_id: task.destination_id, event_id: task.event_id, reason });
  return held;
}

/**
 * Switched off, read consistently: the destination's own item (a deleted destination is not paused:
 * its deliveries end). Parking for a paused destination happens for every delivery that reaches it, so
 * this reads one item; only when it is on again is its routing (destinationRouting) read afresh, so
 * the delivery let go now finds it on rather than parking on this process's cached copy.
 */
async function isPaused(accountId: string, destinationId: string): Promise<boolean> {
  const destination = await findDestination(accountId, destinationId);
  if (destination !== undefined && holdsAll(destination)) return true;
  await destinationRouting(accountId, destinationId, { fresh: true });
  return false;
}

/** What a try under its destination's cap holds while in flight: one of the destination's slots, and a place in its account's share (`takeSharePlace`). */
export interface Places {
  slot: FlightSlot;
  share?: SharePlace;
}

/**
 * The slots a delivery looks at that nobody holds now, read (eventually consistently) before any is
 * taken: at 1,000 deliveries a second over the cap, a failed take each would be a thousand writes a
 * second on the slots' keys, and the delivery takes no share place only to give it back. None: every
 * slot it looked at is taken (it then waits parked: `parkOverCap`).
 */
export const freeSlots = (task: DeliveryTask, cap: number, now: Date): Promise<number[]> =>
  freeFlightSlots(task.account_id, task.destination_id, slotsToTry(cap, task.flight_slot, Math.random), now);

/** Takes one of those slots for a try, until `leaseUntil` (epoch ms); undefined when others took them all first. */
export async function takeSlot(task: DeliveryTask, free: readonly number[], now: Date, leaseUntil: number): Promise<FlightSlot | undefined> {
  const holder = newId();
  for (const slot of free) if (await takeFlightSlot(task.account_id, task.destination_id, slot, holder, now, leaseUntil)) return { slot, holder };
  return undefined;
}

/**
 * The places a released delivery's task was handed, while they are still its own: as handed when
 * their lease covers a try of `tryMs` and the slot still reads as its (one consistent read: a copy of
 * the task SQS delivered twice, or one that came back later, may find them handed on since by the copy
 * that tried), else renewed until `leaseUntil` (its message waited in the queue); undefined when the
 * slot is no longer its.
 */
export async function keepHanded(task: DeliveryTask, places: Places, tryMs: number, now: Date, leaseUntil: number): Promise<Places | undefined> {
  const { slot, share } = places;
  if (handedLeaseCovers(task.handed?.lease_until ?? 0, now, tryMs)) {
    return (await holdsFlightSlot(task.account_id, task.destination_id, slot.slot, slot.holder, now)) ? places : undefined;
  }
  if (!(await handFlightSlot(task.account_id, task.destination_id, slot.slot, slot.holder, slot.holder, leaseUntil))) return undefined;
  if (share && !(await handSharePlace(task.account_id, share, share.holder, leaseUntil))) return { slot };
  return places;
}

/** The places a task was handed, as its try holds them. */
export function handedPlacesOf(task: DeliveryTask): Places | undefined {
  const { handed, flight_slot: slot } = task;
  if (!handed || slot === undefined) return undefined;
  return { slot: { slot, holder: handed.holder }, ...(handed.share && { share: handed.share }) };
}

/**
 * The try is over (or a delivery handed places ended without one). When the destination holds
 * deliveries (the chain mark, read consistently, first where this function saw it on lately:
 * `chainsLately`), its slot and
 * its share place go on to the one due first as they are, re-leased in one write each to that
 * delivery's task (which then takes none), where a release and a take would be two; the slot is handed
 * before the held delivery is looked for, so places no longer this holder's (a duplicate message's,
 * handed on already) cost one failed write and let nobody go. Otherwise they are let go, and the mark
 * is read again (`passOn`): a delivery parked over the cap since it was read found the slot held.
 */
export async function letSlotGo(accountId: string, destinationId: string, places: Places, now: Date, leaseUntil: number): Promise<void> {
  let { slot } = places;
  const { share } = places;
  if (chainLately(accountId, destinationId, now) && (await chainSeen(accountId, destinationId, now))) {
    const to = newId();
    if (!(await handFlightSlot(accountId, destinationId, slot.slot, slot.holder, to, leaseUntil))) {
      if (share) await letSharePlaceGo(accountId, share);
      return;
    }
    slot = { slot: slot.slot, holder: to };
    let handedShare: SharePlace | undefined;
    try {
      const held = await nextHeld(accountId, destinationId, now);
      if (held) {
        handedShare = share && (await handSharePlace(accountId, share, to, leaseUntil)) ? { slot: share.slot, holder: to } : undefined;
        await enqueueDeliveries([taskOf(accountId, destinationId, held, { flight_slot: slot.slot, handed: { holder: to, lease_until: leaseUntil, ...(handedShare && { share: handedShare }) } })], 0);
        return unparkDeliveries(accountId, destinationId, [held]);
      }
    } catch (error) {
      // No task holds them yet: let go, rather than leave them leased to nobody until the lease ends.
      await Promise.allSettled([releaseFlightSlot(accountId, destinationId, slot.slot, to), share && letSharePlaceGo(accountId, handedShare ?? share)]);
      throw error;
    }
  }
  const [ours] = await Promise.all([releaseFlightSlot(accountId, destinationId, slot.slot, slot.holder), share && letSharePlaceGo(accountId, share)]);
  if (ours) await passOn(accountId, destinationId, slot.slot, now);
}

/** Held deliveries a slot's release reads at a time, looking for one that no other release has taken. */
const RELEASE_ONE_PAGE = 10;

/**
 * A slot was let go (or a delivery handed one found nothing to do with it, or a try that needed none
 * ended after it waited parked): a held delivery goes with it, the first of a shard (from one taken at
 * random, so concurrent releases seldom contend) that no other release has taken; a release that
 * finds every held delivery taken has nobody left to let go. With nothing held the chain mark is off,
 * and that one read is all it costs; the release that finds every shard empty turns it off
 * (`chainEnded`).
 */
export async function passOn(accountId: string, destinationId: string, slot: number | undefined, now: Date): Promise<void> {
  if (await chainSeen(accountId, destinationId, now)) await handOn(accountId, destinationId, slot, now);
}

/**
 * Destinations this function found holding deliveries over their cap lately (the chain mark on), until
 * when (epoch ms). A try that ends at one of them reads the mark before it lets its slot go, to hand
 * the slot on; elsewhere it lets the slot go and reads the mark after (`passOn`), one read where the
 * hand-over's look first would be two, since a delivery parked meanwhile needs the look after. Per
 * function instance, as any cache: another instance finds the chain by its own next look.
 */
const chainsLately = new Map<string, number>();
const CHAIN_LATELY_MS = 10_000;
const chainKey = (accountId: string, destinationId: string) => `${accountId}/${destinationId}`;

function chainLately(accountId: string, destinationId: string, now: Date): boolean {
  const key = chainKey(accountId, destinationId);
  const until = chainsLately.get(key);
  if (until !== undefined && until <= now.getTime()) chainsLately.delete(key);
  return until !== undefined && until > now.getTime();
}

/** The chain mark, read consistently, and remembered (`chainsLately`). */
async function chainSeen(accountId: string, destinationId: string, now: Date): Promise<boolean> {
  const on = await chainMarked(accountId, destinationId);
  if (on) chainsLately.set(chainKey(accountId, destinationId), now.getTime() + CHAIN_LATELY_MS);
  else chainsLately.delete(chainKey(accountId, destinationId));
  return on;
}

/** `passOn` once the chain mark was read on. */
async function handOn(accountId: string, destinationId: string, slot: number | undefined, now: Date): Promise<void> {
  const held = await nextHeld(accountId, destinationId, now);
  if (held) await release(accountId, destinationId, [held], slot === undefined ? {} : { flight_slot: slot });
}

/** The held delivery a slot's release lets go, claimed for it (`claimRelease`); undefined when there is none, or its breaker holds them all. */
async function nextHeld(accountId: string, destinationId: string, now: Date): Promise<HeldDelivery | undefined> {
  // An open breaker holds them now, read consistently (the one a failure just opened counts): its
  // close releases them, and one let go here would be a try the breaker is there to prevent. Read
  // before the shards: while it is open that is all a release reads besides the mark.
  if (breakerGate(await findBreaker(accountId, destinationId), now).kind === 'wait') return undefined;
  for (;;) {
    let found = false;
    for await (const held of eachHeld(accountId, destinationId, Math.floor(Math.random() * HELD_SHARDS), RELEASE_ONE_PAGE)) {
      found = true;
      if (await claimRelease(accountId, destinationId, held, now)) return held;
    }
    if (found || (await chainEnded(accountId, destinationId))) return undefined;
  }
}

/**
 * Parks a delivery over its destination's cap. Every slot's release looks at what the destination
 * holds while the chain mark is on, which it turns on after its park, so once parked it goes with the
 * next release; it then looks at the slots once more, since those it found taken may all have been
 * let go before it was parked: a slot free now is passed on at once, as its release would have, which
 * lets a held delivery go with it. It reads the slots' leases (in one request) rather than trying to
 * take them: a take that fails is a write, on the keys every try of the destination writes. A check
 * when the first lease it found ends covers holders that die (their release never comes).
 */
export async function parkOverCap(task: DeliveryTask, how: Park, cap: number, now: () => Date): Promise<void> {
  const { account_id: accountId, destination_id: destinationId } = task;
  await parkAndSay(task, how);
  await markChain(accountId, destinationId);
  chainsLately.set(chainKey(accountId, destinationId), now().getTime() + CHAIN_LATELY_MS);
  const at = now();
  const slots = slotsToTry(cap, task.flight_slot, Math.random);
  const leases = await flightSlotLeases(accountId, destinationId, slots, at);
  const free = slots.find((_, i) => leases[i] === undefined);
  // The mark is on (it was just read or set): no need to read it again.
  if (free !== undefined) return handOn(accountId, destinationId, free, at);
  const firstEnd = Math.min(...leases.map((lease) => lease ?? at.getTime()));
  const check: DestinationTask = { v: 1, kind: 'slots', account_id: accountId, destination_id: destinationId, slots };
  await enqueueDeliveries([check], Math.ceil((firstEnd - at.getTime()) / 1000) + 1);
}

/**
 * Sends the wakes a breaker write needs (before the write: see `changeBreaker`), and for a write that
 * closes an open breaker the release's backstop: the release sent after the write (`startRelease`)
 * may fail when the write has taken, and nothing would send it again.
 */
export async function scheduleWakes(accountId: string, destinationId: string, before: BreakerState, after: BreakerState, now: Date): Promise<void> {
  const wakes = wakeTimes(before, after);
  await Promise.all([
    ...wakes.map((at) => sendWake(accountId, destinationId, at, now)),
    ...(breakerTransition(before, after) === 'recovered' ? [sendReleaseBackstop(accountId, destinationId)] : []),
  ]);
}

/** A wake for the instant `at` (its identity: see `wakeVerdict`), sent to arrive at `arrive` (by default `at`). */
const sendWake = (accountId: string, destinationId: string, at: string, now: Date, arrive = at) =>
  enqueueDeliveries([{ v: 1, kind: 'wake', account_id: accountId, destination_id: destinationId, at }], Math.ceil((Date.parse(arrive) - now.getTime()) / 1000));

/**
 * A wake that let a held delivery go looks again this much later: that delivery may not become the
 * probe (it ended without a try, or was settled already), and nothing else would wake the others.
 */
const PROBE_FALLBACK_SECONDS = 5;

/**
 * Starts letting a destination's held deliveries go (its breaker closed, or it was switched back on
 * or deleted), sent once the change is written; `sendReleaseBackstop` before it makes it durable.
 */
export const startRelease = (accountId: string, destinationId: string) =>
  enqueueDeliveries([{ v: 1, kind: 'release', account_id: accountId, destination_id: destinationId }], 0);

/**
 * How long after a change that releases held deliveries its backstop arrives: long enough that the
 * change, written right after it is sent, is there when it arrives (one that comes before finds the
 * breaker still open or the destination still off, and does nothing), short enough not to keep them
 * waiting long when the release sent after the change was lost.
 */
const RELEASE_BACKSTOP_SECONDS = 5;

/**
 * A release sent before a change that lets held deliveries go (a breaker's close, a destination
 * switched back on or deleted) is written: if the change is never written it finds nothing to
 * release; if the release sent after it (`startRelease`) fails, this one lets them go, and it finds
 * a delivery that parked just after the first release read what was held (`park`). When both arrive,
 * this one is one more page of tries, which the cap parks again if the chain is already going.
 */
export const sendReleaseBackstop = (accountId: string, destinationId: string) =>
  enqueueDeliveries([{ v: 1, kind: 'release', account_id: accountId, destination_id: destinationId }], RELEASE_BACKSTOP_SECONDS);

/** A destination's own task, as it arrives. */
export async function destinationTaskArrived(task: DestinationTask, now: Date): Promise<void> {
  const { account_id: accountId, destination_id: destinationId } = task;
  if (task.kind === 'slots') return slotsCheckArrived(accountId, destinationId, task.slots ?? [], now);
  const breaker = await findBreaker(accountId, destinationId);
  if (task.kind === 'release') return releasePageOf(accountId, destinationId, breaker, now);
  const verdict = wakeVerdict(breaker, task.at ?? '', now);
  switch (verdict.kind) {
    case 'stale':
      return;
    case 'release':
      return releasePageOf(accountId, destinationId, breaker, now);
    case 'wait':
      return sendWake(accountId, destinationId, task.at ?? verdict.until.toISOString(), now, verdict.until.toISOString());
    case 'probe': {
      // A switched-off destination probes nothing: switching it back on starts its breaker afresh and releases what it holds.
      if (await isPaused(accountId, destinationId)) return;
      // The held delivery due first goes as the probe; if it finds the probe taken, it parks again.
      const first = await heldPage(accountId, destinationId, 1);
      const fallback = new Date(now.getTime() + PROBE_FALLBACK_SECONDS * 1000).toISOString();
      if (first.length === 0) {
        // A delivery that read the breaker before its cooldown ended may park just after this look
        // (`park`): the wake comes back once for it, not again while nothing is held.
        if (task.at && now.getTime() < Date.parse(task.at) + PROBE_FALLBACK_SECONDS * 1000) await sendWake(accountId, destinationId, task.at, now, fallback);
        return;
      }
      await release(accountId, destinationId, first);
      if (task.at) await sendWake(accountId, destinationId, task.at, now, fallback);
    }
  }
}

/**
 * One page of held deliveries, while the breaker lets them through, or whatever it says once the
 * destination is deleted (each released delivery then ends), then a follow-up page (`releasePlan`).
 * A switched-off destination keeps them until it is switched back on, one waiting for its endpoint's proof until it has it.
 */
async function releasePageOf(accountId: string, destinationId: string, breaker: BreakerState, now: Date): Promise<void> {
  const { destination } = await destinationRouting(accountId, destinationId, { fresh: true });
  if (destination && holdsAll(destination)) return;
  if (destination && breakerGate(breaker, now).kind !== 'pass') return; // open again: its wake lets the next probe through
  const plan = releasePlan(destination && { rate_limit_per_second: destination.rate_limit_per_second, max_in_flight: maxInFlight(destination) });
  const page = await heldPage(accountId, destinationId, plan.size);
  const full = page.length === plan.size;
  // What this page leaves behind goes with the slots of those it lets go.
  if (full && destination) await markChain(accountId, destinationId);
  if (page.length === 0) return;
  await release(accountId, destinationId, page);
  if (full) await enqueueDeliveries([{ v: 1, kind: 'release', account_id: accountId, destination_id: destinationId }], plan.nextInSeconds);
}

/**
 * After the leases a parked delivery found: if one of those slots is free, no release came for it (its
 * holder died), and it is passed on as if let go now (`passOn`: a held delivery goes if the chain mark
 * is on and the breaker lets it). The leases are read first: they are on the slots' keys, the mark is
 * on the key every release of the destination reads.
 */
async function slotsCheckArrived(accountId: string, destinationId: string, slots: readonly number[], now: Date): Promise<void> {
  const leases = await flightSlotLeases(accountId, destinationId, slots, now);
  const free = slots.find((_, i) => leases[i] === undefined);
  if (free !== undefined) await passOn(accountId, destinationId, free, now);
}
