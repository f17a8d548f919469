import { nextRetry, type RetryDecision } from './backoff';
import type { BreakerGate } from './breaker';
import { truncateUtf8 } from './listen';
import { isTerminalDelivery } from './event-status';
import type { DeliveryState, EndReason, WaitReason } from './progress';
import { reachesCustomer } from './routing';
import { pendingVerification, type OwnershipFacts } from './endpoint-verification';
import type { AttemptOutcome } from './vocabulary';

/**
 * The decisions of one delivery try, as pure functions (model: svix-server's worker, which types each
 * phase of a dispatch). The pipeline reads, asks these what to do, and writes what they return:
 * claim → send → settle.
 */

/** What a delivery task may do on arrival. */
export type ClaimDecision =
  /** Nothing to do: settled already, or another worker holds a live claim (a duplicate message). */
  | { kind: 'skip' }
  /** The delivery ends without a try. */
  | { kind: 'end'; reason: EndReason }
  /** Not yet: no try is spent. `not_due` needs no write (the due time is stored already). */
  | { kind: 'wait'; until: Date; reason: 'not_due' | 'breaker_open' | 'probe_in_flight' }
  /**
   * Its destination is switched off (by its owner, or by Hookgate: `paused`) or waits for its
   * endpoint's proof of ownership (`unverified`): it waits, no try spent, until that is over.
   */
  | { kind: 'paused'; reason: 'paused' | 'unverified' }
  | { kind: 'claim'; probe: boolean };

export interface ArrivalInput {
  delivery: DeliveryState | undefined;
  now: Date;
  /** A claim older than this belongs to a worker that is gone. */
  leaseMs: number;
  /** A task that arrives this early is tried rather than put back. */
  earlyToleranceMs: number;
}

export interface ClaimInput extends ArrivalInput {
  /** Undefined only when a fresh, consistent read found no such destination. */
  destination: ({ active: boolean; customer: string | null } & OwnershipFacts) | undefined;
  /** The customer the event is addressed to (null: none). */
  customer: string | null;
  gate: BreakerGate;
  /** Its event is a tombstone: an erasure took the payload, which no later try may send (a task may still carry it). */
  payloadErased?: boolean;
}

/**
 * How long a task's first message may wait for its event to be written, by default. Accepting an event
 * sends its messages first and writes it second, so a message can arrive first (no delay, a fast
 * consumer), and the message of an event whose write failed (its caller was answered 5xx) finds none
 * for good. The write follows the send within one request's time; this covers that many times over.
 */
export const MISSING_EVENT_GRACE_SECONDS = 60;
/** How often a task that found no event looks again within the grace. */
const MISSING_EVENT_RECHECK_MS = 2_000;

/** Pauses (ms) before each in-process look for an event being written: ~0.8 s in all, the usual write taking milliseconds. */
const IN_PROCESS_LOOKS_MS = [25, 50, 100, 200, 400];
/** A message sent longer ago than this found no event for another reason than the race: it waits in the queue. */
const IN_PROCESS_LOOK_AGE_MS = 2_000;

/**
 * How long after its message was sent a first message's task first looks for its event: the accept
 * writes the body and the event after sending (two writes of milliseconds each), and a look before
 * then finds nothing and is a read made for nothing. A message the deliver mapping batched for a while
 * (its batching window) is older and looks at once.
 */
const FIRST_LOOK_AFTER_MS = 25;

/** The pause (ms) before a task's first look for its event: none unless its message was sent less than FIRST_LOOK_AFTER_MS ago. */
export const firstLookPause = (sentAt: number | undefined, now: Date): number => (sentAt === undefined ? 0 : Math.min(FIRST_LOOK_AFTER_MS, Math.max(0, sentAt + FIRST_LOOK_AFTER_MS - now.getTime())));

