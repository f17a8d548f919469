import { isSweepable, keptExpiresAt, keptPayloadClass, payloadKeyClass, payloadRetentionClass, retimedExpiresAt, sideItemExpiresAt, sweepCutoffBound } from '../domain/retention';
import { copyPayload, deletePayload, payloadKey } from '../adapters/payloads';
import { log } from '../shared/log';
import { accountIdsAfter, readAccountRetention, recordTtlWindow } from '../accounts/record';
import { deleteDedupeIfOwned, setDedupeExpiry } from '../events/dedupe';
import { setSubjectEntryExpiry } from '../events/subject-index';
import { setCustomerEntryExpiry } from '../events/customer-index';
import { changeEvent, deleteSettledStatusItem, type EventRecord } from '../events/record';
import { keepParked } from '../store/held-deliveries';
import { keepLines } from './ordering';
import { takeBackStranded } from './stranded-tasks';
import {
  clearCheckpoint,
  deleteSideItems,
  listEventsOldestFirst,
  readCheckpoint,
  readEventParts,
  setPayloadRef,
  setSideItemExpiry,
  writeCheckpoint,
  type SideItem,
  type StoredEventParts,
  type SweepCursor,
} from '../store/retention';
import type { Direction } from '../domain/vocabulary';

/** Events read from the list index per query. */
const SWEEP_PAGE_SIZE = 100;

type Phase = SweepCursor['phase'];
/** The work on one account, in order: deletes first (fewer events left to re-time), then the TTL resync. */
const STEPS: ReadonlyArray<readonly [Phase, Direction]> = [
  ['delete', 'inbound'],
  ['delete', 'outbound'],
  ['resync', 'inbound'],
  ['resync', 'outbound'],
];

// ---------------------------------------------------------------------------------------------------
// The sweep

export interface SweepOptions {
  /** The clock retention is measured against (EventBridge's `time`, or a test's). */
  now: Date;
  /** Wall-clock milliseconds after which no new work starts. */
  deadline: number;
  /** Wall clock for the deadline; injectable for tests. */
  clock?: () => number;
  pageSize?: number;
  /**
   * How long past its window an event is left to DynamoDB's TTL (free, within about two days) before
   * the sweeper deletes it itself (paid). 0 where nothing expires items, as in the local emulator.
   */
  ttlLagSeconds: number;
  /** The delivery DLQ, whose stranded delivery tasks each run takes back first (`takeBackStranded`); none: skipped. */
  dlqUrl?: string;
}

export interface SweepReport {
  accounts: number;
  deleted_events: number;
  deleted_attempts: number;
  deleted_payloads: number;
  /**
   * Events past their window that still wait (queued, delivering, a retry scheduled, held): never
   * deleted (the specification's rule 5); once settled, the next pass deletes them.
   */
  kept_waiting: number;
  /** Items of those events whose TTL this pass pushed out, so that nothing of an event expires while it waits. */
  ttl_kept: number;
  /** Events past their window left alone: a status item that cannot be read, or one that is no whole event. */
  skipped_unsettled: number;
  /** Events whose items got a new `expires_at` after their account's retention changed. */
  ttl_resynced: number;
  /** Delivery tasks taken back from the DLQ and sent once more. */
  dlq_rearmed: number;
  /** Deliveries ended (`task_failed`) because their task landed in the DLQ again after being sent once more. */
  dlq_ended: number;
  /** DLQ messages deleted with nothing waiting on them (their event gone, their delivery ended). */
  dlq_dropped: number;
  /** DLQ messages left for the operator: unreadable, or a destination's own task. */
  dlq_left: number;
  /** Accounts whose sweep failed with an error (logged); they are tried again on the next pass. */
  failed_accounts: number;
  /** True when the pass reached the last account; false when it stopped for time and left a checkpoint. */
  complete: boolean;
}

interface Run {
  now: Date;
  ttlLagSeconds: number;
  outOfTime: () => boolean;
  pageSize: number;
  report: SweepReport;
}

