/**
 * How a delivery task waits in the queue: the one place that turns "not before `until`" into SQS
 * terms (the deliver handler's adapter carries it out). A message hidden with a visibility timeout
 * counts as in flight, and a standard queue stops handing out messages at about 120,000 in flight: a
 * big outage parking its retries that way would stall every tenant. So a task waits as a new message
 * sent with a delay (not in flight, receive count back to 0), hopping again when a wait is longer than
 * a delay can be. Only short waits reuse the received message: at 1,000 failing deliveries a second
 * they hold at most 1,000 × VISIBILITY_WAIT_MAX_SECONDS messages in flight, and no visibility change
 * comes near SQS's 12-hour cap.
 */
const VISIBILITY_WAIT_MAX_SECONDS = 2;
/** Longest delay a queue message may carry (SQS DelaySeconds). */
export const MAX_MESSAGE_DELAY_SECONDS = 900;
/**
 * A message received this often is re-sent rather than hidden again, so waiting alone never brings a
 * healthy task near the redrive policy's maxReceiveCount (which counts every receive, throttled ones
 * too, and must stay well above this: DELIVERY_QUEUE in lambdas/shared/resource-definitions.ts).
 */
export const VISIBILITY_WAIT_MAX_RECEIVES = 2;
/** A task that arrives up to this early is tried rather than put back: queue delays are whole seconds. */
export const EARLY_TOLERANCE_MS = 1000;

/** A task that has nothing to do before `until`; `slot` is the send slot (epoch ms) it holds meanwhile (rate limits). */
export interface TaskWait {
  until: Date;
  slot?: number;
}

/** What a task's message carries of an earlier wait (the delivery task's own fields; those undefined are dropped). */
export interface CarriedWait {
  not_before?: number;
  rate_slot?: number;
}

export type QueueWait =
  /** The received message is hidden for `seconds` and comes back (reported as not done). */
  | { kind: 'visibility'; seconds: number }
  /** A new message, delayed, carries the wait; the received one is done. */
  | { kind: 'resend'; delaySeconds: number; carried: CarriedWait };

export function queueWait(wait: TaskWait, now: Date, receiveCount: number): QueueWait {
  const seconds = Math.max(0, Math.ceil((wait.until.getTime() - now.getTime()) / 1000));
  // A task waiting for its send slot must carry the slot, which only a new message can.
  if (seconds <= VISIBILITY_WAIT_MAX_SECONDS && receiveCount <= VISIBILITY_WAIT_MAX_RECEIVES && wait.slot === undefined) {
    return { kind: 'visibility', seconds };
  }
  const carried: CarriedWait = { not_before: wait.until.getTime(), rate_slot: wait.slot };
  return { kind: 'resend', delaySeconds: Math.min(seconds, MAX_MESSAGE_DELAY_SECONDS), carried };
}

/** The wait a task's message still carries, or undefined once it is (nearly) over: until then there is nothing to read. */
export function carriedWait(carried: Pick<CarriedWait, 'not_before' | 'rate_slot'>, now: Date): TaskWait | undefined {
  if (carried.not_before === undefined || carried.not_before - now.getTime() <= EARLY_TOLERANCE_MS) return undefined;
  return { until: new Date(carried.not_before), slot: carried.rate_slot };
}

/**
 * The first wait of a task that failed outright (an AWS error its SDK retries could not absorb: a
 * throttled key, a service having a bad minute). Without it the message would come back only after
 * the queue's visibility timeout (6 minutes), however short the fault.
 */
const FAULT_WAIT_FIRST_SECONDS = 10;

/**
 * How long a task that failed outright stays hidden before it is tried again: doubling with each
 * receive, never less than `leaseSeconds` (a task that failed after claiming its delivery must come
 * back once its claim has expired: one that found its own claim live would take itself for a
 * duplicate and be dropped), never more than `maxSeconds` (the queue's visibility timeout). With the
 * redrive policy's 10 receives a lasting fault keeps a task trying for about half an hour before the DLQ.
 */
export function faultWaitSeconds(receiveCount: number, limits: { leaseSeconds: number; maxSeconds: number }): number {
  const backoff = FAULT_WAIT_FIRST_SECONDS * 2 ** Math.max(0, receiveCount - 1);
  return Math.min(limits.maxSeconds, Math.max(limits.leaseSeconds + 1, backoff));
}
