import { DELIVERY_QUEUE } from '../shared/resource-definitions';
import { externalIdOf } from '../domain/aws-targets';
import { scheduleFor } from '../domain/backoff';
import { autoDisableHours, autoDisableReason } from '../domain/auto-disable';
import { afterFailure, afterSuccess, breakerGate, breakerTransition, takeProbe, type BreakerState } from '../domain/breaker';
import { deliveryHeaders, headerFacts } from '../domain/delivery-headers';
import { checkArrival, claimedDelivery, decideClaim, endedDelivery, keptResponseBody, firstLookPause, heldDelivery, inFlight, inProcessLooks, missingEventWait, settledDelivery, settledFirstTry, settleTry, type Settlement } from '../domain/delivery-phases';
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
import { changeBreaker } from '../store/breakers';
import { takeSendSlot } from '../store/rate-limits';
import { isStaleSlot, planSlot } from '../domain/rate-limit';
import { noticeBreaker, noticeDeadLetter, noticeDisabled, type BreakerUpdate } from './delivery-notices';
import { freeSlots, handedPlacesOf, keepHanded, letSlotGo, park, parkOverCap, passOn, scheduleWakes, startRelease, takeSlot, type Park, type Places } from './held-deliveries';
import { accountShareWait, capNeeded, markedCapped, maxInFlight } from '../domain/max-in-flight';
import { letSharePlaceGo, takeSharePlace } from './account-share';
import { traceOf, traceparentOf } from '../domain/trace-context';
import { disableDestination } from '../destinations/record';
import { changeDelivery, eraseLateResponseBodies, findAttempt, findDeliveryContext, insertAttempt, isTombstone, settleEventIfDone, settleOnlyDelivery, type StoredDelivery } from '../events/record';
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
const LEASE_MS = DELIVERY_QUEUE.consumerTimeoutSeconds * 1000;
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
  /** Its places under the destination's concurrency cap and its account's share, held until the try is over; none while the destination needs no cap. */
  places?: Places;
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
  | /** Parked until a slot is let go; its destination keeps to its slots a while (`markedCapped`). */ { reason: 'concurrency'; cap: number; breaker: Versioned }
  | /** Parked until its destination is switched back on, or its endpoint proves its ownership. */ { reason: 'paused' | 'unverified' }
);

/** Over its account's share: back in the queue until `until`, keeping its send slot (if it took one), with no concurrency slot to hand on. */
type OverShare = { kind: 'over_share'; until: Date; slot?: number };

type Prepared = TaskResult | Hold | OverShare | { kind: 'claimed'; claimed: Claimed };

/**
 * One delivery task, in phases: prepare (read, decide, claim), then either hold (store the wait) or
 * send and settle (attempt, outcome, breaker). Idempotent against duplicate messages: a settled or
 * already-claimed delivery is left alone.
 */
export async function deliverTask(task: DeliveryTask, deps: DeliverDeps): Promise<TaskResult> {
  const now = deps.now();
  const carried = carriedWait(task, now);
  if (carried) return { kind: 'wait', ...carried };
  const handed: Handed = { places: handedPlacesOf(task) };
  const prepared = await prepare(task, now, deps.now, handed).catch(async (error: unknown) => {
    // Failed with places it was handed and no try holding them: they go on now, not when their lease ends.
    if (handed.places) await letSlotGo(task.account_id, task.destination_id, handed.places, deps.now(), deps.now().getTime() + LEASE_MS).catch(() => undefined);
    throw error;
  });
  switch (prepared.kind) {
    case 'done':
    case 'wait':
      return handOnUnused(task, handed, prepared, deps.now());
    case 'over_share':
      return { kind: 'wait', until: prepared.until, slot: prepared.slot };
    case 'hold': {
      // Parked again with the slot number only, it hands nothing on: the try that ends holding that slot will.
      const result = await hold(task, prepared, deps.now);
      return handed.places ? handOnUnused(task, handed, result, deps.now()) : result;
    }
    case 'claimed': {
      let slotHeld = true;
      const letGo = async () => {
        if (slotHeld) await letSlotGoAfterTry(task, prepared.claimed, deps.now());
        slotHeld = false;
      };
      try {
        const result = await sendWatched(task, prepared.claimed, deps);
        // A success frees its slot at once. A failure is settled first, so the held delivery its slot
        // lets go sees the breaker this failure may have opened (before, a hanging endpoint's ten
        // timeouts each let another try through to it while its breaker was opening).
        if (result.outcome === 'success') await letGo();
        const settled = await settle(task, prepared.claimed, result, deps);
        // Its retry comes back without the places it was handed: the try let them go.
        return settled.kind === 'wait' && (task.handed || task.flight_slot !== undefined) ? { ...settled, handedOn: true } : settled;
      } finally {
        await letGo();
      }
    }
  }
}

