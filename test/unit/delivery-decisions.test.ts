import { describe, expect, it } from 'vitest';
import { CLOSED_BREAKER, DEFAULT_BREAKER, afterFailure, afterSuccess, breakerGate, breakerTransition, healthState, releasePlan, takeProbe, type BreakerState, wakeTimes, wakeVerdict } from '../../lambdas/domain/breaker';
import { claimedDelivery, decideClaim, keptResponseBody, endedDelivery, firstLookPause, heldDelivery, inProcessLooks, messagesMayGiveUp, missingEventWait, settleTry, settledDelivery, settledFirstTry, type ClaimInput } from '../../lambdas/domain/delivery-phases';
import { eventSettlement, SETTLE_BY_READING_MAX, settleCheck } from '../../lambdas/domain/event-status';
import { heldEndedDelivery, heldEnding, lastTryOf } from '../../lambdas/domain/held-end';
import { strandedTaskAction, type StrandedTaskInput } from '../../lambdas/domain/stranded-tasks';
import { accountShareWait, accountTries, borrowedTries, capNeeded, homeMap, leaseMapCaps, leaseRoom, mapsToTry, markedCapped, maxInFlight, overCapWait, SHARED_LEASES_PER_MAP } from '../../lambdas/domain/max-in-flight';
import { carriedWait, faultWaitSeconds, queueWait, type QueueWait } from '../../lambdas/domain/queue-wait';
import { deliveryState } from '../fixtures/records';

const NOW = new Date('2026-11-23T12:00:00.000Z');
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);
const iso = (seconds: number) => at(seconds).toISOString();
const LEASE_MS = 60_000;

describe('claim decision', () => {
  const base: ClaimInput = {
    delivery: deliveryState(),
    destination: { active: true, customer: null },
    customer: null,
    gate: { kind: 'pass' },
    now: NOW,
    leaseMs: LEASE_MS,
    earlyToleranceMs: 1000,
  };
  it.each<[string, Partial<ClaimInput>, ReturnType<typeof decideClaim>]>([
    ['a queued delivery is claimed', {}, { kind: 'claim', probe: false }],
    ['a delivery the event no longer has is skipped', { delivery: undefined }, { kind: 'skip' }],
    ['a delivered one is skipped (duplicate message)', { delivery: deliveryState({ status: 'delivered', attempts: 1 }) }, { kind: 'skip' }],
    ['a dead-lettered one is skipped', { delivery: deliveryState({ status: 'dead_letter', attempts: 5 }) }, { kind: 'skip' }],
    ['a live claim elsewhere is skipped', { delivery: deliveryState({ status: 'delivering', claimed_at: iso(-10) }) }, { kind: 'skip' }],
    ['a claim past its lease is taken over', { delivery: deliveryState({ status: 'delivering', claimed_at: iso(-61) }) }, { kind: 'claim', probe: false }],
    ['a retry not due yet waits for its due time', { delivery: deliveryState({ status: 'retry_scheduled', attempts: 1, next_attempt_at: iso(30) }) }, { kind: 'wait', until: at(30), reason: 'not_due' }],
    ['a retry due within the tolerance is claimed', { delivery: deliveryState({ status: 'retry_scheduled', attempts: 1, next_attempt_at: iso(0.5) }) }, { kind: 'claim', probe: false }],
    ['a destination a fresh read did not find ends it', { destination: undefined }, { kind: 'end', reason: 'destination_deleted' }],
    ['a switched-off destination holds it without a try', { destination: { active: false, customer: null } }, { kind: 'paused', reason: 'paused' }],
    ['one waiting for its endpoint’s proof holds it without a try', { destination: { active: true, customer: null, verify_ownership: true, verified_at: null } }, { kind: 'paused', reason: 'unverified' }],
    ['switched off and waiting for proof: paused first', { destination: { active: false, customer: null, verify_ownership: true, verified_at: null } }, { kind: 'paused', reason: 'paused' }],
    ['a verified endpoint’s is claimed', { destination: { active: true, customer: null, verify_ownership: true, verified_at: iso(-60) } }, { kind: 'claim', probe: false }],
    ['a destination given to a customer since planning ends it', { destination: { active: true, customer: 'cus_a' } }, { kind: 'end', reason: 'customer_changed' }],
    ['a destination moved to another customer ends it', { destination: { active: true, customer: 'cus_b' }, customer: 'cus_a' }, { kind: 'end', reason: 'customer_changed' }],
    ['the addressed customer’s destination is claimed', { destination: { active: true, customer: 'cus_a' }, customer: 'cus_a' }, { kind: 'claim', probe: false }],
    ['an open breaker makes it wait', { gate: { kind: 'wait', until: at(25), reason: 'breaker_open' } }, { kind: 'wait', until: at(25), reason: 'breaker_open' }],
    ['a half-open breaker lets it through as the probe', { gate: { kind: 'probe' } }, { kind: 'claim', probe: true }],
    ['an erased event’s delivery ends: nothing is left to send', { payloadErased: true }, { kind: 'end', reason: 'payload_erased' }],
    ['an erased event’s settled delivery is skipped', { delivery: deliveryState({ status: 'delivered', attempts: 1 }), payloadErased: true }, { kind: 'skip' }],
    ['a settled delivery is skipped even when its destination is gone', { delivery: deliveryState({ status: 'delivered', attempts: 1 }), destination: undefined }, { kind: 'skip' }],
  ])('%s', (_, overrides, expected) => {
    expect(decideClaim({ ...base, ...overrides })).toEqual(expected);
  });
});