/** How a task that found no event looks again before it waits in the queue: only a just-sent first message does. */
export const inProcessLooks = (sentAt: number | undefined, now: Date): readonly number[] =>
  sentAt !== undefined && now.getTime() - sentAt < IN_PROCESS_LOOK_AGE_MS ? IN_PROCESS_LOOKS_MS : [];

/**
 * A task that found no event: look again shortly while its event may still be being written; past the
 * grace, a first message gives up on it (`give_up`: it leaves its mark on the delivery, which its accept,
 * should it write the event after all, finds), and any other message is dropped.
 */
export function missingEventWait(sentAt: number | undefined, now: Date, graceSeconds: number): { kind: 'skip' } | { kind: 'give_up' } | { kind: 'wait'; until: Date } {
  if (sentAt === undefined) return { kind: 'skip' }; // a message no accept sent: its event existed, and retention took it
  const giveUp = sentAt + graceSeconds * 1000;
  if (now.getTime() >= giveUp) return { kind: 'give_up' };
  return { kind: 'wait', until: new Date(Math.min(giveUp, now.getTime() + MISSING_EVENT_RECHECK_MS)) };
}

/**
 * Whether an event's first messages, sent at `sentAt`, may have given up on it before they found it
 * (`missingEventWait`): past half their grace, what is left of it no longer covers a slow write.
 */
export const messagesMayGiveUp = (sentAt: number, now: Date, graceSeconds: number): boolean => now.getTime() - sentAt > (graceSeconds * 1000) / 2;

/** What the delivery's own state says on arrival, before anything about its destination is read. */
export function checkArrival({ delivery, now, leaseMs, earlyToleranceMs }: ArrivalInput): ClaimDecision | { kind: 'proceed' } {
  if (!delivery || isTerminalDelivery(delivery.status)) return { kind: 'skip' };
  if (delivery.status === 'delivering') {
    if (hasLiveClaim(delivery, now, leaseMs)) return { kind: 'skip' };
  } else if (delivery.next_attempt_at) {
    const due = Date.parse(delivery.next_attempt_at);
    if (due - now.getTime() > earlyToleranceMs) return { kind: 'wait', until: new Date(due), reason: 'not_due' };
  }
  return { kind: 'proceed' };
}

export function decideClaim(input: ClaimInput): ClaimDecision {
  const arrival = checkArrival(input);
  if (arrival.kind !== 'proceed') return arrival;
  const { destination, gate } = input;
  if (!destination) return { kind: 'end', reason: 'destination_deleted' };
  if (input.payloadErased) return { kind: 'end', reason: 'payload_erased' };
  if (!destination.active) return { kind: 'paused', reason: 'paused' };
  if (pendingVerification(destination)) return { kind: 'paused', reason: 'unverified' };
  if (!reachesCustomer(destination.customer, input.customer)) return { kind: 'end', reason: 'customer_changed' };
  if (gate.kind === 'wait') return { kind: 'wait', until: gate.until, reason: gate.reason };
  return { kind: 'claim', probe: gate.kind === 'probe' };
}

const hasLiveClaim = (delivery: DeliveryState, now: Date, leaseMs: number) =>
  delivery.claimed_at !== null && Date.parse(delivery.claimed_at) + leaseMs > now.getTime();

/** What a settled try leads to. */
export interface TryOutcome {
  outcome: AttemptOutcome;
  responseStatus: number | null;
  retryAfterSeconds: number | null;
}

export interface Settlement {
  next: DeliveryState;
  /** When set, the task's message comes back after this many seconds. */
  retry: RetryDecision;
  /** The endpoint answered 410 Gone: the destination is switched off and gets no more tries. */
  disable: boolean;
}

/** How much of a successful answer's body a try keeps: enough to recognise it; a failure keeps what the sender read (4 KB), which is what explains it. */
const SUCCESS_RESPONSE_BODY_BYTES = 256;