/**
 * Deletes settled events that are older than their account's retention, with their body, attempts,
 * payload object and de-duplication item; keeps those that still wait (their TTLs pushed out, never an
 * end: the specification's rule 5); and re-times TTLs of accounts whose retention changed.
 * Account by account (in id order, from the work index), with key queries only, in pages; it stops
 * starting new work at the deadline and leaves a checkpoint that the next run resumes from.
 */
export async function sweepRetention(options: SweepOptions): Promise<SweepReport> {
  const clock = options.clock ?? Date.now;
  const run: Run = {
    now: options.now,
    ttlLagSeconds: options.ttlLagSeconds,
    outOfTime: () => clock() >= options.deadline,
    pageSize: options.pageSize ?? SWEEP_PAGE_SIZE,
    report: {
      accounts: 0,
      deleted_events: 0,
      deleted_attempts: 0,
      deleted_payloads: 0,
      kept_waiting: 0,
      ttl_kept: 0,
      skipped_unsettled: 0,
      ttl_resynced: 0,
      dlq_rearmed: 0,
      dlq_ended: 0,
      dlq_dropped: 0,
      dlq_left: 0,
      failed_accounts: 0,
      complete: false,
    },
  };
  if (options.dlqUrl) await takeBackFromDlq(options.dlqUrl, run);
  const checkpoint = await readCheckpoint();
  let lastDone = checkpoint?.last_account_id ?? null;
  let resume = checkpoint?.cursor ?? null;
  const stop = async (cursor: SweepCursor | null) => {
    await writeCheckpoint({ last_account_id: lastDone, cursor, updated_at: new Date(clock()).toISOString() });
    return run.report;
  };

  try {
    for await (const accountId of accountIdsAfter(lastDone ?? undefined)) {
      if (run.outOfTime()) return await stop(resume);
      const start = resume?.account_id === accountId ? resume : null;
      resume = null;
      run.report.accounts++;
      let stoppedAt: SweepCursor | undefined;
      try {
        stoppedAt = await sweepAccount(accountId, start, run);
      } catch (error) {
        // One broken account must not hold up the others; it is tried again on the next pass.
        run.report.failed_accounts++;
        log.error('retention sweep failed for account', { account_id: accountId }, error);
      }
      if (stoppedAt) return await stop(stoppedAt);
      lastDone = accountId;
    }
  } catch (error) {
    // The account list itself failed: keep what this run finished, then fail the invocation.
    await stop(resume).catch(() => undefined);
    throw error;
  }
  await clearCheckpoint();
  run.report.complete = true;
  return run.report;
}

/** Stranded tasks first, every run: a failure there is logged and never holds up retention. */
async function takeBackFromDlq(dlqUrl: string, run: Run): Promise<void> {
  try {
    const taken = await takeBackStranded(dlqUrl, run.outOfTime);
    Object.assign(run.report, { dlq_rearmed: taken.rearmed, dlq_ended: taken.ended, dlq_dropped: taken.dropped, dlq_left: taken.left });
  } catch (error) {
    log.error('delivery DLQ not taken back; tried again on the next run', {}, error);
  }
}