describe('a task that finds no event', () => {
  const now = new Date('2026-11-26T12:00:00Z');
  const ms = now.getTime();
  it.each<[string, number | undefined, ReturnType<typeof missingEventWait>]>([
    ['just sent: its event is being written, look again in 2 s', ms - 100, { kind: 'wait', until: new Date(ms + 2000) }],
    ['near the end of the grace: look once more at its end', ms - 59_000, { kind: 'wait', until: new Date(ms + 1000) }],
    ['sent a grace ago: its event was never written, give up (leaving the mark its accept looks for)', ms - 60_000, { kind: 'give_up' }],
    ['a message no accept sent (a re-send): its event is gone', undefined, { kind: 'skip' }],
  ])('%s', (_, sentAt, expected) => {
    expect(missingEventWait(sentAt, now, 60)).toEqual(expected);
  });

  // The accept's side of the same grace: written within half of it, its messages still find the event.
  it.each<[string, number, boolean]>([
    ['written at once', ms, false],
    ['written at half the grace', ms - 30_000, false],
    ['written past half the grace: its messages may give up first', ms - 30_001, true],
    ['written after the grace', ms - 61_000, true],
  ])('%s', (_, sentAt, expected) => {
    expect(messagesMayGiveUp(sentAt, now, 60)).toBe(expected);
  });

  it.each<[string, number | undefined, number]>([
    ['just sent: its accept is likely writing it now, so it looks again in-process first', ms - 5, 5],
    ['sent 2 s ago: not the race, it waits in the queue', ms - 2000, 0],
    ['a re-sent message: it waits in the queue', undefined, 0],
  ])('in-process looks: %s', (_, sentAt, looks) => {
    expect(inProcessLooks(sentAt, now)).toHaveLength(looks);
  });

  it.each<[string, number | undefined, number]>([
    ['sent 5 ms ago: its accept is still writing, the first look waits 20 ms', ms - 5, 20],
    ['sent 25 ms ago or more: it looks at once', ms - 25, 0],
    ['sent 2 s ago (batched by the mapping): at once', ms - 2000, 0],
    ['a re-sent message: at once', undefined, 0],
    ['a sender clock ahead of this one waits no more than the writes take', ms + 5000, 25],
  ])('first look: %s', (_, sentAt, pause) => {
    expect(firstLookPause(sentAt, now)).toBe(pause);
  });
});

describe('settling a try', () => {
  const schedule = [0, 30, 120, 600, 3600];
  const failure = { outcome: 'http_error', responseStatus: 503, retryAfterSeconds: null } as const;
  it.each<[string, Parameters<typeof settleTry>[0], number, Partial<ReturnType<typeof settleTry>>]>([
    ['a success is delivered', { outcome: 'success', responseStatus: 200, retryAfterSeconds: null }, 1, { next: { status: 'delivered', attempts: 1, next_attempt_at: null, claimed_at: null }, retry: { retry: false }, disable: false }],
    ['a failure waits for the next step', failure, 1, { next: { status: 'retry_scheduled', attempts: 1, next_attempt_at: iso(30), claimed_at: null }, retry: { retry: true, delaySeconds: 30 } }],
    ['Retry-After stretches the wait within the schedule', { ...failure, retryAfterSeconds: 90 }, 1, { retry: { retry: true, delaySeconds: 90 } }],
    ['the last try dead-letters', failure, 5, { next: { status: 'dead_letter', attempts: 5, next_attempt_at: null, claimed_at: null }, retry: { retry: false }, disable: false }],
    ['410 Gone ends it and disables the destination', { outcome: 'http_error', responseStatus: 410, retryAfterSeconds: null }, 1, { next: { status: 'dead_letter', attempts: 1, next_attempt_at: null, claimed_at: null, end_reason: 'endpoint_gone' }, retry: { retry: false }, disable: true }],
  ])('%s', (_, result, attempt, expected) => {
    expect(settleTry(result, attempt, schedule, NOW)).toMatchObject(expected);
  });
});