/** The response body a try records: a success's first bytes only, so its outcome stays one small write. */
export const keptResponseBody = (result: { outcome: AttemptOutcome; responseBody: string }): string =>
  result.outcome === 'success' ? truncateUtf8(result.responseBody, SUCCESS_RESPONSE_BODY_BYTES) : result.responseBody;

export function settleTry(result: TryOutcome, attemptNumber: number, schedule: readonly number[], attemptedAt: Date): Settlement {
  const settled = { attempts: attemptNumber, next_attempt_at: null, claimed_at: null };
  if (result.outcome === 'success') {
    return { next: { status: 'delivered', ...settled }, retry: { retry: false }, disable: false };
  }
  if (result.responseStatus === 410) {
    return { next: { status: 'dead_letter', ...settled, end_reason: 'endpoint_gone' }, retry: { retry: false }, disable: true };
  }
  const retry = nextRetry(schedule, attemptNumber, result.retryAfterSeconds);
  if (!retry.retry) return { next: { status: 'dead_letter', ...settled }, retry, disable: false };
  const due = new Date(attemptedAt.getTime() + retry.delaySeconds * 1000).toISOString();
  return { next: { status: 'retry_scheduled', ...settled, next_attempt_at: due }, retry, disable: false };
}

/**
 * Each transition re-checks the delivery as stored (it may have changed since the decision) and returns
 * undefined when it no longer applies, so a concurrent worker or a duplicate message changes nothing.
 * A delivery is one item of its own: deliveries of one event never contend.
 */
export function claimedDelivery(current: DeliveryState, claimedAt: Date, leaseMs: number): DeliveryState | undefined {
  if (isTerminalDelivery(current.status)) return undefined;
  if (current.status === 'delivering' && hasLiveClaim(current, claimedAt, leaseMs)) return undefined;
  return { ...current, status: 'delivering', claimed_at: claimedAt.toISOString(), waiting: null };
}

/**
 * A delivery that waits without a try. Waiting for its send slot (`rate_limit`), its due time moves to
 * the slot: its message comes back then. Parked by an open breaker, it keeps its due time (the order
 * it is released in) and says why it waits and until when, if anyone knows.
 */
export function heldDelivery(current: DeliveryState, reason: WaitReason, until: Date | null, now: Date, leaseMs: number): DeliveryState | undefined {
  if (isTerminalDelivery(current.status)) return undefined;
  if (current.status === 'delivering' && hasLiveClaim(current, now, leaseMs)) return undefined;
  const status = current.attempts === 0 ? 'queued' : 'retry_scheduled';
  const waiting = { reason, until: until && until.toISOString() };
  const due = reason === 'rate_limit' && until ? until.toISOString() : (current.next_attempt_at ?? now.toISOString());
  return { ...current, status, next_attempt_at: due, claimed_at: null, waiting };
}

/** Ends a delivery without a try; its attempts stay as they were. */
export function endedDelivery(current: DeliveryState, reason: EndReason): DeliveryState | undefined {
  if (isTerminalDelivery(current.status)) return undefined;
  return { status: 'dead_letter', attempts: current.attempts, next_attempt_at: null, claimed_at: null, end_reason: reason };
}

/**
 * Records the outcome of a first try made without a claim (its delivery had no item yet: no worker
 * had tried, held or ended it), if that is still so; a try made meanwhile by another worker (a
 * duplicate message) or an end keeps its own state, and this try is kept as an attempt of its own.
 */
export function settledFirstTry(current: DeliveryState, next: DeliveryState): DeliveryState | undefined {
  if (current.status !== 'queued' || current.attempts > 0 || current.claimed_at !== null) return undefined;
  return next;
}

/** Records a try's settlement, if the claim it was made under is still the delivery's. */
export function settledDelivery(current: DeliveryState, claimedAt: Date, next: DeliveryState): DeliveryState | undefined {
  if (current.status !== 'delivering' || current.claimed_at !== claimedAt.toISOString()) return undefined; // taken over
  return next;
}