/** Sweeps one account from `start` (or its beginning). Returns where it stopped, or undefined when done. */
async function sweepAccount(accountId: string, start: SweepCursor | null, run: Run): Promise<SweepCursor | undefined> {
  const account = await readAccountRetention(accountId);
  if (!account) return undefined;
  const days = account.retention_days;
  // A cursor written under another window is stale: start the account again (all of it is idempotent).
  const from = start && start.retention_days === days ? start : null;
  const needsResync = account.ttl_retention_days !== days;
  const bound = sweepCutoffBound(run.now, days, run.ttlLagSeconds);
  const fromStep = from ? STEPS.findIndex(([phase, direction]) => phase === from.phase && direction === from.direction) : 0;

  for (const [index, [phase, direction]] of STEPS.entries()) {
    if (index < fromStep || (phase === 'resync' && !needsResync)) continue;
    let after = index === fromStep ? (from?.after ?? null) : null;
    // A cursor at or past the bound (a clock that went back) leaves nothing to delete in this direction.
    if (phase === 'delete' && after !== null && after >= bound) continue;
    for (;;) {
      if (run.outOfTime()) return { account_id: accountId, phase, direction, after, retention_days: days };
      const page = await listEventsOldestFirst(accountId, direction, {
        before: phase === 'delete' ? bound : undefined,
        after,
        limit: run.pageSize,
      });
      for (const listed of page.items) {
        if (run.outOfTime()) return { account_id: accountId, phase, direction, after, retention_days: days };
        if (phase === 'delete') await sweepEvent(accountId, listed.id, run);
        else if (await resyncEvent(accountId, listed.id, days, run.now)) run.report.ttl_resynced++;
        after = listed.id;
      }
      if (!page.next) break;
      after = page.next;
    }
  }
  if (needsResync) await recordTtlWindow(accountId, days);
  return undefined;
}

/**
 * Deletes one settled event (one that still waits is kept instead, `keepWaitingEvent`): its
 * body item, then the payload object that item points at, then the de-duplication item and attempts,
 * the status item last. A crash part-way leaves the event listed (its
 * status item is the list entry), so the next run finds it and finishes the job.
 *
 * The body item goes before the object because it is what every reader follows to it: without it the
 * event reads as gone, so no link to a deleted object is ever served, even for an event that readers
 * still see (its items keep the longer TTL of a window that was shortened and not yet re-timed). A crash
 * between the two leaves an object that nothing points at; in AWS its class's lifecycle rule takes it
 * (the same rule that takes every object whose event TTL deleted), locally it stays in the data dir.
 */
async function sweepEvent(accountId: string, eventId: string, run: Run): Promise<void> {
  const { report } = run;
  const parts = await readEventParts(accountId, eventId);
  // A status item that cannot be read is left alone: nothing is deleted on a guess.
  if (parts.status === 'unreadable') {
    report.skipped_unsettled++;
    return;
  }
  if (parts.status && !isSweepable(parts.status.status)) {
    // Nothing is ended on a guess either: a status item that is no whole event is left for the operator.
    if (!parts.event) {
      report.skipped_unsettled++;
      return;
    }
    report.kept_waiting++;
    report.ttl_kept += await keepWaitingEvent({ ...parts, event: parts.event }, run.now);
    return;
  }
  let sideItems = parts.sideItems;
  if (parts.payloadRef && parts.body) {
    await deleteSideItems([parts.body]);
    sideItems = sideItems.filter((item) => item !== parts.body);
    await deletePayload(parts.payloadRef);
    report.deleted_payloads++;
  }
  if (parts.status?.dedupe_key) await deleteDedupeIfOwned(accountId, parts.status.dedupe_key, eventId);
  await deleteSideItems(sideItems);
  report.deleted_attempts += parts.attempts;
  if (await deleteSettledStatusItem(accountId, eventId)) report.deleted_events++;
}

/**
 * Keeps an event that still waits past its window (rule 5): every item of its partition whose TTL
 * falls due soon (`keptExpiresAt`) is pushed out, and with them what it owns elsewhere (its
 * de-duplication item, subject and customer entries, ordering places, held items), which were written
 * with the same TTLs; nothing is written while none is due. Returns how many of its own items it kept.
 */