describe('response bodies kept', () => {
  it.each<{ name: string; outcome: 'success' | 'http_error' | 'timeout'; body: string; kept: string }>([
    { name: 'a short success is kept whole', outcome: 'success', body: '{"ok":true}', kept: '{"ok":true}' },
    { name: 'a long success keeps its first 256 bytes', outcome: 'success', body: 'a'.repeat(4096), kept: 'a'.repeat(256) },
    { name: 'a cut never splits a character', outcome: 'success', body: `${'a'.repeat(255)}é`, kept: 'a'.repeat(255) },
    { name: 'a failure keeps what was read', outcome: 'http_error', body: 'b'.repeat(4096), kept: 'b'.repeat(4096) },
    { name: 'a timeout keeps what was read', outcome: 'timeout', body: '', kept: '' },
  ])('$name', ({ outcome, body, kept }) => {
    expect(keptResponseBody({ outcome, responseBody: body })).toBe(kept);
  });
});

describe('delivery transitions', () => {
  const claimedAt = at(0);
  const claimed = claimedDelivery(deliveryState(), claimedAt, LEASE_MS);

  it('claims, then settles under the same claim', () => {
    expect(claimed).toMatchObject({ status: 'delivering', claimed_at: claimedAt.toISOString() });
    const next = deliveryState({ status: 'delivered', attempts: 1 });
    expect(claimed && settledDelivery(claimed, claimedAt, next)).toEqual(next);
  });

  it('does not settle a try whose claim was taken over, nor claim a live claim again', () => {
    expect(claimed && settledDelivery(claimed, at(5), deliveryState({ status: 'delivered', attempts: 1 }))).toBeUndefined();
    expect(claimed && claimedDelivery(claimed, at(10), LEASE_MS)).toBeUndefined();
  });

  const delivered = deliveryState({ status: 'delivered', attempts: 1 });
  it.each<{ name: string; current: ReturnType<typeof deliveryState>; settles: boolean }>([
    { name: 'an untried delivery takes an unclaimed first try', current: deliveryState(), settles: true },
    { name: 'one another worker claimed meanwhile keeps its claim', current: claimed ?? deliveryState(), settles: false },
    { name: 'one tried meanwhile keeps that try', current: deliveryState({ status: 'retry_scheduled', attempts: 1 }), settles: false },
    { name: 'one ended meanwhile stays ended', current: deliveryState({ status: 'dead_letter', end_reason: 'destination_deleted' }), settles: false },
  ])('$name', ({ current, settles }) => {
    expect(settledFirstTry(current, delivered)).toEqual(settles ? delivered : undefined);
  });

  it('takes over a claim whose lease ran out', () => {
    expect(claimed && claimedDelivery(claimed, new Date(claimedAt.getTime() + LEASE_MS + 1), LEASE_MS)).toMatchObject({ status: 'delivering' });
  });

  it('ends a waiting retry with its attempts unchanged and the reason shown, and leaves an ended one', () => {
    const waiting = deliveryState({ status: 'retry_scheduled', attempts: 2, next_attempt_at: iso(60) });
    expect(endedDelivery(waiting, 'destination_deleted')).toEqual({ status: 'dead_letter', attempts: 2, end_reason: 'destination_deleted', next_attempt_at: null, claimed_at: null });
    expect(endedDelivery(deliveryState({ status: 'delivered', attempts: 1 }), 'destination_deleted')).toBeUndefined();
  });

  it('moves a held delivery’s due time without spending a try', () => {
    const due = deliveryState({ next_attempt_at: iso(-5) });
    // Waiting for a send slot, its due time moves to the slot (its message comes back then).
    expect(heldDelivery(due, 'rate_limit', at(30), NOW, LEASE_MS)).toEqual({ ...due, next_attempt_at: iso(30), waiting: { reason: 'rate_limit', until: iso(30) } });
    // Parked by its breaker, it keeps its due time (its release order) and says until when the breaker is open.
    expect(heldDelivery(due, 'breaker_open', at(30), NOW, LEASE_MS)).toEqual({ ...due, waiting: { reason: 'breaker_open', until: iso(30) } });
    expect(heldDelivery(deliveryState({ status: 'retry_scheduled', attempts: 2 }), 'breaker_open', null, NOW, LEASE_MS)).toMatchObject({ status: 'retry_scheduled', attempts: 2, next_attempt_at: iso(0) });
  });
});

describe('event settlement', () => {
  const ended = (status: 'delivered' | 'dead_letter', attempts: number) => deliveryState({ status, attempts });
  it.each([
    ['every delivery succeeded', { a: ended('delivered', 1), b: ended('delivered', 2) }, { status: 'delivered', attempts_count: 3 }],
    ['one exhausted its tries', { a: ended('delivered', 1), b: ended('dead_letter', 5) }, { status: 'dead_letter', attempts_count: 6 }],
    ['one is still retrying', { a: ended('delivered', 1), b: deliveryState({ status: 'retry_scheduled', attempts: 1 }) }, undefined],
    ['one was never claimed (no item yet)', { a: ended('delivered', 1) }, undefined],
  ])('%s', (_, deliveries, expected) => {
    expect(eventSettlement(['a', 'b'], deliveries)).toEqual(expected);
  });

  it.each([
    [1, 'read'],
    [SETTLE_BY_READING_MAX, 'read'],
    [SETTLE_BY_READING_MAX + 1, 'count'],
  ] as const)('an event of %i deliveries finds its last one by %s', (planned, mode) => {
    expect(settleCheck(planned)).toBe(mode);
  });
});

