import { breakerGate, RELEASE_INTERVAL_SECONDS, releasePage, wakeTimes, wakeVerdict, type BreakerState } from '../domain/breaker';
import { enqueueDeliveries, type DeliveryTask, type DestinationTask } from '../adapters/delivery-queue';
import { slotsToTry } from '../domain/max-in-flight';
import { newId } from '../shared/secrets';
import { findBreaker } from '../store/breakers';
import { releaseFlightSlot, takeFlightSlot, waiterOfFreeSlot, waitOnFlightSlot } from '../store/flight-slots';
import { claimRelease, heldPage, parkDelivery, unparkDeliveries, type HeldDelivery } from '../store/held-deliveries';
import { reloadRoutingTable } from '../store/routing-table';

/**
 * Held deliveries sleep. A delivery its destination's breaker holds is parked against the destination
 * (store/held-deliveries.ts) and its message is done: nothing is spent on it while it waits. The
 * destination keeps one timer instead, a wake message at each instant a breaker write sets; a wake
 * lets one held delivery through as the probe, and the breaker's closing (a probe that succeeded, a
 * manual try, the owner switching the destination back on) releases the rest, in due order, a page at
 * a time. Holding N deliveries costs N parks and N releases, whatever the time they wait.
 *
 * A delivery over its destination's concurrency cap is parked the same way: it waits on one of the
 * slots it found taken, and that slot's release lets one held delivery go, with the slot.
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
 * Parks one delivery, then looks at the breaker once more: it may have closed (and released what was
 * held) or come to its probe (and its wake found nothing held) after the decision to park was made,
 * and a delivery parked after that would sleep until the next one. Then it lets itself go at once.
 */
export async function park(task: DeliveryTask, due: string, expiresAt: number, now: () => Date): Promise<void> {
  const held = await parkDelivery(task.account_id, task.destination_id, { event_id: task.event_id, due }, expiresAt);
  const breaker = await findBreaker(task.account_id, task.destination_id);
  if (breakerGate(breaker, now()).kind !== 'wait') await release(task.account_id, task.destination_id, [held]);
}

/** A try's hold on one of its destination's `max_in_flight` slots. */
export interface FlightSlot {
  slot: number;
  holder: string;
}

/**
 * Takes one of the destination's slots for a try, until `leaseUntil` (epoch ms); or, when every slot
 * it looked at is taken, says which (the delivery then waits on one of them: `parkOverCap`).
 */
export async function takeSlot(task: DeliveryTask, cap: number, now: Date, leaseUntil: number): Promise<{ kind: 'taken'; slot: FlightSlot } | { kind: 'full'; taken: number[] }> {
  const holder = newId();
  const taken: number[] = [];
  for (const slot of slotsToTry(cap, task.flight_slot, Math.random)) {
    const waiters = await takeFlightSlot(task.account_id, task.destination_id, slot, holder, now, leaseUntil);
    if (waiters === undefined) {
      taken.push(slot);
      continue;
    }
    // Its release lets one of them go; if this worker dies first, the check at its lease's end does.
    if (waiters > 0) await checkSlotAt(task.account_id, task.destination_id, slot, leaseUntil, now);
    return { kind: 'taken', slot: { slot, holder } };
  }
  return { kind: 'full', taken };
}

/** The try is over: its slot goes, and if a delivery waits on it, the held delivery due first goes with it. */
export async function letSlotGo(accountId: string, destinationId: string, { slot, holder }: FlightSlot, now: Date): Promise<void> {
  if (await releaseFlightSlot(accountId, destinationId, slot, holder)) await releaseOne(accountId, destinationId, slot, now);
}

/** How many held deliveries a slot's release looks at for one that no other release has taken. */
const RELEASE_ONE_LOOKS = 5;

/** Lets the held delivery due first go, with the slot just let go, unless another release took it (then the next). */
async function releaseOne(accountId: string, destinationId: string, slot: number, now: Date): Promise<void> {
  for (const held of await heldPage(accountId, destinationId, RELEASE_ONE_LOOKS)) {
    if (!(await claimRelease(accountId, destinationId, held, now))) continue;
    return release(accountId, destinationId, [held], slot);
  }
}

/**
 * Parks a delivery over its destination's cap and counts it as waiting on a slot it found taken, so
 * that slot's release lets it (or whichever held delivery is due first) go. A slot let go between the
 * look and the count has no release to come: the delivery then tries again at once. A check at the
 * slot's lease end covers a holder that dies (its release never comes).
 */
export async function parkOverCap(task: DeliveryTask, due: string, expiresAt: number, taken: readonly number[], now: () => Date): Promise<void> {
  const held = await parkDelivery(task.account_id, task.destination_id, { event_id: task.event_id, due }, expiresAt);
  for (const slot of taken) {
    const waiting = await waitOnFlightSlot(task.account_id, task.destination_id, slot, now());
    if (waiting === undefined) continue;
    // One check per lease: the first waiter sends it (a holder that finds waiters when it takes the slot sends its own).
    if (waiting.waiters === 1) await checkSlotAt(task.account_id, task.destination_id, slot, waiting.leaseUntil, now());
    return;
  }
  if (await claimRelease(task.account_id, task.destination_id, held, now())) await release(task.account_id, task.destination_id, [held]);
}

/** A look at a slot just after its lease ends (`leaseUntil`, epoch ms). */
const checkSlotAt = (accountId: string, destinationId: string, slot: number, leaseUntil: number, now: Date) =>
  enqueueDeliveries([{ v: 1, kind: 'slot', account_id: accountId, destination_id: destinationId, slot }], Math.ceil((leaseUntil - now.getTime()) / 1000) + 1);

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
  if (task.kind === 'slot') return slotCheckArrived(accountId, destinationId, task.slot ?? 0, now);
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
 * destination is switched off or deleted (each released delivery then ends); the next page a second later.
 */
async function releasePageOf(accountId: string, destinationId: string, breaker: BreakerState, now: Date): Promise<void> {
  const destination = (await reloadRoutingTable(accountId))?.destinations.get(destinationId);
  const ending = !destination?.active;
  if (!ending && breakerGate(breaker, now).kind !== 'pass') return; // open again: its wake lets the next probe through
  const size = releasePage(destination?.rate_limit_per_second);
  const page = await heldPage(accountId, destinationId, size);
  if (page.length === 0) return;
  await release(accountId, destinationId, page);
  if (page.length === size) await enqueueDeliveries([{ v: 1, kind: 'release', account_id: accountId, destination_id: destinationId }], RELEASE_INTERVAL_SECONDS);
}

/** Deliveries still waiting on a slot at its lease's end: one goes if nobody holds it. */
async function slotCheckArrived(accountId: string, destinationId: string, slot: number, now: Date): Promise<void> {
  if (await waiterOfFreeSlot(accountId, destinationId, slot, now)) await releaseOne(accountId, destinationId, slot, now);
}
