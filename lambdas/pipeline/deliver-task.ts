import { externalIdOf } from '../domain/aws-targets';
import { scheduleFor } from '../domain/backoff';
import { autoDisableHours, autoDisableReason } from '../domain/auto-disable';
import { afterFailure, afterSuccess, breakerGate, breakerTransition, takeProbe, type BreakerState } from '../domain/breaker';
import { deliveryHeaders, headerFacts } from '../domain/delivery-headers';
import { checkArrival, claimedDelivery, decideClaim, endedDelivery, keptResponseBody, firstLookPause, heldDelivery, inProcessLooks, missingEventWait, settledDelivery, settledFirstTry, settleTry, type Settlement } from '../domain/delivery-phases';
import type { DeliveryState, EndReason } from '../domain/progress';
import { isTerminalDelivery } from '../domain/event-status';
import { carriedWait, EARLY_TOLERANCE_MS, type TaskWait } from '../domain/queue-wait';
import { activeSecrets } from '../domain/signing';
import { signerKeysOf } from '../signing-keys';
import type { DeliveryTask } from '../adapters/delivery-queue';
import { longestTryMs, type DeliveryResult } from '../adapters/http-sender';
import type { DeliverySender } from '../adapters/delivery-sender';
import { readStoredBody } from '../adapters/payloads';
import { config } from '../shared/config';
import { appendLogKeys, log } from '../shared/log';
import { recordBreakerTransition, recordDeliveryAttempt, recordDeliveryEnded } from '../shared/metrics';
import { newId, newSpanBytes } from '../shared/secrets';
import { changeBreaker, findBreaker } from '../store/breakers';
import { takeSendSlot } from '../store/rate-limits';
import { isStaleSlot, planSlot } from '../domain/rate-limit';
import { noticeBreaker, noticeDeadLetter, noticeDisabled, type BreakerUpdate } from './delivery-notices';
import { park, scheduleWakes, startRelease, type Park } from './held-deliveries';
import { accountShareWait, capNeeded, markedCapped, maxInFlight, overCapWait } from '../domain/max-in-flight';
import { releaseLease, takeLease, type Lease, type Take } from '../store/leases';
import { traceOf, traceparentOf } from '../domain/trace-context';
import { disableDestination } from '../destinations/record';
import { changeDelivery, eraseLateResponseBodies, findAttempt, findDeliveryContext, insertAttempt, isTombstone, markGaveUp, settleEventIfDone, settleOnlyDelivery, type StoredDelivery } from '../events/record';
import { erasedAttempt } from '../domain/erasure';
import type { DestinationRecord } from '../destinations/record';
import type { AttemptRecord, EventBodyRecord, EventRecord } from '../events/record';
import { destinationRouting } from '../store/routing-table';
import { orderedWait } from '../domain/ordering';
import { lineCheck, releaseNext } from './ordering';

/** What the queue should do with the task's message afterwards: drop it, or bring it back (as `queueWait` decides). */
export type TaskResult = { kind: 'done' } | ({ kind: 'wait' } & TaskWait);

export interface DeliverDeps {
  /** An http destination's POST, an AWS destination's call (`aws` set) or a listen connection's (`listen` set): the only step that differs by type. */
  send: DeliverySender;
  now: () => Date;
}

/** A try in flight belongs to its worker until the worker's Lambda would have timed out. */
const leaseMs = () => config().deliveryLeaseMs;
/** A probe holds its destination's breaker for as long as its try may take plus this margin (its settle writes). */
const PROBE_MARGIN_MS = 5_000;
const DISABLED_BY_GONE = 'the endpoint answered 410 Gone';

type Versioned = BreakerState & { version: number };

/** A delivery this worker has claimed: everything the send and settle phases need. */
interface Claimed {
  /** As stored: the status item (the plan, until the event settles). */
  event: EventRecord;
  body: EventBodyRecord;
  delivery: StoredDelivery;
  destination: DestinationRecord;
  breaker: Versioned;
  /** Null: a first try sent without a claim (`prepare`), its outcome its one write. */
  claimedAt: Date | null;
  attemptNumber: number;
  /** This try is the one probe of an open breaker. */
  probe: boolean;
  /** Its send slot (epoch ms), when its destination has a rate limit. */
  sendAt?: number;
  /** Its leases under the destination's cap and its account's share, held until the try is over; none while the destination needs no cap. */
  leases?: CapLeases;
}

/**
 * Not yet, with no try spent (breaker, rate limit, concurrency cap): the wait is stored as the
 * delivery's due time, so the event shows when its next try comes. `event` and `now` are what the
 * decision was made on.
 */