describe('circuit breaker', () => {
  const settings = { ...DEFAULT_BREAKER, threshold: 3, cooldownSeconds: 30, maxCooldownSeconds: 100 };
  const failTimes = (n: number, from: BreakerState = CLOSED_BREAKER, probe = false) => {
    let state = from;
    const transitions: Array<string | null> = [];
    for (let i = 0; i < n; i++) {
      const change = afterFailure(state, NOW, settings, probe);
      state = change?.next ?? state;
      transitions.push(change === undefined ? 'no write' : change.transition);
    }
    return { state, transitions };
  };

  it('opens after the threshold of consecutive failures, once', () => {
    const { state, transitions } = failTimes(3);
    expect(transitions).toEqual([null, null, 'opened']);
    expect(state).toMatchObject({ state: 'open', consecutive_failures: 3, open_until: iso(30), failing_since: NOW.toISOString() });
    expect(healthState(failTimes(2).state, true)).toBe('failing');
    expect(healthState(state, true)).toBe('open');
    expect(healthState(state, false)).toBe('disabled');
  });

  it.each<[string, Partial<BreakerState>, boolean, ReturnType<typeof breakerGate>]>([
    ['closed passes', {}, false, { kind: 'pass' }],
    ['open holds until open_until', { state: 'open', open_until: iso(30) }, false, { kind: 'wait', until: at(30), reason: 'breaker_open' }],
    ['open past open_until lets one probe', { state: 'open', open_until: iso(-1) }, false, { kind: 'probe' }],
    ['a probe out holds the others until its lease ends (no rechecks: they sleep)', { state: 'open', open_until: iso(-1), probe_until: iso(20) }, false, { kind: 'wait', until: at(20), reason: 'probe_in_flight' }],
    ['an expired probe lets another probe', { state: 'open', open_until: iso(-30), probe_until: iso(-1) }, false, { kind: 'probe' }],
    ['a manual action probes at once, before the cooldown ends', { state: 'open', open_until: iso(30) }, true, { kind: 'probe' }],
    ['…but not beside a probe already out', { state: 'open', open_until: iso(30), probe_until: iso(10) }, true, { kind: 'wait', until: at(10), reason: 'probe_in_flight' }],
  ])('gate: %s', (_, overrides, manual, expected) => {
    expect(breakerGate({ ...CLOSED_BREAKER, ...overrides }, NOW, manual)).toEqual(expected);
  });

  it.each<[string, Partial<BreakerState>, Partial<BreakerState>, string[]]>([
    ['opening sets the cooldown’s end', {}, { state: 'open', open_until: iso(30) }, [iso(30)]],
    ['taking the probe sets its lease’s end', { state: 'open', open_until: iso(-1) }, { state: 'open', open_until: iso(-1), probe_until: iso(20) }, [iso(20)]],
    ['a failed probe re-opens for longer', { state: 'open', open_until: iso(-1), probe_until: iso(20) }, { state: 'open', open_until: iso(60), probe_until: null }, [iso(60)]],
    ['closing sets nothing', { state: 'open', open_until: iso(-1) }, {}, []],
  ])('wake times: %s', (_, before, after, expected) => {
    expect(wakeTimes({ ...CLOSED_BREAKER, ...before }, { ...CLOSED_BREAKER, ...after })).toEqual(expected);
  });

  it.each<[string, Partial<BreakerState>, string, ReturnType<typeof wakeVerdict>]>([
    ['the cooldown ended: one held delivery goes as the probe', { state: 'open', open_until: iso(-1) }, iso(-1), { kind: 'probe' }],
    ['the probe’s lease ended (its worker died): another goes', { state: 'open', open_until: iso(-30), probe_until: iso(-1) }, iso(-1), { kind: 'probe' }],
    ['a wake for an instant the breaker no longer waits for does nothing', { state: 'open', open_until: iso(60) }, iso(-1), { kind: 'stale' }],
    ['early: it waits for its instant', { state: 'open', open_until: iso(3) }, iso(3), { kind: 'wait', until: at(3) }],
    ['closed meanwhile: release', {}, iso(-1), { kind: 'release' }],
  ])('wake: %s', (_, breaker, wakeAt, expected) => {
    expect(wakeVerdict({ ...CLOSED_BREAKER, ...breaker }, wakeAt, NOW)).toEqual(expected);
  });

  it.each([
    ['no rate limit, a cap of 1,000', { rate_limit_per_second: null, max_in_flight: 1000 }, { size: 100, nextInSeconds: 1 }],
    ['the default cap: what it lets in flight', { max_in_flight: 10 }, { size: 10, nextInSeconds: 1 }],
    ['a cap of 1: one at a time, the due first alone', { max_in_flight: 1 }, { size: 1, nextInSeconds: 1 }],
    ['a rate limit under the cap: what it lets go in a second', { rate_limit_per_second: 5, max_in_flight: 10 }, { size: 5, nextInSeconds: 1 }],
    ['a rate limit under one a second', { rate_limit_per_second: 0.25, max_in_flight: 10 }, { size: 1, nextInSeconds: 1 }],
    ['a cap under the rate limit', { rate_limit_per_second: 1000, max_in_flight: 3 }, { size: 3, nextInSeconds: 1 }],
    ['a deleted destination (its deliveries end)', undefined, { size: 100, nextInSeconds: 1 }],
  ])('releases held deliveries, %s: %j', (_, destination, plan) => {
    expect(releasePlan(destination)).toEqual(plan);
  });

  it('lets one probe at a time', () => {
    const open = { ...failTimes(3).state, open_until: iso(-1) };
    const probing = takeProbe(open, NOW, 20_000);
    expect(probing?.probe_until).toBe(iso(20));
    expect(probing && takeProbe(probing, NOW, 20_000)).toBeUndefined();
  });

  it('closes on a successful probe; a failed probe opens it for twice as long, up to the cap', () => {
    const open = failTimes(3).state;
    expect(afterSuccess(open, NOW, settings)).toEqual({ next: { ...CLOSED_BREAKER, last_success_at: NOW.toISOString(), last_failure_at: NOW.toISOString() }, transition: 'recovered' });
    const { state: reopened, transitions } = failTimes(3, open, true);
    expect(transitions).toEqual([null, null, null]);
    expect(reopened.open_until).toBe(iso(100)); // 60, 120 → capped at 100
    expect(failTimes(1, open, true).state.open_until).toBe(iso(60));
  });

  it('writes nothing for a failure on an open breaker that was not its probe (a try begun before it opened)', () => {
    const open = failTimes(3).state;
    expect(afterFailure(open, NOW, settings, false)).toBeUndefined();
  });

  it.each<[string, Partial<BreakerState>, Partial<BreakerState>, ReturnType<typeof breakerTransition>]>([
    ['closed → open opened', {}, { state: 'open' }, 'opened'],
    ['open → closed recovered', { state: 'open' }, {}, 'recovered'],
    ['open → open (a failed probe) is no news', { state: 'open' }, { state: 'open', reopen_count: 1 }, null],
    ['closed → closed (a failure under the threshold) is no news', {}, { consecutive_failures: 1 }, null],
  ])('transition: %s', (_, before, after, expected) => {
    expect(breakerTransition({ ...CLOSED_BREAKER, ...before }, { ...CLOSED_BREAKER, ...after })).toBe(expected);
  });

  it('writes nothing for a success on a healthy breaker, except a stamp a minute', () => {
    const healthy = { ...CLOSED_BREAKER, last_success_at: iso(-10) };
    expect(afterSuccess(healthy, NOW, settings)).toBeUndefined();
    expect(afterSuccess({ ...healthy, last_success_at: iso(-61) }, NOW, settings)?.next.last_success_at).toBe(NOW.toISOString());
    expect(afterSuccess(CLOSED_BREAKER, NOW, settings)?.transition).toBeNull();
    expect(afterSuccess(failTimes(1).state, NOW, settings)?.next.consecutive_failures).toBe(0);
  });
});

