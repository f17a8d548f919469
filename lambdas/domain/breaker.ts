/**
 * The per-destination circuit breaker. After `threshold` consecutive failed tries (errors and timeouts
 * alike) a destination is `open`: its deliveries wait, spending no try, until `open_until`; then one
 * delivery at a time is let through as a probe. A probe that succeeds closes the breaker; one that
 * fails opens it again for twice as long (up to `maxCooldownSeconds`).
 *
 * State is written only when it changes: a success on a closed, failure-free breaker writes nothing,
 * except to refresh `last_success_at` once per `successStampSeconds`.
 */
export interface BreakerSettings {
  threshold: number;
  cooldownSeconds: number;
  maxCooldownSeconds: number;
  successStampSeconds: number;
}

export const DEFAULT_BREAKER: BreakerSettings = {
  threshold: 5,
  cooldownSeconds: 30,
  maxCooldownSeconds: 600,
  successStampSeconds: 60,
};

export interface BreakerState {
  state: 'closed' | 'open';
  consecutive_failures: number;
  /** When the current run of failures began (null while the last try succeeded). */
  failing_since: string | null;
  /** How many times in a row the breaker re-opened after a failed probe (sets the cooldown). */
  reopen_count: number;
  open_until: string | null;
  /** A probe holds the half-open breaker until this time; null when nobody probes. */
  probe_until: string | null;
  last_success_at: string | null;
  last_failure_at: string | null;
  /** Until then its tries take leases under its cap: a try ran slow, or a delivery found the cap reached (lambdas/domain/max-in-flight.ts `capNeeded`). */
  capped_until: string | null;
}

export const CLOSED_BREAKER: BreakerState = {
  state: 'closed',
  consecutive_failures: 0,
  failing_since: null,
  reopen_count: 0,
  open_until: null,
  probe_until: null,
  last_success_at: null,
  last_failure_at: null,
  capped_until: null,
};

export type BreakerGate = { kind: 'pass' } | { kind: 'probe' } | { kind: 'wait'; until: Date; reason: 'breaker_open' | 'probe_in_flight' };

/**
 * What a delivery may do now, as far as its destination's breaker is concerned. A manual action (a
 * replay, a portal resend or test) is the best probe there is: it need not wait for the cooldown, only
 * for a probe already out.
 */
export function breakerGate(breaker: BreakerState, now: Date, manual = false): BreakerGate {
  if (breaker.state === 'closed') return { kind: 'pass' };
  const openUntil = Date.parse(breaker.open_until ?? '');
  const probeUntil = Date.parse(breaker.probe_until ?? '');
  if (probeUntil > now.getTime()) return { kind: 'wait', until: new Date(Math.max(probeUntil, manual ? 0 : openUntil)), reason: 'probe_in_flight' };
  if (openUntil > now.getTime() && !manual) return { kind: 'wait', until: new Date(openUntil), reason: 'breaker_open' };
  return { kind: 'probe' };
}

/** The probe's hold on the breaker, or undefined when another delivery already holds it. */
export function takeProbe(breaker: BreakerState, now: Date, leaseMs: number, manual = false): BreakerState | undefined {
  if (breakerGate(breaker, now, manual).kind !== 'probe') return undefined;
  return { ...breaker, probe_until: new Date(now.getTime() + leaseMs).toISOString() };
}

/**
 * Held deliveries sleep (parked, no message of their own), so a destination with an open breaker has
 * one timer instead: a wake message at each instant a breaker write sets (its cooldown's end, its
 * probe's lease end). These are the instants `after` sets that `before` did not.
 */
export function wakeTimes(before: BreakerState, after: BreakerState): string[] {
  return [after.open_until, after.probe_until].filter((at): at is string => at !== null && at !== before.open_until && at !== before.probe_until);
}

/**
 * What a wake scheduled for `at` does on arrival: nothing when the breaker no longer waits for that
 * instant (a later write scheduled its own wake, or the breaker closed and released its deliveries);
 * let one held delivery through as the probe; or, early, wait for the instant.
 */
export function wakeVerdict(breaker: BreakerState, at: string, now: Date): { kind: 'stale' } | { kind: 'release' } | { kind: 'probe' } | { kind: 'wait'; until: Date } {
  if (breaker.state === 'closed') return { kind: 'release' };
  if (at !== breaker.open_until && at !== breaker.probe_until) return { kind: 'stale' };
  const gate = breakerGate(breaker, now);
  if (gate.kind === 'wait') return { kind: 'wait', until: gate.until };
  return { kind: 'probe' };
}