type Hold = {
  kind: 'hold';
  event: EventRecord;
  delivery: StoredDelivery;
  now: Date;
} & (
  | /** Back in the queue at its send slot. */ { reason: 'rate_limit'; wait: TaskWait }
  | /** Parked until the breaker lets it through (`until`: the earliest it may). */ { reason: 'breaker_open'; until: Date }
  | /** Back in the queue a few seconds, keeping its send slot; its destination stays under its cap a while (`markedCapped`). */ { reason: 'concurrency'; breaker: Versioned; slot?: number }
  | /** Parked until its destination is switched back on, or its endpoint proves its ownership. */ { reason: 'paused' | 'unverified' }
);

type Prepared = TaskResult | Hold | { kind: 'claimed'; claimed: Claimed };

/**
 * One delivery task, in phases: prepare (read, decide, claim), then either hold (store the wait) or
 * send and settle (attempt, outcome, breaker). Idempotent against duplicate messages: a settled or
 * already-claimed delivery is left alone.
 */
export async function deliverTask(task: DeliveryTask, deps: DeliverDeps): Promise<TaskResult> {
  const now = deps.now();
  const carried = carriedWait(task, now);
  if (carried) return { kind: 'wait', ...carried };
  const prepared = await prepare(task, now, deps.now);
  switch (prepared.kind) {
    case 'done':
    case 'wait':
      return prepared;
    case 'hold':
      return hold(task, prepared);
    case 'claimed': {
      let leases = prepared.claimed.leases;
      const letGo = async () => {
        if (leases) await letCapGo(task, leases);
        leases = undefined;
      };
      try {
        const result = await sendWatched(task, prepared.claimed, deps);
        // A success frees its lease at once. A failure is settled first, so a delivery that takes the
        // lease it frees sees the breaker this failure may have opened (`prepare` reads it again).
        if (result.outcome === 'success') await letGo();
        return await settle(task, prepared.claimed, result, deps);
      } finally {
        await letGo();
      }
    }
  }
}

/** What a try under its destination's cap holds while in flight: one of the destination's leases and one of its account's share (or borrowed past it). */
interface CapLeases {
  cap: Lease;
  share: Lease;
}

type CapTake = { kind: 'taken'; leases: CapLeases } | { kind: 'over_cap' } | { kind: 'over_share' } | { kind: 'in_flight' };

/**
 * A lease under the destination's cap, then one under its account's share (the cap first: a
 * destination over its cap is the common wait, and it then costs one refused write), or, the share
 * full, one borrowed past it while the batches have room beyond two shares. `in_flight`: a copy of
 * this delivery holds one already.
 */
async function takeCap(task: DeliveryTask, cap: number, now: Date): Promise<CapTake> {
  if (foundFull(task.account_id, now)) return { kind: 'over_share' };
  const until = now.getTime() + leaseMs();
  const taken = await takeLease({ accountId: task.account_id, destinationId: task.destination_id }, task.event_id, cap, now, until);
  if (taken.kind !== 'taken') return { kind: taken.kind === 'held' ? 'in_flight' : 'over_cap' };
  const holder = `${task.destination_id}/${task.event_id}`;
  const share = await takeLease({ accountId: task.account_id }, holder, config().accountTries, now, until)
    .then((inShare) => (inShare.kind === 'full' ? borrow(`${task.account_id}/${holder}`, now, until) : inShare))
    .catch(async (error: unknown) => {
      await releaseLease(taken.lease);
      throw error;
    });
  if (share.kind === 'taken') return { kind: 'taken', leases: { cap: taken.lease, share: share.lease } };
  await releaseLease(taken.lease);
  if (share.kind === 'full') markFull(task.account_id, now);
  return { kind: share.kind === 'held' ? 'in_flight' : 'over_share' };
}

async function borrow(holder: string, now: Date, until: number): Promise<Take> {
  if (foundFull(BORROWED, now)) return { kind: 'full' };
  const borrowed = await takeLease({ borrowed: true }, holder, config().borrowedTries, now, until);
  if (borrowed.kind === 'full') markFull(BORROWED, now);
  return borrowed;
}

/**
 * Accounts whose share (and the borrowed maps) this process found full, and until when it takes them
 * for full without a look: for a second, however many of their deliveries come meanwhile, each waits
 * without a write (no lease of its destination taken and let go, no refused take on keys every one of
 * them shares). A lease let go meanwhile is seen a second late at most.
 */
const fullUntil = new Map<string, number>();
const BORROWED = '';
const FULL_FOR_MS = 1_000;

