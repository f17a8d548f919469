import { timingSafeEqual } from 'node:crypto';

/**
 * Proof that an endpoint belongs to whoever registered it, before anything else is sent to it: one
 * signed POST carrying a random challenge, which the endpoint proves it received by echoing it (or
 * its owner by pasting it into `POST /v1/destinations/{id}/verify`). A POST, never a GET: a GET to a
 * receiver's URL runs its business logic on no event, and a link preview could "verify" a URL whose
 * owner never saw the challenge.
 */

export const VERIFICATION_EVENT_TYPE = 'hookgate.endpoint.verification';

/** What decides whether a destination may be sent anything but its challenge. */
export interface OwnershipFacts {
  /** Absent: a destination that never asked for proof. */
  verify_ownership?: boolean;
  verified_at?: string | null;
}

/** The destination waits for its endpoint to prove ownership: it holds every delivery and is sent nothing but the challenge. */
export const pendingVerification = (d: OwnershipFacts): boolean => d.verify_ownership === true && !d.verified_at;

/** What the API shows as a destination's `status`. */
export const DESTINATION_STATUSES = ['active', 'paused', 'pending_verification'] as const;
export type DestinationStatus = (typeof DESTINATION_STATUSES)[number];

export const destinationStatus = (d: OwnershipFacts & { active: boolean }): DestinationStatus =>
  !d.active ? 'paused' : pendingVerification(d) ? 'pending_verification' : 'active';

/** The body of the verification POST: the challenge at its top level, where a receiver's few lines of echo find it. */
export const verificationPayload = (destinationId: string, challenge: string, at: Date) => ({
  type: VERIFICATION_EVENT_TYPE,
  challenge,
  destination_id: destinationId,
  created_at: at.toISOString(),
});

const sameSecret = (a: string, b: string): boolean => {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
};

/**
 * Whether an answer's body gives the challenge back: `{"challenge": "…"}` and nothing else, the JSON
 * string, or the bare challenge (surrounding whitespace aside). Anything else, however close, is not proof.
 */
export function echoesChallenge(body: string, challenge: string): boolean {
  const text = body.trim();
  if (sameSecret(text, challenge)) return true;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof parsed === 'string') return sameSecret(parsed, challenge);
  // Only the challenge: an endpoint that answers with what it was sent (an echo service, a third
  // party's "create" API) gives back the whole challenge event, and that proves nothing.
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && Object.keys(parsed).length === 1 && 'challenge' in parsed) {
    const echoed = (parsed as { challenge: unknown }).challenge;
    return typeof echoed === 'string' && sameSecret(echoed, challenge);
  }
  return false;
}

/**
 * Seconds before each resend of the challenge after a try that did not verify (the first try goes at
 * once). Each fits one SQS message delay (at most 900 s); after the last the destination stays pending
 * until its owner asks for a resend, verifies by hand, or changes its URL: an endpoint that never
 * echoes is not sent its challenge forever.
 */
export const VERIFICATION_RESEND_SECONDS = [10, 60, 300, 900, 900, 900] as const;

/**
 * A deployment's resend schedule from its setting: comma-separated seconds, each within one message
 * delay (0 to 900); unset or empty, the default. Tests scale it down to see a resend without waiting 10 s.
 */
export function parseVerificationResend(raw: string | undefined): readonly number[] {
  if (raw === undefined || raw.trim() === '') return VERIFICATION_RESEND_SECONDS;
  const steps = raw.split(',').map((part) => (part.trim() === '' ? Number.NaN : Number(part.trim())));
  if (steps.some((s) => !Number.isFinite(s) || s < 0 || s > 900)) {
    throw new Error(`invalid verification resend schedule "${raw}": comma-separated seconds between 0 and 900`);
  }
  return steps;
}

/** The wait before the next try after try `attempt` (1-based) failed to verify; null: no more tries. */
export const nextVerificationTry = (attempt: number, schedule: readonly number[] = VERIFICATION_RESEND_SECONDS): number | null => schedule[attempt - 1] ?? null;

/** Why a challenge posted by hand does not verify the destination. */
export type ManualVerification = { kind: 'verified' } | { kind: 'not_pending' } | { kind: 'mismatch' };

export const NOT_PENDING_MESSAGE = 'the destination is not waiting for verification';
export const MISMATCH_MESSAGE = 'challenge does not match the one last sent to the endpoint';

/** The account posts what its endpoint received: it verifies only while pending, and only the challenge last sent. */
export function manualVerification(d: OwnershipFacts & { verification_challenge: string | null }, given: string): ManualVerification {
  if (!pendingVerification(d) || d.verification_challenge === null) return { kind: 'not_pending' };
  return sameSecret(given, d.verification_challenge) ? { kind: 'verified' } : { kind: 'mismatch' };
}