/**
 * A sent try must reach its settlement (a first try is recorded only with its outcome: a task that
 * failed here would be sent again): places that could not be handed on or let go are free when their
 * lease ends.
 */
async function letSlotGoAfterTry(task: DeliveryTask, { places }: Claimed, now: Date): Promise<void> {
  if (!places) return;
  await letSlotGo(task.account_id, task.destination_id, places, now, now.getTime() + LEASE_MS).catch((error: unknown) =>
    log.error('concurrency slot or share place not let go; free when its lease ends', { account_id: task.account_id, destination_id: task.destination_id, slot: places.slot.slot }, error),
  );
}

/**
 * Let go with a slot, the task found nothing to send: the chain of releases goes on with the next held
 * delivery, and a task that waits comes back without the slot (another holds it now).
 */
async function handOnUnused(task: DeliveryTask, handed: Handed, result: TaskResult, now: Date): Promise<TaskResult> {
  if (handed.places) await letSlotGo(task.account_id, task.destination_id, handed.places, now, now.getTime() + LEASE_MS);
  else if (task.flight_slot !== undefined && !task.handed) await passOn(task.account_id, task.destination_id, task.flight_slot, now);
  else return result;
  return result.kind === 'wait' ? { ...result, handedOn: true } : result;
}

/**
 * The places a released delivery's task was handed (`letSlotGo`), while nothing has taken them over:
 * whatever the task does not try with them (it ends, waits, parks or fails), it lets go, handing them
 * on. `prepare` takes them over once its try holds them, or keeps them with the task's message over
 * its account's share; it forgets them when they are no longer its own, and leaves them to the worker
 * that has the delivery in flight when a duplicate of the task arrives (both hold them as one holder).
 */
interface Handed {
  places?: Places;
}

