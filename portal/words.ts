/**
 * What the portal says to a customer, as pure functions the unit tests read as tables: health in the
 * customer's words (a circuit breaker's "open" means nothing to them), how long ago something
 * happened, and failures as sentences (never `Error: getaddrinfo ENOTFOUND sts…`).
 */

export type Tone = 'good' | 'bad' | 'warn' | 'idle';

/**
 * An endpoint's health as its owner would say it. `failing` still gets every try on schedule; `open`
 * holds deliveries until the next try; `disabled` is any switched-off endpoint, "after failures" only
 * when the gateway switched it off (a 410, days of failures: it recorded `disabled_reason`), never
 * when its owner or the account paused it.
 */
export function healthWords(
  state: 'healthy' | 'failing' | 'open' | 'disabled',
  active: boolean,
  pendingVerification = false,
  disabledReason: string | null = null,
): { text: string; tone: Tone; key: string } {
  if (!active && (state !== 'disabled' || disabledReason === null)) return { text: 'paused', tone: 'idle', key: 'paused' };
  // Nothing has been sent to it but its challenge: it has no health to speak of yet.
  if (active && pendingVerification) return { text: 'waiting for verification', tone: 'warn', key: 'pending_verification' };
  switch (state) {
    case 'healthy':
      return { text: 'healthy', tone: 'good', key: 'healthy' };
    case 'failing':
      return { text: 'failing, retrying', tone: 'bad', key: 'failing' };
    case 'open':
      return { text: 'failing, retrying later', tone: 'bad', key: 'open' };
    case 'disabled':
      return { text: 'paused after failures', tone: 'bad', key: 'disabled' };
  }
}

/** An event's, a delivery's or a try's status as a customer says it: no queue or pipeline terms ("dead letter"). */
const STATUS_WORDS: Readonly<Record<string, string>> = {
  accepted: 'not sent',
  delivering: 'sending',
  retry_scheduled: 'retrying',
  dead_letter: 'failed',
  replayed: 'sent again',
  http_error: 'error response',
  timeout: 'timed out',
  network_error: 'could not connect',
};

export const statusWords = (status: string): string => STATUS_WORDS[status] ?? status.replace(/_/g, ' ');

const UNITS: ReadonlyArray<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['week', 7 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
];

/** `then` relative to `now`, in the largest whole unit (negative: in the past), for Intl.RelativeTimeFormat. */
export function relativeTime(then: number, now: number): { value: number; unit: Intl.RelativeTimeFormatUnit } {
  const seconds = Math.round((then - now) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return { value: Math.trunc(seconds / size), unit };
  }
  return { value: 0, unit: 'second' };
}

/** How many deliveries an endpoint holds back (paused, unverified, failing, at its limit), as a count a customer reads. */
export const heldWords = (held: number): string => (held === 0 ? 'nothing waiting' : held === 1 ? '1 delivery waiting' : `${held} deliveries waiting`);

/** A failure as the page met it: no answer at all, or the API's status and message. */
export type Failure = { kind: 'network' } | { kind: 'http'; status: number; error?: string | undefined };

/**
 * The API's message as a sentence. One that starts with a field's name ("url must be …") keeps it as
 * the API spells it, after a lead-in, rather than capitalised into something the form does not say.
 */
const sentence = (text: string) => {
  const trimmed = text.trim();
  const first = /^[a-z][a-z0-9_.]* must /.test(trimmed) ? `Check the form: ${trimmed}` : trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
};

/** Internals a customer cannot act on: stack-ish and network text that must never be shown. */
const INTERNAL = /\bError:|ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|getaddrinfo|socket hang up|\n\s+at /;

/**
 * A failure in the customer's words. The API's 4xx messages are written for whoever made the request
 * and name what to change, so they are shown as sentences; anything else (no answer, a 5xx, an
 * internal-looking message) gets a sentence that says what to do.
 */
export function failureWords(failure: Failure): string {
  if (failure.kind === 'network') return 'The page could not reach the server. Check your connection, then try again.';
  if (failure.status === 429) return 'Too many requests at once. Wait a few seconds, then try again.';
  if (failure.status >= 500 || !failure.error || INTERNAL.test(failure.error)) return 'Something went wrong on our side. Try again in a minute; if it keeps happening, contact us.';
  return sentence(failure.error);
}

/**
 * Why a connection's check failed, from STS's answer: what the customer does next. AWS's own refusal
 * is named, as the customer's AWS admin can act on it; the gateway's own network trouble is not theirs.
 */
export function verifyWords(error: string | null, awsAccountId: string): string {
  const text = error ?? '';
  if (/AccessDenied|not authorized to perform/i.test(text)) {
    return `AWS refused to let us use the role. Check that the stack from the template is deployed in AWS account ${awsAccountId} and that its trust policy matches the one below, then verify again.`;
  }
  if (/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|getaddrinfo|socket hang up|timed? ?out|network/i.test(text)) {
    return 'We could not reach AWS to check the role. This is on our side: verify again in a few minutes.';
  }
  if (/NoSuchEntity|does not exist|not found/i.test(text)) {
    return `The role does not exist yet in AWS account ${awsAccountId}. Deploy the template, then verify again.`;
  }
  return 'The role could not be used. Check that the stack from the template is deployed and up to date, then verify again.';
}
