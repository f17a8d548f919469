import { breakerGate, RELEASE_INTERVAL_SECONDS, releasePage, wakeTimes, wakeVerdict, type BreakerState } from '../domain/breaker';
import { enqueueDeliveries, type DeliveryTask, type DestinationTask } from '../adapters/delivery-queue';
import { findBreaker } from '../store/breakers';
import { heldPage, parkDelivery, unparkDeliveries, type HeldDelivery } from '../store/held-deliveries';
import { reloadRoutingTable } from '../store/routing-table';

/**
 * Held deliveries sleep. A delivery its destination's breaker holds is parked against the destination
 * (store/held-deliveries.ts) and its message is done: nothing is spent on it while it waits. The
 * destination keeps one timer instead, a wake message at each instant a breaker write sets; a wake
 * lets one held delivery through as the probe, and the breaker's closing (a probe that succeeded, a
 * manual try, the owner switching the destination back on) releases the rest, in due order, a page at
 * a time. Holding N deliveries costs N parks and N releases, whatever the time they wait.
 */

const taskOf = (accountId: string, destinationId: string, held: HeldDelivery): DeliveryTask => ({ v: 1, account_id: accountId, event_id: held.event_id, destination_id: destinationId });

/** Lets held deliveries go: their messages first, then their held items (a crash between leaves a duplicate the claim ignores). */
async function release(accountId: string, destinationId: string, held: readonly HeldDelivery[]): Promise<void> {
  await enqueueDeliveries(held.map((h) => taskOf(accountId, destinationId, h)), 0);
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