async function prepare(task: DeliveryTask, now: Date, clock: () => Date, handed: Handed): Promise<Prepared> {
  const { account_id: accountId, event_id: eventId, destination_id: destinationId } = task;
  const loaded = await findWrittenEvent(task, now);
  if (!loaded) {
    const missing = missingEventWait(task.sent_at, now, config().missingEventGraceSeconds);
    return missing.kind === 'wait' ? { kind: 'wait', until: missing.until } : { kind: 'done' };
  }
  appendLogKeys({ trace_id: traceOf(loaded.body.trace, eventId).id });
  const timing = { now, leaseMs: LEASE_MS, earlyToleranceMs: EARLY_TOLERANCE_MS };
  const stored = loaded.delivery;
  const delivery = stored?.state;
  const arrival = checkArrival({ delivery, ...timing });
  if (arrival.kind === 'skip') {
    // An ended delivery of an unsettled event: the worker that ended it may have died before settling it.
    if (delivery && isTerminalDelivery(delivery.status)) {
      await settleEventIfDone(loaded.event);
      // Its worker may have died before it released the next of its line: released again (a duplicate is ignored).
      await releaseNext(loaded.event, destinationId);
    } else if (delivery) handed.places = undefined; // in flight: a duplicate of this task has it, with the same places
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
      const tryOf = (delivery: StoredDelivery, claimedAt: Date | null, places?: Places): Prepared => ({
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
          places,
        },
      });
      // A delivery let go from parked keeps to the slots whatever its destination's health: each try that
      // ends hands its slot on to the next held one, and the slots bound how many go at once.
      const released = task.flight_slot !== undefined || (Boolean(stored.state.waiting) && stored.state.waiting?.reason !== 'rate_limit' && stored.state.waiting?.reason !== 'ordering');
      const capped = released || capNeeded(maxInFlight(destination), breaker, now);
      // Nobody has tried, held or ended it (no item of its own), at a destination that needs no cap: it
      // goes unclaimed, and its outcome is its one write (a duplicate message may send it twice).
      if (!capped && stored.version === 0 && !decision.probe) return tryOf(stored, null);
      // Under the cap, a try holds a place in its account's share (over it, it waits in the queue, and
      // hands on no slot: the account's own tries that end will) and one of its destination's slots
      // while it is in flight (over its cap, it waits parked); a released delivery holds those it was handed.
      let places: Places | undefined;
      let mine: Places | undefined;
      if (capped) {
        const leaseUntil = now.getTime() + LEASE_MS;
        mine = handed.places && (await keepHanded(task, handed.places, longestTryMs(destination.timeout_ms), now, leaseUntil));
        if (!mine) handed.places = undefined; // not its own any more: nothing to let go
        const overCap = { kind: 'hold', reason: 'concurrency', cap: maxInFlight(destination), breaker, event: loaded.event, delivery: stored, now } as const;
        const free = mine ? [] : await freeSlots(task, maxInFlight(destination), now);
        if (!mine && free.length === 0) return overCap;
        const share = mine?.share ?? (await takeSharePlace(accountId, now, leaseUntil));
        if (!share) {
          // A handed slot stays this task's while it waits: its message comes back before the lease ends.
          handed.places = undefined;
          return { kind: 'over_share', until: accountShareWait(now, Math.random), slot: sendAt };
        }
        const slot =
          mine?.slot ??
          (await takeSlot(task, free, now, leaseUntil).catch(async (error: unknown) => {
            await letSharePlaceGo(accountId, share);
            throw error;
          }));
        if (!slot) {
          await letSharePlaceGo(accountId, share);
          return overCap;
        }
        places = { slot, share };
        handed.places = undefined; // the try holds them now, and lets them go
      }
      const letGo = async () => {
        if (places) await letSlotGo(accountId, destinationId, places, now, now.getTime() + LEASE_MS);
      };
      const claimed = await claimUnderSlot(task, loaded.event, stored, destination, breaker, decision.probe, manual, now).catch(async (error: unknown) => {
        await letGo();
        throw error;
      });
      // A duplicate of a released delivery's task that lost its claim to the other leaves the places it was handed to that one.
      if (claimed.kind === 'lost' && mine && inFlight(claimed.delivery.state, now, LEASE_MS)) return { kind: 'done' };
      if (claimed.kind !== 'claimed') await letGo();
      if (claimed.kind === 'hold') return claimed;
      if (claimed.kind !== 'claimed') return { kind: 'done' };
      return tryOf(claimed.claim.delivery, now, places);
    }
  }
}

/**
 * With a slot taken (or none needed): the breaker's probe, when this try is to be it, then the
 * delivery's claim. Either can be lost to another worker (the caller then lets the slot go).
 */