function foundFull(key: string, now: Date): boolean {
  const until = fullUntil.get(key);
  if (until === undefined || until > now.getTime()) return until !== undefined;
  fullUntil.delete(key);
  return false;
}

function markFull(key: string, now: Date): void {
  if (fullUntil.size >= 10_000) for (const [k, until] of fullUntil) if (until <= now.getTime()) fullUntil.delete(k);
  fullUntil.set(key, now.getTime() + FULL_FOR_MS);
}

/** Leases not let go (the table failed) lapse at their end, when the next take clears them. */
async function letCapGo(task: DeliveryTask, { cap, share }: CapLeases): Promise<void> {
  await Promise.all([releaseLease(cap), releaseLease(share)]).catch((error: unknown) =>
    log.error('lease not let go; free when it lapses', { account_id: task.account_id, destination_id: task.destination_id }, error),
  );
}

async function prepare(task: DeliveryTask, now: Date, clock: () => Date): Promise<Prepared> {
  const { account_id: accountId, event_id: eventId, destination_id: destinationId } = task;
  let loaded = await findWrittenEvent(task, now);
  if (!loaded) {
    const missing = missingEventWait(task.sent_at, now, config().missingEventGraceSeconds);
    if (missing.kind === 'wait') return { kind: 'wait', until: missing.until };
    // A first message gives up leaving its mark, which its accept finds should it write the event after
    // all. An item there first is that accept's: the event is written now, and this task goes on with it.
    if (missing.kind === 'skip' || (await markGaveUp(accountId, eventId, destinationId, now))) return { kind: 'done' };
    loaded = await readContext(task);
    if (!loaded) return { kind: 'done' }; // an earlier copy's mark
  }
  appendLogKeys({ trace_id: traceOf(loaded.body.trace, eventId).id });
  const timing = { now, leaseMs: leaseMs(), earlyToleranceMs: EARLY_TOLERANCE_MS };
  const stored = loaded.delivery;
  const delivery = stored?.state;
  const arrival = checkArrival({ delivery, ...timing });
  if (arrival.kind === 'skip') {
    // An ended delivery of an unsettled event: the worker that ended it may have died before settling it.
    if (delivery && isTerminalDelivery(delivery.status)) {
      await settleEventIfDone(loaded.event);
      // Its worker may have died before it released the next of its line: released again (a duplicate is ignored).
      await releaseNext(loaded.event, destinationId);
    }
    return { kind: 'done' };
  }
  if (arrival.kind === 'wait') return { kind: 'wait', until: arrival.until }; // its due time is stored already
  // Before anything else is read: a delivery behind an earlier one of its key waits for that one, whatever its destination's state.
  const line = await lineCheck(loaded.event, destinationId, now);
  if (line.kind === 'wait' && stored) return waitInLine(task, loaded.event, stored, line, now);
  let { destination, breaker } = await destinationRouting(accountId, destinationId);
  // Another function may have created it after this one cached its absence: only a fresh read may say it is gone.
  if (!destination) ({ destination, breaker } = await destinationRouting(accountId, destinationId, { fresh: true }));
  // A try in flight whose worker is gone: if it recorded its try, its outcome is settled from it, never
  // sent again. A first try is recorded in the same write as its outcome, so only later ones can be.
  if (stored && delivery?.status === 'delivering' && destination && delivery.attempts > 0) {
    const recorded = await findAttempt(accountId, eventId, destinationId, delivery.attempts + 1);
    if (recorded) return settleRecorded(task, loaded.event, stored, destination, recorded);
  }
  // A manual action (a replay, a portal resend or test) goes at once as the probe of an open breaker.
  const manual = task.manual === true && (delivery?.attempts ?? 0) === 0; // its retries wait like any other's
  const decision = decideClaim({
    delivery,
    destination,
    customer: loaded.event.customer,
    gate: breakerGate(breaker, now, manual),
    payloadErased: loaded.event.payload_erased === true,
    ...timing,
  });
  switch (decision.kind) {
    case 'skip':
      return { kind: 'done' };
    case 'end':
      if (stored) await endDelivery(task, loaded.event, stored, decision.reason);
      return { kind: 'done' };
    case 'wait':
      return stored ? { kind: 'hold', reason: 'breaker_open', until: decision.until, event: loaded.event, delivery: stored, now } : { kind: 'done' };
    case 'paused':
      return stored ? { kind: 'hold', reason: decision.reason, event: loaded.event, delivery: stored, now } : { kind: 'done' };
    case 'claim': {
      if (!destination || !stored) return { kind: 'done' };
      let sendAt: number | undefined;
      if (destination.rate_limit_per_second) {
        const paced = await pace(task, loaded.event, stored, destination.rate_limit_per_second, clock);
        if (paced.kind !== 'send') return paced;
        sendAt = paced.at;
      }
      const tryOf = (delivery: StoredDelivery, claimedAt: Date | null, leases?: CapLeases): Prepared => ({
        kind: 'claimed',
        claimed: {
          event: loaded.event,
          body: loaded.body,
          delivery,
          destination,
          breaker,
          claimedAt,
          attemptNumber: delivery.state.attempts + 1,
          probe: decision.probe,
          sendAt,
          leases,
        },
      });
      // A delivery that waited (over the cap, parked by its breaker or its switched-off destination)
      // takes a lease whatever its destination's health: the cap bounds how many of them go at once.
      const waited = Boolean(stored.state.waiting) && stored.state.waiting?.reason !== 'rate_limit' && stored.state.waiting?.reason !== 'ordering';
      const capped = waited || capNeeded(maxInFlight(destination), breaker, now);
      // Nobody has tried, held or ended it (no item of its own: an accept that may send it twice gives it
      // one, `writeUntriedDeliveries`), at a destination that needs no cap: it goes unclaimed, and its
      // outcome is its one write (SQS's rare duplicate may send it twice).
      if (!capped && stored.version === 0 && !decision.probe) return tryOf(stored, null);
      let leases: CapLeases | undefined;
      if (capped) {
        const taken = await takeCap(task, maxInFlight(destination), now);
        switch (taken.kind) {
          case 'over_cap':
            return { kind: 'hold', reason: 'concurrency', breaker, slot: sendAt, event: loaded.event, delivery: stored, now };
          case 'over_share':
            return { kind: 'wait', until: accountShareWait(now, Math.random), slot: sendAt };
          case 'in_flight':
            return { kind: 'wait', until: overCapWait(now, now, Math.random), slot: sendAt };
        }
        leases = taken.leases;
        // A failing destination's breaker, read again under the lease: a failed try lets its lease go
        // only after its breaker write, so a failure that opened the breaker is seen here, and the
        // lease it freed lets through no try the breaker is there to prevent.
        if (!decision.probe && breaker.consecutive_failures > 0) {
          const gate = breakerGate(await findBreaker(accountId, destinationId).catch(async (error: unknown) => {
            await letCapGo(task, taken.leases);
            throw error;
          }), now, manual);
          if (gate.kind !== 'pass') {
            await letCapGo(task, leases);
            return { kind: 'hold', reason: 'breaker_open', until: gate.kind === 'wait' ? gate.until : now, event: loaded.event, delivery: stored, now };
          }
        }
      }
      const held = leases;
      const claimed = await claimUnderCap(task, loaded.event, stored, destination, breaker, decision.probe, manual, now).catch(async (error: unknown) => {
        if (held) await letCapGo(task, held);
        throw error;
      });
      if (claimed.kind !== 'claimed' && held) await letCapGo(task, held);
      if (claimed.kind === 'hold') return claimed;
      if (claimed.kind !== 'claimed') return { kind: 'done' };
      return tryOf(claimed.claim.delivery, now, held);
    }
  }
}