describe('how a task waits in the queue', () => {
  const resend = (delaySeconds: number, waitSeconds: number, slot?: number): QueueWait => ({
    kind: 'resend',
    delaySeconds,
    carried: { not_before: at(waitSeconds).getTime(), rate_slot: slot },
  });
  it.each<[number, number, number | undefined, QueueWait]>([
    [0, 1, undefined, { kind: 'visibility', seconds: 0 }],
    [-5, 1, undefined, { kind: 'visibility', seconds: 0 }],
    [1.2, 1, undefined, { kind: 'visibility', seconds: 2 }],
    [2, 2, undefined, { kind: 'visibility', seconds: 2 }],
    [2, 3, undefined, resend(2, 2)],
    [30, 1, undefined, resend(30, 30)],
    [3600, 1, undefined, resend(900, 3600)],
    [86_400, 1, undefined, resend(900, 86_400)],
    // A slot travels in the message only: even a short wait for it is a new message.
    [1, 1, NOW.getTime() + 3000, resend(1, 1, NOW.getTime() + 3000)],
    [600, 1, NOW.getTime() + 602_000, resend(600, 600, NOW.getTime() + 602_000)],
  ])('%s s on receive %s, slot %s → %j', (seconds, receives, slot, expected) => {
    expect(queueWait({ until: at(seconds), slot }, NOW, receives)).toEqual(expected);
  });

  it.each([
    [1, 61],
    [3, 61],
    [4, 80],
    [5, 160],
    [6, 320],
    [7, 360],
    [10, 360],
    [0, 61], // a receive count SQS never gives: the first wait
  ])('a task that failed outright on receive %s waits %s s: past the 60 s claim lease, doubling, capped at the 360 s visibility timeout', (receives, seconds) => {
    expect(faultWaitSeconds(receives, { leaseSeconds: 60, maxSeconds: 360 })).toBe(seconds);
  });

  it.each<[string, { not_before?: number; rate_slot?: number }, ReturnType<typeof carriedWait>]>([
    ['nothing carried', {}, undefined],
    ['a wait that is over', { not_before: at(-10).getTime() }, undefined],
    ['a wait within the early tolerance', { not_before: at(1).getTime() }, undefined],
    ['a wait still on', { not_before: at(1.5).getTime() }, { until: at(1.5) }],
    ['a wait for a slot', { not_before: at(600).getTime(), rate_slot: at(602).getTime() }, { until: at(600), slot: at(602).getTime() }],
    ['a slot whose wait is over', { not_before: at(0).getTime(), rate_slot: at(2).getTime() }, undefined],
  ])('carried wait: %s', (_, carried, expected) => {
    expect(carriedWait(carried, NOW)).toEqual(expected);
  });
});

