import { breakerGate, releasePlan, wakeTimes, wakeVerdict, type BreakerState } from '../domain/breaker';
import { maxInFlight, slotsToTry } from '../domain/max-in-flight';
import { enqueueDeliveries, type DeliveryTask, type DestinationTask } from '../adapters/delivery-queue';
import { log } from '../shared/log';
import { newId } from '../shared/secrets';
import { findBreaker } from '../store/breakers';
import { flightSlotLease, releaseFlightSlot, takeFlightSlot } from '../store/flight-slots';
import { claimRelease, eachHeld, heldPage, parkDelivery, unparkDeliveries, type HeldDelivery } from '../store/held-deliveries';
import { destinationRouting } from '../store/routing-table';
import { findDestination } from '../destinations/record';

/**
 * Held deliveries sleep. A delivery its destination's breaker holds is parked against the destination
 * (store/held-deliveries.ts) and its message is done: nothing is spent on it while it waits. The
 * destination keeps one timer instead, a wake message at each instant a breaker write sets; a wake
 * lets one held delivery through as the probe, and the breaker's closing (a probe that succeeded, a
 * manual try, the owner switching the destination back on) starts releasing the rest, in due order.
 * Holding N deliveries costs N parks and N releases, whatever the time they wait.
 *
 * A delivery over its destination's concurrency cap, or for a switched-off destination, is parked
 * the same way. Each concurrency slot's release lets the held delivery due first go, with the slot, so
 * a released page only starts the chain (`releasePlan`).
 */

const taskOf = (accountId: string, destinationId: string, held: HeldDelivery, slot?: number): DeliveryTask => ({
  v: 1,
  account_id: accountId,
  event_id: held.event_id,
  destination_id: destinationId,
  ...(slot !== undefined && { flight_slot: slot }),
});

/** Lets held deliveries go: their messages first, then their held items (a crash between leaves a duplicate the claim ignores). */
async function release(accountId: string, destinationId: string, held: readonly HeldDelivery[], slot?: number): Promise<void> {
  await enqueueDeliveries(held.map((h) => taskOf(accountId, destinationId, h, slot)), 0);
  await unparkDeliveries(accountId, destinationId, held);
}

/**
 * Parks one delivery, then looks once more at what holds it: the breaker may have closed (and released
 * what was held) or come to its probe (and its wake found nothing held), or the destination been
 * switched back on, after the decision to park was made, and a delivery parked after that would sleep
 * until the next one. Then it lets itself go at once.
 */
export async function park(task: DeliveryTask, how: Park, now: () => Date): Promise<void> {
  const { account_id: accountId, destination_id: destinationId } = task;
  const held = await parkAndSay(task, how);
  const stillHeld = how.reason === 'paused' ? await isPaused(accountId, destinationId) : breakerGate(await findBreaker(accountId, destinationId), now()).kind === 'wait';
  if (!stillHeld) await release(accountId, destinationId, [held]);
}

/** How a delivery is parked: why, its due time (the release order), when its held item expires, and whether it waited parked before (a released delivery parking again). */
export interface Park {
  reason: 'breaker_open' | 'paused' | 'concurrency';
  due: string;
  expiresAt: number;
  again: boolean;
}

/**
 * Parks a delivery and logs it: the line the per-destination held alarm counts (a Contributor Insights
 * rule on `destination_id`), once per delivery parked, not each time a released one parks again.
 */
async function parkAndSay(task: DeliveryTask, { reason, due, expiresAt, again }: Park): Promise<HeldDelivery> {
  const held = await parkDelivery(task.account_id, task.destination_id, { event_id: task.event_id, due }, expiresAt);
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
  if (destination !== undefined && !destination.active) return true;
  await destinationRouting(accountId, destinationId, { fresh: true });
  return false;
}

/** A try's hold on one of its destination's `max_in_flight` slots. */
export interface FlightSlot {
  slot: number;
  holder: string;
}

/**
 * Takes one of the destination's slots for a try, until `leaseUntil` (epoch ms); or, when every slot
 * it looked at is taken, says which (the delivery then waits parked: `parkOverCap`).
 */
export async function takeSlot(task: DeliveryTask, cap: number, now: Date, leaseUntil: number): Promise<{ kind: 'taken'; slot: FlightSlot } | { kind: 'full'; taken: number[] }> {
  const holder = newId();
  const taken: number[] = [];
  for (const slot of slotsToTry(cap, task.flight_slot, Math.random)) {
    if (await takeFlightSlot(task.account_id, task.destination_id, slot, holder, now, leaseUntil)) return { kind: 'taken', slot: { slot, holder } };
    taken.push(slot);
  }
  return { kind: 'full', taken };
}

/**
 * The try is over: its slot goes, and if the destination holds deliveries (read consistently: a
 * delivery parked a moment ago counts), the one due first goes with the slot (`passOn`).
 */
export async function letSlotGo(accountId: string, destinationId: string, { slot, holder }: FlightSlot, now: Date): Promise<void> {
  await releaseFlightSlot(accountId, destinationId, slot, holder);
  await passOn(accountId, destinationId, slot, now);
}

/** Held deliveries a slot's release reads at a time, looking for one that no other release has taken. */
const RELEASE_ONE_PAGE = 10;