/**
 * With its leases taken (or none needed): the breaker's probe, when this try is to be it, then the
 * delivery's claim. Either can be lost to another worker (the caller then lets the leases go).
 */
async function claimUnderCap(task: DeliveryTask, event: EventRecord, stored: StoredDelivery, destination: DestinationRecord, breaker: Versioned, probe: boolean, manual: boolean, now: Date) {
  const { account_id: accountId, destination_id: destinationId } = task;
  if (probe) {
    const taken = await changeBreaker(
      accountId,
      destinationId,
      breaker,
      (current) => takeProbe(current, now, longestTryMs(destination.timeout_ms) + PROBE_MARGIN_MS, manual),
      (next, current) => scheduleWakes(accountId, destinationId, current, next, now),
    );
    const gate = breakerGate(taken.breaker, now, manual);
    if (!taken.changed && gate.kind === 'wait') return { kind: 'hold', reason: 'breaker_open', until: gate.until, event, delivery: stored, now } satisfies Hold;
  }
  const claim = await changeDelivery(event, destinationId, (current) => claimedDelivery(current, now, leaseMs()), stored);
  if (claim?.changed) return { kind: 'claimed' as const, claim };
  return { kind: 'lost' as const, delivery: claim?.delivery ?? stored };
}

/**
 * The event, its body and the task's delivery. A first message can arrive while its accept is still
 * writing the event (messages go first, and a consumer may take one within milliseconds): such a task
 * first gives the accept its writes' time, then looks again a few times in-process before it waits in
 * the queue, where a wait costs whole seconds.
 */