describe('the leases under a cap', () => {
  /** A fixed sequence of draws in [0, 1). */
  const draws = (...values: number[]) => {
    let i = 0;
    return () => values[i++ % values.length]!;
  };
  it.each([
    { cap: 1, caps: [1] },
    { cap: 10, caps: [10] },
    { cap: 20, caps: [20] },
    { cap: 21, caps: [20, 1] },
    { cap: 45, caps: [20, 20, 5] },
    { cap: 1000, caps: Array.from({ length: 50 }, () => 20) },
    { cap: 25, perMap: SHARED_LEASES_PER_MAP, caps: [5, 5, 5, 5, 5] },
    { cap: 12, perMap: SHARED_LEASES_PER_MAP, caps: [5, 5, 2] },
    { cap: 1, perMap: SHARED_LEASES_PER_MAP, caps: [1] },
  ])('a cap of $cap is kept in maps of $caps', ({ cap, perMap, caps }) => {
    expect(leaseMapCaps(cap, perMap)).toEqual(caps);
    expect(leaseMapCaps(cap, perMap).reduce((sum, n) => sum + n, 0)).toBe(cap);
  });

  it.each([
    { name: 'one map: only it', maps: 1, first: 0, random: draws(0.9), tried: [0] },
    { name: 'two maps: both, the home one first', maps: 2, first: 1, random: draws(0.9), tried: [1, 0] },
    { name: 'three looks, distinct, the home one first', maps: 10, first: 7, random: draws(0.05, 0.55), tried: [7, 0, 5] },
    { name: 'a map drawn twice: the next one up instead', maps: 10, first: 3, random: draws(0.35, 0.35), tried: [3, 4, 5] },
    { name: 'wrapping past the top', maps: 4, first: 3, random: draws(0.99, 0.99), tried: [3, 0, 1] },
    { name: 'never more than three looks', maps: 50, first: 12, random: draws(0.5, 0.25), tried: [12, 25, 13] },
  ])('maps a take looks in: $name', ({ maps, first, random, tried }) => {
    expect(mapsToTry(maps, first, random)).toEqual(tried);
  });

  it('every copy of a delivery looks in the same map first, and the holders spread over the maps', () => {
    expect(homeMap('evt_01', 7)).toBe(homeMap('evt_01', 7));
    const homes = new Set(Array.from({ length: 200 }, (_, n) => homeMap(`evt_${n}`, 10)));
    expect(homes.size).toBe(10);
  });

  const live = NOW.getTime() + 30_000;
  const lapsed = NOW.getTime() - 1;
  it.each<{ name: string; leases: Record<string, number>; cap: number; room: ReturnType<typeof leaseRoom> }>([
    { name: 'its own lease still running: a copy of it is in flight', leases: { me: live }, cap: 5, room: { kind: 'held' } },
    { name: 'full of running leases', leases: { a: live, b: live }, cap: 2, room: { kind: 'full' } },
    { name: 'a lapsed lease makes room, cleared in the take', leases: { a: live, b: lapsed }, cap: 2, room: { kind: 'room', lapsed: [['b', lapsed]] } },
    { name: 'its own lapsed lease is taken again in place', leases: { a: live, me: lapsed }, cap: 2, room: { kind: 'room', lapsed: [], own: lapsed } },
    { name: 'a cap lowered under what runs: full', leases: { a: live, b: live, c: live }, cap: 2, room: { kind: 'full' } },
    { name: 'room left (the take lost a race for the last lease and another freed one)', leases: { a: live }, cap: 2, room: { kind: 'room', lapsed: [] } },
    {
      name: 'a cap lowered under its lapsed leases: all of them cleared in the take',
      leases: Object.fromEntries(Array.from({ length: 12 }, (_, n) => [`dead${n}`, lapsed])),
      cap: 2,
      room: { kind: 'room', lapsed: Array.from({ length: 12 }, (_, n): [string, number] => [`dead${n}`, lapsed]) },
    },
    {
      name: 'at most twenty cleared in one take, as many as a map holds',
      leases: Object.fromEntries(Array.from({ length: 22 }, (_, n) => [`dead${n}`, lapsed])),
      cap: 3,
      room: { kind: 'room', lapsed: Array.from({ length: 20 }, (_, n): [string, number] => [`dead${n}`, lapsed]) },
    },
  ])('a refused take finds $name', ({ leases, cap, room }) => {
    expect(leaseRoom(leases, 'me', cap, NOW)).toEqual(room);
  });

  it.each([
    { name: 'just due: 1 to 2 s', waited: 0, least: 1, most: 2 },
    { name: 'due a minute ago: a quarter of that more', waited: 60, least: 8.5, most: 17 },
    { name: 'due long ago: at most half a minute', waited: 3600, least: 15, most: 30 },
    { name: 'due in the future (a clock a little ahead): as just due', waited: -5, least: 1, most: 2 },
  ])('a delivery over its cap waits, spread: $name', ({ waited, least, most }) => {
    expect(overCapWait(NOW, at(-waited), () => 0)).toEqual(at(least));
    expect(overCapWait(NOW, at(-waited), () => 0.9999).getTime()).toBeLessThan(at(most).getTime());
    expect(overCapWait(NOW, at(-waited), () => 0.9999).getTime()).toBeGreaterThan(at(most - 0.01).getTime());
  });

  it.each([
    { stored: undefined, cap: 10 },
    { stored: null, cap: 10 },
    { stored: 1, cap: 1 },
    { stored: 250, cap: 250 },
  ])('a destination storing $stored keeps to $cap', ({ stored, cap }) => {
    expect(maxInFlight({ max_in_flight: stored })).toBe(cap);
  });

  const answered: BreakerState = { ...CLOSED_BREAKER, last_success_at: iso(-30) };
  it.each<{ name: string; breaker: BreakerState; needed: boolean; cap?: number }>([
    { name: 'a healthy destination that has answered goes without leases', breaker: answered, needed: false },
    { name: 'so does one with a cap above the default', breaker: answered, needed: false, cap: 1000 },
    { name: 'a cap below the default is kept on every try', breaker: answered, needed: true, cap: 9 },
    { name: 'one that never answered takes them (new, or only failures)', breaker: CLOSED_BREAKER, needed: true },
    { name: 'a failing one takes them', breaker: { ...answered, consecutive_failures: 1, failing_since: iso(-5) }, needed: true },
    { name: 'an open one takes them', breaker: { ...answered, state: 'open', open_until: iso(30) }, needed: true },
    { name: 'one marked (a slow try, its cap found reached) takes them through the window', breaker: { ...answered, capped_until: iso(10) }, needed: true },
    { name: 'after the window it goes without again', breaker: { ...answered, capped_until: iso(-1) }, needed: false },
  ])('$name', ({ breaker, needed, cap = 10 }) => {
    expect(capNeeded(cap, breaker, NOW)).toBe(needed);
  });

  it('a mark opens the window; another within its first half writes nothing, a later one renews it', () => {
    const marked = markedCapped(answered, NOW);
    expect(marked?.capped_until).toBe(iso(300));
    expect(markedCapped(marked as BreakerState, at(100))).toBeUndefined();
    expect(markedCapped(marked as BreakerState, at(200))?.capped_until).toBe(iso(500));
  });

  it.each([
    { batches: 100, percent: undefined, tries: 25 },
    { batches: 20, percent: undefined, tries: 5 },
    { batches: 2, percent: 25, tries: 1 },
    { batches: 300, percent: 50, tries: 150 },
    { batches: 7, percent: 30, tries: 3 },
  ])('an account may hold $tries tries under leases of $batches batches at $percent%', ({ batches, percent, tries }) => {
    expect(accountTries(batches, percent)).toBe(tries);
  });

  it.each([
    { batches: 100, share: 25, borrowed: 50, alone: 75 },
    { batches: 20, share: 5, borrowed: 10, alone: 15 },
    { batches: 2, share: 1, borrowed: 0, alone: 1 },
    { batches: 100, share: 50, borrowed: 0, alone: 50 },
    { batches: 100, share: 100, borrowed: 0, alone: 100 },
  ])('accounts past their share may borrow $borrowed of $batches batches: one alone holds $alone, leaving a share free', ({ batches, share, borrowed, alone }) => {
    expect(borrowedTries(batches, share)).toBe(borrowed);
    expect(share + borrowedTries(batches, share)).toBe(alone);
  });

  it('a delivery over its account share waits 2 to 5 s, spread', () => {
    expect(accountShareWait(NOW, () => 0)).toEqual(at(2));
    expect(accountShareWait(NOW, () => 0.999).getTime()).toBe(at(4.997).getTime());
  });

  it('a success keeps the capped window (a slow answer is still slow)', () => {
    const slow = { ...answered, consecutive_failures: 1, capped_until: iso(60) };
    expect(afterSuccess(slow, NOW, DEFAULT_BREAKER)?.next.capped_until).toBe(iso(60));
  });
});