async function claimUnderSlot(task: DeliveryTask, event: EventRecord, stored: StoredDelivery, destination: DestinationRecord, breaker: Versioned, probe: boolean, manual: boolean, now: Date) {
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
  const claim = await changeDelivery(event, destinationId, (current) => claimedDelivery(current, now, LEASE_MS), stored);
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
  const read = () => findDeliveryContext(task.account_id, task.event_id, task.destination_id, task.body);
  const first = firstLookPause(task.sent_at, now);
  if (first > 0) await new Promise((resolve) => setTimeout(resolve, first));
  let loaded = await read();
  const looks = loaded ? [] : inProcessLooks(task.sent_at, now);
  for (const pause of looks) {
    await new Promise((resolve) => setTimeout(resolve, pause));
    loaded = await read();
    if (loaded) break;
  }
  return loaded;
}

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
 * its breaker, its destination's cap or its destination being switched off, it is parked and its
 * message is done: it sleeps until the breaker lets it through, a slot is let go or the destination
 * is switched back on. A delivery settled or claimed meanwhile has no wait to
 * store, and its task is done.
 */
async function hold(task: DeliveryTask, held: Hold, clock: () => Date): Promise<TaskResult> {
  const { event, delivery, now } = held;
  const until = held.reason === 'rate_limit' ? held.wait.until : held.reason === 'breaker_open' ? held.until : null;
  const changed = await changeDelivery(event, task.destination_id, (current) => heldDelivery(current, held.reason, until, now, LEASE_MS), delivery);
  if (!changed?.changed) return { kind: 'done' };
  if (held.reason === 'rate_limit') return { kind: 'wait', ...held.wait };
  const how: Park = {
    reason: held.reason,
    due: changed.delivery.state.next_attempt_at ?? now.toISOString(),
    again: Boolean(delivery.state.waiting),
  };
  if (held.reason === 'concurrency') {
    await keepToSlots(task, held.breaker, now);
    await parkOverCap(task, how, held.cap, clock);
  } else await park(task, how);
  return { kind: 'done' };
}

/**
 * Waits behind the earlier delivery of its ordering key (`behind`): shown in the event, with no message,
 * timer or held item; that delivery's end sends its task (`releaseNext`), and its message is done.
 * Behind an event not written yet, its message comes back at `recheckAt` (`lineCheck`).
 */
async function waitInLine(task: DeliveryTask, event: EventRecord, delivery: StoredDelivery, { behind, recheckAt }: { behind: string; recheckAt?: Date }, now: Date): Promise<TaskResult> {
  await changeDelivery(event, task.destination_id, (current) => orderedWait(current, behind, now, LEASE_MS), delivery);
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
 * Sends the try; one still in flight after `slowTryMs` (SLOW_TRY_MS) keeps its destination to its slots a while
 * (`keepToSlots`). The mark is written while the try waits, not after it: a hanging endpoint is under
 * its cap within a second, not after its timeout.
 */
async function sendWatched(task: DeliveryTask, claimed: Claimed, deps: DeliverDeps): Promise<DeliveryResult> {
  let marking: Promise<void> | undefined;
  const timer = setTimeout(() => {
    marking = keepToSlots(task, claimed.breaker, deps.now());
  }, config().slowTryMs);
  try {
    return await send(claimed, deps);
  } finally {
    clearTimeout(timer);
    await marking;
  }
}

/**
 * Keeps the destination to its slots for a while (`markedCapped`: no write when it is already). A mark
 * that fails costs the cap its precision for a moment, not the delivery.
 */
async function keepToSlots(task: DeliveryTask, known: Versioned, now: Date): Promise<void> {
  try {
    await changeBreaker(task.account_id, task.destination_id, known, (current) => markedCapped(current, now));
  } catch (error) {
    log.error('destination not kept to its slots', { account_id: task.account_id, destination_id: task.destination_id }, error);
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
  const only = Object.keys(event.deliveries).length === 1 && isTerminalDelivery(next.status);
  const written = only
    ? await settleOnlyDelivery(event, attempt.destination_id, (current) => settledFirstTry(current, next), attempt)
    : await writeSettlement(event, attempt.destination_id, delivery, null, next, attempt);
  if (!written?.changed) await insertOwnAttempt(event, attempt);
  else if (only) await releaseNext(event, attempt.destination_id);
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
