import { breakerGate, breakerTransition, releasePlan, wakeTimes, wakeVerdict, type BreakerState } from '../domain/breaker';
import { maxInFlight } from '../domain/max-in-flight';
import { enqueueDeliveries, type DeliveryTask, type DestinationTask } from '../adapters/delivery-queue';
import { log } from '../shared/log';
import { findBreaker } from '../store/breakers';
import { forgetChainMark, heldPage, parkDelivery, unparkDeliveries, type HeldDelivery } from '../store/held-deliveries';
import { destinationRouting } from '../store/routing-table';
import { findDestination } from '../destinations/record';
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
 * A delivery for a switched-off destination, or one waiting for its endpoint's proof of ownership, is
 * parked the same way. One over its destination's concurrency cap is not: it waits in the queue
 * (lambdas/pipeline/deliver-task.ts `waitOverCap`), and the released pages are bounded by that cap.
 */

const taskOf = (accountId: string, destinationId: string, held: HeldDelivery): DeliveryTask => ({
  v: 1,
  account_id: accountId,
  event_id: held.event_id,
  destination_id: destinationId,
});

/** Lets held deliveries go: their messages first, then their held items (a crash between leaves a duplicate the claim ignores). */
async function release(accountId: string, destinationId: string, held: readonly HeldDelivery[]): Promise<void> {
  await enqueueDeliveries(held.map((h) => taskOf(accountId, destinationId, h)), 0);
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
  reason: 'breaker_open' | 'paused' | 'unverified';
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
  const breaker = await findBreaker(accountId, destinationId);
  if (task.kind === 'slots') return drainOverCap(accountId, destinationId, breaker, now);
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
  if (page.length === 0) return;
  await release(accountId, destinationId, page);
  if (full) await enqueueDeliveries([{ v: 1, kind: 'release', account_id: accountId, destination_id: destinationId }], plan.nextInSeconds);
}

/**
 * A check a version before 0.5 sent for the concurrency slots a delivery parked over its cap found
 * taken: every delivery parked that way had one on its way (or a slot's release that handed it on,
 * which no longer comes). Its arrival lets the destination's held deliveries go, as a release does
 * (those over the cap now wait in the queue), and takes away the mark those releases kept.
 */
async function drainOverCap(accountId: string, destinationId: string, breaker: BreakerState, now: Date): Promise<void> {
  await releasePageOf(accountId, destinationId, breaker, now);
  await forgetChainMark(accountId, destinationId);
}