async function findWrittenEvent(task: DeliveryTask, now: Date) {
  const first = firstLookPause(task.sent_at, now);
  if (first > 0) await new Promise((resolve) => setTimeout(resolve, first));
  let loaded = await readContext(task);
  const looks = loaded ? [] : inProcessLooks(task.sent_at, now);
  for (const pause of looks) {
    await new Promise((resolve) => setTimeout(resolve, pause));
    loaded = await readContext(task);
    if (loaded) break;
  }
  return loaded;
}

const readContext = (task: DeliveryTask) => findDeliveryContext(task.account_id, task.event_id, task.destination_id, task.body);

/**
 * A rate-limited destination's delivery takes its send slot (one per delivery, kept across the queue
 * hops that wait for it): sent at that time (the send waits for it, so nothing between spreads the
 * sends unevenly), or, when it is further off, held with the slot.
 */
async function pace(task: DeliveryTask, event: EventRecord, delivery: StoredDelivery, limit: number, clock: () => Date): Promise<Hold | { kind: 'send'; at: number }> {
  // The time now, not the task's arrival: a slot taken for a moment already past would be sent at once, with others.
  const carried = task.rate_slot !== undefined && !isStaleSlot(task.rate_slot, clock()) ? task.rate_slot : undefined;
  const slot = carried ?? (await takeSendSlot(task.account_id, task.destination_id, limit, clock()));
  const now = clock();
  const plan = planSlot(slot, now);
  if (plan.kind === 'send') return { kind: 'send', at: slot };
  return { kind: 'hold', reason: 'rate_limit', wait: { until: plan.until, slot }, event, delivery, now };
}

/**
 * Stores why the delivery waits. Waiting for a send slot, its message comes back at the slot. Held by
 * its breaker or its destination being switched off, it is parked and its message is done: it sleeps
 * until the breaker lets it through or the destination is switched back on. Over its destination's
 * cap, it waits in the queue (`waitOverCap`). A delivery settled or claimed meanwhile has no wait to
 * store, and its task is done.
 */
async function hold(task: DeliveryTask, held: Hold): Promise<TaskResult> {
  if (held.reason === 'concurrency') return waitOverCap(task, held);
  const { event, delivery, now } = held;
  const until = held.reason === 'rate_limit' ? held.wait.until : held.reason === 'breaker_open' ? held.until : null;
  const changed = await changeDelivery(event, task.destination_id, (current) => heldDelivery(current, held.reason, until, now, leaseMs()), delivery);
  if (!changed?.changed) return { kind: 'done' };
  if (held.reason === 'rate_limit') return { kind: 'wait', ...held.wait };
  const how: Park = {
    reason: held.reason,
    due: changed.delivery.state.next_attempt_at ?? now.toISOString(),
    again: PARKED_REASONS.has(delivery.state.waiting?.reason ?? ''),
  };
  await park(task, how);
  return { kind: 'done' };
}

const PARKED_REASONS = new Set(['breaker_open', 'paused', 'unverified']);

/**
 * Over its destination's cap: shown as waiting for it (one write, the first time), then back in the
 * queue with no try spent (`overCapWait`: seconds at first, longer the longer it waits), its send slot kept; its destination stays under its cap
 * a while (`keepUnderCap`). Nothing is parked: the lease a try lets go is taken by whichever waiting
 * delivery comes back first.
 */
async function waitOverCap(task: DeliveryTask, held: Extract<Hold, { reason: 'concurrency' }>): Promise<TaskResult> {
  const { event, delivery, now } = held;
  if (delivery.state.waiting?.reason !== 'concurrency') {
    const changed = await changeDelivery(event, task.destination_id, (current) => heldDelivery(current, 'concurrency', null, now, leaseMs()), delivery);
    if (!changed?.changed) return { kind: 'done' };
    // Once per delivery, beside the parks: the rule that counts a destination's backlog counts both.
    log.info('delivery over its cap', { account_id: task.account_id, destination_id: task.destination_id, event_id: task.event_id });
  }
  await keepUnderCap(task, held.breaker, now);
  const dueSince = new Date(delivery.state.next_attempt_at ?? now.toISOString());
  return { kind: 'wait', until: overCapWait(now, dueSince, Math.random), slot: held.slot };
}

/**
 * Waits behind the earlier delivery of its ordering key (`behind`): shown in the event, with no message,
 * timer or held item; that delivery's end sends its task (`releaseNext`), and its message is done.
 * Behind an event not written yet, its message comes back at `recheckAt` (`lineCheck`).
 */
