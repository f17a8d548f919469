import { enqueueDeliveries, type VerificationTask } from '../adapters/delivery-queue';
import type { DeliverySender } from '../adapters/delivery-sender';
import { deliveryHeaders } from '../domain/delivery-headers';
import { echoesChallenge, manualVerification, MISMATCH_MESSAGE, nextVerificationTry, NOT_PENDING_MESSAGE, pendingVerification, VERIFICATION_EVENT_TYPE, verificationPayload } from '../domain/endpoint-verification';
import { invalid } from '../domain/errors';
import { activeSecrets } from '../domain/signing';
import { traceparentOf } from '../domain/trace-context';
import { refused, type NotFound, type Refused } from '../domain/outcomes';
import { sendReleaseBackstop, startRelease } from '../pipeline/held-deliveries';
import { config } from '../shared/config';
import { signerKeysOf } from '../signing-keys';
import { log } from '../shared/log';
import { newChallenge, newId, newSpanBytes, newTrace } from '../shared/secrets';
import { mayManage, type DestinationActor } from './changes';
import { findDestination, markVerified, updateDestination, type DestinationRecord } from './record';

/**
 * Proof of endpoint ownership (lambdas/domain/endpoint-verification.ts): the challenge's POST, sent
 * from the deliver function through the same sender (SSRF guard included) and signing as any
 * delivery; and the proof, by echo or by hand, which lets what the destination held go through the
 * same release as switching a paused destination back on.
 */

/** Sends the first try of the destination's current challenge. */
export async function sendChallenge(destination: Pick<DestinationRecord, 'account_id' | 'id' | 'verification_challenge'>): Promise<void> {
  if (destination.verification_challenge === null) return;
  const task: VerificationTask = { v: 1, kind: 'verify', account_id: destination.account_id, destination_id: destination.id, challenge: destination.verification_challenge, attempt: 1 };
  await enqueueDeliveries([task], 0);
}

/**
 * One try of a challenge, as its task arrives: nothing when the destination no longer waits for that
 * challenge (verified, deleted, switched off verification, or a newer challenge sent). An answer that
 * echoes it verifies the destination; any other outcome sends it again later, a few times
 * (`nextVerificationTry`). The answer's body is never logged: it is the receiver's.
 */
export async function verificationTaskArrived(task: VerificationTask, deps: { send: DeliverySender; now: () => Date }): Promise<void> {
  const destination = await findDestination(task.account_id, task.destination_id);
  if (!destination || !pendingVerification(destination) || destination.verification_challenge !== task.challenge) return;
  // Paused, it is sent nothing, its challenge included: switching it back on sends the challenge again.
  if (!destination.active) return;
  const now = deps.now();
  const body = Buffer.from(JSON.stringify(verificationPayload(destination.id, task.challenge, now)));
  const id = newId();
  const headers = deliveryHeaders({
    webhookId: id,
    eventId: id,
    eventType: VERIFICATION_EVENT_TYPE,
    contentType: 'application/json',
    body,
    timestamp: Math.floor(now.getTime() / 1000),
    traceparent: traceparentOf(newTrace(), newSpanBytes()),
    scheme: destination.signature_scheme,
    secrets: activeSecrets(destination, now),
    keys: destination.signature_scheme === 'ed25519' ? await signerKeysOf(destination, now) : [],
    auth: destination.auth,
    userAgent: `hookgate/${config().version}`,
  });
  const result = await deps.send({ url: destination.url, headers, body, timeoutMs: destination.timeout_ms, allowPrivate: config().allowPrivateDestinations, aws: null, listen: null });
  const keys = { account_id: task.account_id, destination_id: task.destination_id, attempt: task.attempt };
  if (result.outcome === 'success' && echoesChallenge(result.responseBody, task.challenge)) {
    if (await verified(task.account_id, task.destination_id, task.challenge, deps.now())) log.info('endpoint verified', keys);
    return;
  }
  const wait = nextVerificationTry(task.attempt, config().verificationResendSeconds);
  log.info('endpoint verification not echoed', { ...keys, outcome: result.outcome, status: result.responseStatus, next_try_in_seconds: wait });
  const { rearmed: _rearmed, ...next } = task;
  if (wait !== null) await enqueueDeliveries([{ ...next, attempt: task.attempt + 1 }], wait);
}

/**
 * The destination is verified (if `challenge` is still the one it waits for), and what it held goes:
 * the backstop first, as when a paused destination is switched back on, so a release lost after the
 * write is sent anyway.
 */
async function verified(accountId: string, destinationId: string, challenge: string, at: Date): Promise<boolean> {
  await sendReleaseBackstop(accountId, destinationId);
  if (!(await markVerified(accountId, destinationId, challenge, at))) return false;
  try {
    await startRelease(accountId, destinationId);
  } catch (error) {
    log.warn('release after verification failed: its backstop lets the held deliveries go', { account_id: accountId, destination_id: destinationId }, error);
  }
  return true;
}

export type Verified = { kind: 'verified'; destination: DestinationRecord };
export type Resent = { kind: 'resent'; destination: DestinationRecord };

/** The account posts the challenge its endpoint received (a receiver that cannot echo). */
export async function verifyByHand(current: DestinationRecord, challenge: string, actor: DestinationActor, now: Date): Promise<Verified | NotFound | Refused> {
  if (!mayManage(actor, current)) return { kind: 'not_found' };
  const check = manualVerification(current, challenge);
  if (check.kind === 'not_pending') return refused(invalid(NOT_PENDING_MESSAGE));
  if (check.kind === 'mismatch') return refused(invalid(MISMATCH_MESSAGE));
  if (!(await verified(current.account_id, current.id, challenge, now))) return refused(invalid(MISMATCH_MESSAGE));
  const destination = await findDestination(current.account_id, current.id);
  return destination ? { kind: 'verified', destination } : { kind: 'not_found' };
}

/**
 * A new challenge, sent at once with a fresh round of tries: for an endpoint that was down through
 * every resend, or whose owner lost the challenge. The previous challenge no longer verifies.
 */
export async function resendChallenge(current: DestinationRecord, actor: DestinationActor, now: Date): Promise<Resent | NotFound | Refused> {
  if (!mayManage(actor, current)) return { kind: 'not_found' };
  if (!pendingVerification(current)) return refused(invalid(NOT_PENDING_MESSAGE));
  const destination = await updateDestination(current.account_id, current.id, { verification_challenge: newChallenge(), updated_at: now.toISOString() });
  if (!destination) return { kind: 'not_found' };
  await sendChallenge(destination);
  return { kind: 'resent', destination };
}
