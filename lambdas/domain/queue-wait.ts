/**
 * How a delivery task waits in the queue. A message hidden with a visibility timeout counts as in
 * flight, and a standard queue stops handing out messages at about 120,000 in flight: a big outage
 * parking its retries that way would stall every tenant. So a task waits as a new message sent with a
 * delay (not in flight, receive count back to 0), hopping again when a wait is longer than a delay can
 * be. Only short waits reuse the received message: at 1,000 failing deliveries a second they hold at
 * most 1,000 × VISIBILITY_WAIT_MAX_SECONDS messages in flight.
 */
export const VISIBILITY_WAIT_MAX_SECONDS = 2;
/** Longest delay a queue message may carry (SQS DelaySeconds). */
export const MAX_MESSAGE_DELAY_SECONDS = 900;
/**
 * A message received this often is re-sent rather than hidden again, so waiting alone never brings a
 * healthy task near the redrive policy's maxReceiveCount (which must stay above this plus the
 * handler failures a poison message is allowed).
 */
export const VISIBILITY_WAIT_MAX_RECEIVES = 2;

export type WaitPlan = { kind: 'visibility'; seconds: number } | { kind: 'resend'; delaySeconds: number };

export function waitPlan(seconds: number, receiveCount: number): WaitPlan {
  const wait = Math.max(0, Math.ceil(seconds));
  if (wait <= VISIBILITY_WAIT_MAX_SECONDS && receiveCount <= VISIBILITY_WAIT_MAX_RECEIVES) return { kind: 'visibility', seconds: wait };
  return { kind: 'resend', delaySeconds: Math.min(wait, MAX_MESSAGE_DELAY_SECONDS) };
}