async function waitInLine(task: DeliveryTask, event: EventRecord, delivery: StoredDelivery, { behind, recheckAt }: { behind: string; recheckAt?: Date }, now: Date): Promise<TaskResult> {
  await changeDelivery(event, task.destination_id, (current) => orderedWait(current, behind, now, leaseMs()), delivery);
  return recheckAt ? { kind: 'wait', until: recheckAt } : { kind: 'done' };
}

async function endDelivery(task: DeliveryTask, event: EventRecord, delivery: StoredDelivery, reason: EndReason): Promise<void> {
  const ended = await changeDelivery(event, task.destination_id, (current) => endedDelivery(current, reason), delivery);
  if (!ended?.changed) return;
  await settleEventIfDone(event);
  await releaseNext(event, task.destination_id);
  recordDeliveryEnded(reason);
  log.info('delivery ended without a try', { account_id: task.account_id, event_id: task.event_id, destination_id: task.destination_id, reason });
}

/**
 * Sends the try; one still in flight after `slowTryMs` (SLOW_TRY_MS) keeps its destination under its cap a while
 * (`keepUnderCap`). The mark is written while the try waits, not after it: a hanging endpoint is under
 * its cap within a second, not after its timeout.
 */
async function sendWatched(task: DeliveryTask, claimed: Claimed, deps: DeliverDeps): Promise<DeliveryResult> {
  let marking: Promise<void> | undefined;
  const timer = setTimeout(() => {
    marking = keepUnderCap(task, claimed.breaker, deps.now());
  }, config().slowTryMs);
  try {
    return await send(claimed, deps);
  } finally {
    clearTimeout(timer);
    await marking;
  }
}

/**
 * Keeps the destination under its cap for a while (`markedCapped`: no write when it is already). A mark
 * that fails costs the cap its precision for a moment, not the delivery.
 */
async function keepUnderCap(task: DeliveryTask, known: Versioned, now: Date): Promise<void> {
  try {
    await changeBreaker(task.account_id, task.destination_id, known, (current) => markedCapped(current, now));
  } catch (error) {
    log.error('destination not kept under its cap', { account_id: task.account_id, destination_id: task.destination_id }, error);
  }
}

async function send({ destination, event, body: stored, sendAt, attemptNumber }: Claimed, deps: DeliverDeps): Promise<DeliveryResult> {
  const body = await readStoredBody(stored);
  const early = sendAt === undefined ? 0 : sendAt - deps.now().getTime();
  if (early > 0) await new Promise((resolve) => setTimeout(resolve, early));
  const now = deps.now();
  const headers = deliveryHeaders({
    ...headerFacts(event, stored.content_type, destination, config().version),
    body,
    timestamp: Math.floor(now.getTime() / 1000),
    traceparent: traceparentOf(traceOf(stored.trace, event.id), newSpanBytes()),
    secrets: activeSecrets(destination, now),
    keys: destination.signature_scheme === 'ed25519' ? await signerKeysOf(destination, now) : [],
  });
  const target = destination.aws_target;
  return deps.send({
    url: destination.url,
    headers,
    body,
    timeoutMs: destination.timeout_ms,
    allowPrivate: config().allowPrivateDestinations,
    aws: target && {
      target,
      roleArn: destination.role_arn,
      externalId: destination.external_id ?? externalIdOf(destination.account_id),
      accountId: destination.account_id,
      destinationId: destination.id,
      eventId: event.id,
      eventType: event.event_type,
      receivedAt: event.received_at,
      orderingKey: event.ordering_key ?? null,
    },
    listen: destination.listen_session === null ? null : { accountId: event.account_id, destinationId: destination.id, eventId: event.id, eventType: event.event_type, attempt: attemptNumber },
  });
}