/**
 * A slot was let go (or a delivery handed one found nothing to do with it, or a try that needed none
 * ended after it waited parked): the held delivery due first goes with it, unless another release took it (then the next); a release that finds every held
 * delivery taken has nobody left to let go. What is held is read from the held items themselves
 * (consistent queries: the count beside them can run behind a crash); with nothing held that is one
 * query of nothing.
 */
export async function passOn(accountId: string, destinationId: string, slot: number | undefined, now: Date): Promise<void> {
  let gateRead = false;
  for await (const held of eachHeld(accountId, destinationId, RELEASE_ONE_PAGE)) {
    // An open breaker holds them now, read consistently (the one a failure just opened counts): its
    // close releases them, and one let go here would be a try the breaker is there to prevent.
    if (!gateRead && breakerGate(await findBreaker(accountId, destinationId), now).kind === 'wait') return;
    gateRead = true;
    if (!(await claimRelease(accountId, destinationId, held, now))) continue;
    return release(accountId, destinationId, [held], slot);
  }
}

/**
 * Parks a delivery over its destination's cap. Every slot's release looks at what the destination
 * holds, so once parked it goes with the next release; it then looks at the slots once more, since
 * those it found taken may all have been let go before it was parked (a slot it takes now is let go
 * at once, which lets the held delivery due first go). A check when the first lease it found ends
 * covers holders that die (their release never comes).
 */
export async function parkOverCap(task: DeliveryTask, how: Park, cap: number, leaseMs: number, now: () => Date): Promise<void> {
  const { account_id: accountId, destination_id: destinationId } = task;
  await parkAndSay(task, how);
  const at = now();
  const again = await takeSlot(task, cap, at, at.getTime() + leaseMs);
  if (again.kind === 'taken') return letSlotGo(accountId, destinationId, again.slot, at);
  const leases = await Promise.all(again.taken.map((slot) => flightSlotLease(accountId, destinationId, slot, at)));
  const firstEnd = Math.min(...leases.map((lease) => lease ?? at.getTime()));
  const check: DestinationTask = { v: 1, kind: 'slots', account_id: accountId, destination_id: destinationId, slots: again.taken };
  await enqueueDeliveries([check], Math.ceil((firstEnd - at.getTime()) / 1000) + 1);
}

/** Sends the wakes a breaker write needs (before the write: see `changeBreaker`). */
export async function scheduleWakes(accountId: string, destinationId: string, before: BreakerState, after: BreakerState, now: Date): Promise<void> {
  const wakes = wakeTimes(before, after);
  await Promise.all(wakes.map((at) => sendWake(accountId, destinationId, at, now)));
}

/** A wake for the instant `at` (its identity: see `wakeVerdict`), sent to arrive at `arrive` (by default `at`). */
const sendWake = (accountId: string, destinationId: string, at: string, now: Date, arrive = at) =>
  enqueueDeliveries([{ v: 1, kind: 'wake', account_id: accountId, destination_id: destinationId, at }], Math.ceil((Date.parse(arrive) - now.getTime()) / 1000));

/**
 * A wake that let a held delivery go looks again this much later: that delivery may not become the
 * probe (it ended without a try, or was settled already), and nothing else would wake the others.
 */
const PROBE_FALLBACK_SECONDS = 5;

/** Starts letting a destination's held deliveries go (its breaker closed, or it was switched back on). */
export const startRelease = (accountId: string, destinationId: string) =>
  enqueueDeliveries([{ v: 1, kind: 'release', account_id: accountId, destination_id: destinationId }], 0);

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
      if (first.length === 0) return;
      await release(accountId, destinationId, first);
      if (task.at) await sendWake(accountId, destinationId, task.at, now, new Date(now.getTime() + PROBE_FALLBACK_SECONDS * 1000).toISOString());
    }
  }
}

/**
 * One page of held deliveries, while the breaker lets them through, or whatever it says once the
 * destination is deleted (each released delivery then ends), then a follow-up page (`releasePlan`). A
 * switched-off destination keeps them until it is switched back on.
 */
async function releasePageOf(accountId: string, destinationId: string, breaker: BreakerState, now: Date): Promise<void> {
  const { destination } = await destinationRouting(accountId, destinationId, { fresh: true });
  if (destination && !destination.active) return;
  if (destination && breakerGate(breaker, now).kind !== 'pass') return; // open again: its wake lets the next probe through
  const plan = releasePlan(destination && { rate_limit_per_second: destination.rate_limit_per_second, max_in_flight: maxInFlight(destination) });
  const page = await heldPage(accountId, destinationId, plan.size);
  if (page.length === 0) return;
  await release(accountId, destinationId, page);
  if (page.length === plan.size) await enqueueDeliveries([{ v: 1, kind: 'release', account_id: accountId, destination_id: destinationId }], plan.nextInSeconds);
}

/**
 * After the leases a parked delivery found: if one of those slots is free while the destination still
 * holds deliveries and its breaker lets them through, no release came for it (its holder died), and
 * the held delivery due first goes.
 */
async function slotsCheckArrived(accountId: string, destinationId: string, slots: readonly number[], now: Date): Promise<void> {
  if ((await heldPage(accountId, destinationId, 1)).length === 0) return;
  for (const slot of slots) {
    if ((await flightSlotLease(accountId, destinationId, slot, now)) === undefined) return passOn(accountId, destinationId, slot, now);
  }
}