/**
 * How a destination's held deliveries are let go once it can take them: a page a second until none
 * is left, each as many as its cap lets in flight (so a page never races itself for the cap's leases:
 * at a cap of 1 they go one at a time, in due order), its rate limit lets go in that second, and at
 * most 100; those the cap has no room for yet wait in the queue, as any delivery over it. A deleted
 * destination's deliveries end without a try: a page of 100 a second.
 */
export function releasePlan(destination: { rate_limit_per_second?: number | null; max_in_flight: number } | undefined): { size: number; nextInSeconds: number } {
  if (!destination) return { size: RELEASE_PAGE_MAX, nextInSeconds: RELEASE_EVERY_SECONDS };
  const size = Math.max(1, Math.min(RELEASE_PAGE_MAX, destination.rate_limit_per_second ?? RELEASE_PAGE_MAX, destination.max_in_flight));
  return { size, nextInSeconds: RELEASE_EVERY_SECONDS };
}
// A page a second, so a rate limit per second is itself a page's bound.
const RELEASE_EVERY_SECONDS = 1;
const RELEASE_PAGE_MAX = 100;

export type BreakerTransition = 'opened' | 'recovered' | null;
export type BreakerChange = { next: BreakerState; transition: BreakerTransition };

/** What a change of the breaker tells the account: it opened, or an open one closed (a re-open after a failed probe is neither). */
export function breakerTransition(before: BreakerState, after: BreakerState): BreakerTransition {
  if (before.state === 'closed' && after.state === 'open') return 'opened';
  if (before.state === 'open' && after.state === 'closed') return 'recovered';
  return null;
}

const change = (before: BreakerState, next: BreakerState): BreakerChange => ({ next, transition: breakerTransition(before, next) });

/**
 * The breaker after a failed try, or undefined when there is nothing to write: a try that was not the
 * probe failing on an open breaker (it started before the breaker opened) adds nothing, which also
 * keeps a burst of concurrent failures from contending for the item once it is open.
 */
export function afterFailure(breaker: BreakerState, now: Date, settings: BreakerSettings, probe: boolean): BreakerChange | undefined {
  const at = now.toISOString();
  const failed: BreakerState = {
    ...breaker,
    consecutive_failures: breaker.consecutive_failures + 1,
    failing_since: breaker.failing_since ?? at,
    last_failure_at: at,
    probe_until: null,
  };
  if (breaker.state === 'open') {
    if (!probe) return undefined;
    const reopenCount = breaker.reopen_count + 1;
    return change(breaker, { ...failed, reopen_count: reopenCount, open_until: openUntil(now, reopenCount, settings) });
  }
  if (failed.consecutive_failures < settings.threshold) return change(breaker, failed);
  return change(breaker, { ...failed, state: 'open', reopen_count: 0, open_until: openUntil(now, 0, settings) });
}

/** The breaker after a successful try, or undefined when nothing worth a write changed. */
export function afterSuccess(breaker: BreakerState, now: Date, settings: BreakerSettings): BreakerChange | undefined {
  const at = now.toISOString();
  const stampAge = now.getTime() - Date.parse(breaker.last_success_at ?? '');
  if (breaker.state === 'closed' && breaker.consecutive_failures === 0 && stampAge < settings.successStampSeconds * 1000) return undefined;
  return change(breaker, { ...CLOSED_BREAKER, last_success_at: at, last_failure_at: breaker.last_failure_at, capped_until: breaker.capped_until });
}

function openUntil(now: Date, reopenCount: number, settings: BreakerSettings): string {
  const seconds = Math.min(settings.cooldownSeconds * 2 ** reopenCount, settings.maxCooldownSeconds);
  return new Date(now.getTime() + seconds * 1000).toISOString();
}

export const HEALTH_STATES = ['healthy', 'failing', 'open', 'disabled'] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

/** A destination's health as the API shows it. */
export function healthState(breaker: BreakerState, active: boolean): HealthState {
  if (!active) return 'disabled';
  if (breaker.state === 'open') return 'open';
  return breaker.consecutive_failures > 0 ? 'failing' : 'healthy';
}