async function settle(task: DeliveryTask, claimed: Claimed, result: DeliveryResult, deps: DeliverDeps): Promise<TaskResult> {
  const { account_id: accountId, event_id: eventId, destination_id: destinationId } = task;
  const attemptedAt = deps.now();
  const settlement = settleTry(result, claimed.attemptNumber, scheduleFor(claimed.destination, config().retrySchedule), attemptedAt);
  const attempt: AttemptRecord = {
    id: newId(),
    event_id: eventId,
    destination_id: destinationId,
    attempt_number: claimed.attemptNumber,
    outcome: result.outcome,
    response_status: result.responseStatus,
    response_body: keptResponseBody(result),
    error: result.error,
    attempted_at: attemptedAt.toISOString(),
    duration_ms: result.durationMs,
  };
  const settled = await recordTry(claimed, attempt, settlement.next);

  if (settlement.disable) {
    await disable(claimed, DISABLED_BY_GONE, claimed.breaker.failing_since, attemptedAt);
  } else {
    const breaker = await updateBreaker(task, claimed, result.outcome === 'success', attemptedAt);
    if (breaker) {
      await noticeBreaker(claimed.event, claimed.destination, breaker, attemptedAt);
      const failingSince = breaker.after.failing_since;
      const reason = claimed.destination.active ? autoDisableReason(autoDisableHours(claimed.destination), failingSince, attemptedAt) : null;
      if (reason) await disable(claimed, reason, failingSince, attemptedAt);
    }
  }

  const deadLettered = settlement.next.status === 'dead_letter';
  if (deadLettered && settled?.changed) await noticeDeadLetter(claimed.event, claimed.destination, attempt, settlement.next.end_reason ?? null, attemptedAt);
  recordDeliveryAttempt({ outcome: result.outcome, deadLettered, receivedAt: claimed.event.received_at, attemptedAt });
  // Successes show in the metrics; a log line each would cost more than the delivery's queue message.
  if (result.outcome !== 'success') log.info('delivery attempt failed', {
    account_id: accountId,
    event_id: eventId,
    destination_id: destinationId,
    attempt: claimed.attemptNumber,
    outcome: result.outcome,
    status: result.responseStatus,
    duration_ms: result.durationMs,
  });
  return afterSettlement(settlement, attemptedAt);
}

/**
 * Settles a try its worker recorded and then died before settling (the breaker, auto-disable and
 * notices of that try are lost with the worker; the delivery's state is not).
 */
async function settleRecorded(task: DeliveryTask, event: EventRecord, delivery: StoredDelivery, destination: DestinationRecord, attempt: AttemptRecord): Promise<TaskResult> {
  const claimedAt = delivery.state.claimed_at;
  if (claimedAt === null) return { kind: 'done' };
  const attemptedAt = new Date(attempt.attempted_at);
  const result = { outcome: attempt.outcome, responseStatus: attempt.response_status, retryAfterSeconds: null };
  const settlement = settleTry(result, attempt.attempt_number, scheduleFor(destination, config().retrySchedule), attemptedAt);
  const settled = await writeSettlement(event, task.destination_id, delivery, new Date(claimedAt), settlement.next);
  return settled?.changed ? afterSettlement(settlement, attemptedAt) : { kind: 'done' };
}

/**
 * Records a try and its outcome. A first try is written with its outcome, in one write of the
 * delivery's item (a crash cannot part them); a later one is its own item first, so a worker that
 * dies before the outcome leaves a try that whoever takes over settles from (`settleRecorded`). A
 * try whose claim was taken over meanwhile keeps its attempt, as an item of its own.
 */
async function recordTry(claimed: Claimed, attempt: AttemptRecord, next: DeliveryState) {
  const { event, delivery, claimedAt } = claimed;
  if (claimedAt === null) return recordUnclaimedTry(claimed, attempt, next);
  if (attempt.attempt_number !== 1) {
    await insertOwnAttempt(event, attempt);
    return writeSettlement(event, attempt.destination_id, delivery, claimedAt, next);
  }
  const settled = await writeSettlement(event, attempt.destination_id, delivery, claimedAt, next, attempt);
  if (!settled?.changed) await insertOwnAttempt(event, attempt);
  return settled;
}

/** A try as an attempt item of its own (a later try, or one whose outcome another worker's write came before). */
async function insertOwnAttempt(event: EventRecord, attempt: AttemptRecord): Promise<void> {
  const kept = await keptAttempt(event, attempt);
  await insertAttempt(event.account_id, kept, event.retention_days);
  await eraseIfTombstone(event, kept);
}

/**
 * A try on the wire when its event's payload was erased keeps no answer (a receiver's answer may echo
 * the payload). Outside the status item (whose own write sees the erasure, `settleOnlyDelivery`), the
 * try reads the status item before its write, and writes no answer to a tombstone; when it wrote one
 * it reads again after (`eraseIfTombstone`), for an erasure that marked the event in between. Only a
 * try with an answer, of an event with a subject, reads: an erasure finds no other event.
 */
const mayBeErased = (event: EventRecord, attempt: AttemptRecord) => attempt.response_body !== '' && event.subject_hash !== undefined;

async function keptAttempt(event: EventRecord, attempt: AttemptRecord): Promise<AttemptRecord> {
  return mayBeErased(event, attempt) && (await isTombstone(event.account_id, event.id)) ? erasedAttempt(attempt).attempt : attempt;
}