async function keepWaitingEvent({ event, sideItems, waits, body, payloadRef }: StoredEventParts & { event: EventRecord }, now: Date): Promise<number> {
  let expiresAt: number | undefined;
  let kept = 0;
  for (const item of sideItems) {
    const pushed = keptExpiresAt(item.expiresAt, now);
    if (pushed === undefined) continue;
    expiresAt = pushed;
    if (await setSideItemExpiry(item, pushed)) kept++;
    // Its object expires by its class's rule, from when it was written: written again with the body's keep.
    if (item === body && payloadRef) {
      await movePayload(payloadRef, payloadKey(event.account_id, event.id, keptPayloadClass(payloadKeyClass(payloadRef))), body);
    }
  }
  if (expiresAt === undefined) return 0;
  const at = expiresAt;
  if (event.dedupe_key) await setDedupeExpiry(event.account_id, event.dedupe_key, event.id, at);
  if (event.subject_hash) await setSubjectEntryExpiry(event.account_id, event.subject_hash, event.id, at);
  if (event.customer) await setCustomerEntryExpiry(event.account_id, event.customer, event.id, at);
  await keepLines(event, at);
  for (const { destinationId, reason, due } of waits) {
    if (PARKED.has(reason) && due) await keepParked(event.account_id, destinationId, { event_id: event.id, due });
  }
  return kept;
}

/** Waits whose delivery has a held item (lambdas/store/held-deliveries.ts). */
const PARKED: ReadonlySet<string> = new Set(['breaker_open', 'paused', 'unverified', 'concurrency']);

/**
 * Re-times one event's TTLs for the account's window: the status item through the usual optimistic
 * write (so a concurrent transition is not lost), which also records the window on the event so later
 * transitions keep it; body, attempts, replay claims, de-duplication item and subject index entry with a conditional update
 * each; a payload object is moved to the new window's class. The settle time is not stored, so the
 * status item's base is its latest attempt (or its creation), which is never earlier than its creation:
 * TTL never takes an event before the sweeper would. Returns whether anything was rewritten.
 */
async function resyncEvent(accountId: string, eventId: string, days: number, now: Date): Promise<boolean> {
  const { event, sideItems, body, payloadRef } = await readEventParts(accountId, eventId);
  if (!event) return false;
  let changed = false;
  // A shorter window re-times what still waits no earlier than its keep would: nothing of it expires.
  const retimed = (target: number) => retimedExpiresAt(target, !isSweepable(event.status), now);

  if (event.retention_days !== days) {
    // The status item's TTL follows from its receipt and window, so writing the window re-times it.
    const result = await changeEvent(accountId, eventId, (current) =>
      current.retention_days === days ? undefined : { ...current, retention_days: days },
    );
    changed = result?.changed === true;
  }

  for (const item of sideItems) {
    const expiresAt = retimed(sideItemExpiresAt(item.countsFrom ?? event.received_at, days));
    if (item.expiresAt === expiresAt) continue;
    if (await setSideItemExpiry(item, expiresAt)) changed = true;
  }
  if (event.dedupe_key) {
    // Only while it still names this event; not compared first (that would cost a read per event).
    await setDedupeExpiry(accountId, event.dedupe_key, eventId, retimed(sideItemExpiresAt(event.received_at, days)));
  }
  if (event.subject_hash) await setSubjectEntryExpiry(accountId, event.subject_hash, eventId, retimed(sideItemExpiresAt(event.received_at, days)));
  if (body && payloadRef && payloadKeyClass(payloadRef) !== payloadRetentionClass(days)) {
    await movePayload(payloadRef, payloadKey(accountId, eventId, days), body);
    changed = true;
  }
  return changed;
}

/**
 * A payload object expires with its class's prefix, so a new window moves it to the new window's class:
 * a longer one must not lose the body before its event (in AWS nothing else would keep it), a shorter
 * one must not keep it longer than promised. Copy, repoint the body item, then delete the old object:
 * a crash part-way leaves only an object that nothing points at, which its class's rule takes; the
 * next run copies again (the body item still names the old key) or finds nothing to move. No item
 * names the old key when it goes; a reader that read it an instant before fails once and reads again.
 */
async function movePayload(from: string, to: string, body: SideItem): Promise<void> {
  await copyPayload(from, to);
  // Gone (swept meanwhile) or already pointing elsewhere: the copy is nobody's.
  await deletePayload((await setPayloadRef(body, from, to)) ? from : to);
}