describe('a held delivery the account ends (POST /v1/destinations/{id}/end-held)', () => {
  const ended = (attempts: number) => deliveryState({ status: 'dead_letter', attempts, end_reason: 'held_ended' });
  it.each<[string, ReturnType<typeof deliveryState>, ReturnType<typeof heldEnding>, ReturnType<typeof heldEndedDelivery>]>([
    ['queued, never tried (held by a paused destination) ends held_ended', deliveryState({ waiting: { reason: 'paused', until: null } }), { kind: 'end', reason: 'held_ended' }, ended(0)],
    ['parked by an open breaker ends held_ended, its tries kept', deliveryState({ status: 'retry_scheduled', attempts: 1, next_attempt_at: iso(-60), waiting: { reason: 'breaker_open', until: iso(60) } }), { kind: 'end', reason: 'held_ended' }, ended(1)],
    ['waiting for its endpoint’s proof ends held_ended', deliveryState({ waiting: { reason: 'unverified', until: null } }), { kind: 'end', reason: 'held_ended' }, ended(0)],
    ['a claim past its lease (its worker is gone) ends held_ended', deliveryState({ status: 'delivering', attempts: 1, claimed_at: iso(-61) }), { kind: 'end', reason: 'held_ended' }, ended(1)],
    ['a try in flight under a live claim (a release let it go) is left to its outcome', deliveryState({ status: 'delivering', attempts: 1, claimed_at: iso(-10) }), { kind: 'in_flight' }, undefined],
    ['a delivered one is left as it is', deliveryState({ status: 'delivered', attempts: 1 }), { kind: 'ended' }, undefined],
    ['a dead letter keeps its own reason', deliveryState({ status: 'dead_letter', attempts: 1, end_reason: 'endpoint_gone' }), { kind: 'ended' }, undefined],
  ])('%s', (_, delivery, decision, written) => {
    expect(heldEnding(delivery, NOW, LEASE_MS)).toEqual(decision);
    expect(heldEndedDelivery(delivery, NOW, LEASE_MS)).toEqual(written);
  });

  it.each<[string, Array<{ destination_id: string; attempt_number: number }>, number | undefined]>([
    ['never tried: no last try', [], undefined],
    ['the highest-numbered try of the delivery’s destination', [{ destination_id: 'd1', attempt_number: 2 }, { destination_id: 'd2', attempt_number: 5 }, { destination_id: 'd1', attempt_number: 3 }, { destination_id: 'd1', attempt_number: 1 }], 3],
    ['another destination’s tries are not its', [{ destination_id: 'd2', attempt_number: 1 }], undefined],
  ])('last try: %s', (_, attempts, expected) => {
    expect(lastTryOf(attempts, 'd1')?.attempt_number).toBe(expected);
  });
});