async function eraseIfTombstone(event: EventRecord, written: AttemptRecord): Promise<void> {
  if (mayBeErased(event, written)) await eraseLateResponseBodies(event.account_id, event.id);
}

/**
 * A first try sent without a claim, in one write: an event's only delivery that it ended settles the
 * event in its status item; any other outcome is its delivery's first item. A try that lost to another
 * worker's (a duplicate message) keeps its attempt, as an item of its own.
 */
async function recordUnclaimedTry({ event, delivery }: Claimed, attempt: AttemptRecord, next: DeliveryState) {
  if (Object.keys(event.deliveries).length === 1 && isTerminalDelivery(next.status)) {
    const settled = await settleOnlyDelivery(event, attempt.destination_id, (current) => settledFirstTry(current, next), attempt);
    if (settled?.changed) {
      await releaseNext(event, attempt.destination_id);
      return settled;
    }
    if (!settled) {
      await insertOwnAttempt(event, attempt);
      return settled;
    }
    // Declined: an item made meanwhile decides. A stalled accept's untried one (`writeUntriedDeliveries`)
    // takes this outcome below; another worker's keeps its own, and so does an event settled meanwhile.
  }
  const written = await writeSettlement(event, attempt.destination_id, delivery, null, next, attempt);
  if (!written?.changed) await insertOwnAttempt(event, attempt);
  return written;
}

/**
 * Writes a try's outcome, if the claim it was made under is still the delivery's (`claimedAt` null: an
 * unclaimed first try, if nobody else has tried it); settles the event after its last delivery.
 */
async function writeSettlement(event: EventRecord, destinationId: string, delivery: StoredDelivery, claimedAt: Date | null, next: DeliveryState, attempt?: AttemptRecord) {
  const decide = (current: DeliveryState) => (claimedAt === null ? settledFirstTry(current, next) : settledDelivery(current, claimedAt, next));
  const kept = attempt && (await keptAttempt(event, attempt));
  const settled = await changeDelivery(event, destinationId, decide, delivery, kept);
  if (settled?.changed && kept) await eraseIfTombstone(event, kept);
  if (settled?.changed && isTerminalDelivery(next.status)) {
    await settleEventIfDone(event);
    await releaseNext(event, destinationId);
  }
  return settled;
}

/** A retry brings the task's message back when it is due; anything else is done. */
const afterSettlement = (settlement: Settlement, attemptedAt: Date): TaskResult =>
  settlement.retry.retry ? { kind: 'wait', until: new Date(attemptedAt.getTime() + settlement.retry.delaySeconds * 1000) } : { kind: 'done' };

/**
 * The breaker after the try, as stored. The try is recorded already: a breaker write that fails costs
 * the breaker one data point, not the delivery (undefined: nothing to announce or disable on).
 */
async function updateBreaker(task: DeliveryTask, claimed: Claimed, succeeded: boolean, at: Date): Promise<BreakerUpdate | undefined> {
  const settings = config().breaker;
  let written: { breaker: BreakerState; previous: BreakerState };
  try {
    written = await changeBreaker(
      task.account_id,
      task.destination_id,
      claimed.breaker,
      (current) => (succeeded ? afterSuccess(current, at, settings) : afterFailure(current, at, settings, claimed.probe))?.next,
      (next, current) => scheduleWakes(task.account_id, task.destination_id, current, next, at),
    );
  } catch (error) {
    log.error('breaker update failed', { account_id: task.account_id, destination_id: task.destination_id }, error);
    return undefined;
  }
  const transition = breakerTransition(written.previous, written.breaker);
  // The backstop sent before the write (scheduleWakes) lets them go if this release is lost.
  if (transition === 'recovered') {
    await startRelease(task.account_id, task.destination_id).catch((error: unknown) =>
      log.error('release after recovery not sent; its backstop lets the held deliveries go', { account_id: task.account_id, destination_id: task.destination_id }, error),
    );
  }
  if (transition) {
    recordBreakerTransition(transition);
    log.warn(transition === 'opened' ? 'destination breaker opened' : 'destination breaker closed', {
      account_id: task.account_id,
      destination_id: task.destination_id,
    });
  }
  return { before: written.previous, after: written.breaker, transition };
}

/** Hookgate switches a destination off (a 410, or failures for too long) and says so. */
async function disable({ event, destination }: Claimed, reason: string, failingSince: string | null, at: Date): Promise<void> {
  // What it holds stays parked (now as paused) until its owner switches it back on.
  await disableDestination(event.account_id, destination.id, reason, at);
  log.warn('destination disabled', { account_id: event.account_id, destination_id: destination.id, reason });
  await noticeDisabled(event, destination, reason, failingSince, at);
}