describe('a delivery task taken from the delivery DLQ', () => {
  const waiting = deliveryState({ status: 'retry_scheduled', attempts: 2, next_attempt_at: iso(-60) });
  it.each<[string, StrandedTaskInput, ReturnType<typeof strandedTaskAction>]>([
    ['its delivery still waits: sent once more', { task: { kind: 'delivery', rearmed: false }, delivery: waiting }, { kind: 'rearm' }],
    ['a claim whose worker crashed is sent once more too', { task: { kind: 'delivery', rearmed: false }, delivery: deliveryState({ status: 'delivering', attempts: 1, claimed_at: iso(-600) }) }, { kind: 'rearm' }],
    ['back again after being sent once more: its delivery ends', { task: { kind: 'delivery', rearmed: true }, delivery: waiting }, { kind: 'end', reason: 'task_failed' }],
    ['its delivery ended meanwhile: dropped', { task: { kind: 'delivery', rearmed: false }, delivery: deliveryState({ status: 'delivered', attempts: 1 }) }, { kind: 'drop' }],
    ['back again, its delivery ended: dropped', { task: { kind: 'delivery', rearmed: true }, delivery: deliveryState({ status: 'dead_letter', attempts: 5 }) }, { kind: 'drop' }],
    ['its event is gone (retention): dropped', { task: { kind: 'delivery', rearmed: false }, delivery: undefined }, { kind: 'drop' }],
    ['a destination’s own task (a wake, a release): sent once more', { task: { kind: 'destination', rearmed: false }, delivery: undefined }, { kind: 'rearm' }],
    ['a destination’s own task back again: left for the operator', { task: { kind: 'destination', rearmed: true }, delivery: undefined }, { kind: 'leave' }],
    ['a message that does not parse: left for the operator', { task: { kind: 'unreadable' }, delivery: undefined }, { kind: 'leave' }],
  ])('%s', (_, input, expected) => {
    expect(strandedTaskAction(input)).toEqual(expected);
  });
});
