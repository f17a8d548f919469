import { timingSafeEqual } from 'node:crypto';
import { hookgateSignature, standardWebhooksSignature } from '../../../lambdas/domain/signing.js';

export const SCHEMES = ['hookgate', 'standard_webhooks'] as const;
export type Scheme = (typeof SCHEMES)[number];

/** Why a signature does not verify; null when it does. docs/cli.md explains each. */
type Reason =
  | 'malformed_header'
  | 'unknown_key'
  | 'wrong_scheme'
  | 'malformed_secret'
  | 'wrong_secret'
  | 'body_changed'
  | 'signature_mismatch'
  | 'timestamp_too_old'
  | 'timestamp_in_future';

export interface Diagnosis {
  valid: boolean;
  /** `ed25519` when checked against a JWKS (`--jwks-url`). */
  scheme: Scheme | 'ed25519';
  reason: Reason | null;
  /** What the check found, one sentence each: facts, and guesses marked as guesses. */
  findings: string[];
  /**
   * Only for `signature_mismatch`, where the HMAC cannot tell a wrong secret from a changed body: what
   * the inputs suggest, when they suggest anything (null otherwise). A guess, never a finding.
   */
  likely_cause: 'secret' | 'body' | null;
  /** The signed timestamp (unix seconds), when the header has a well-formed one. */
  timestamp: number | null;
  /** How many signatures of the scheme's form the header carries. */
  signatures: number;
  tolerance_seconds: number;
}

export interface VerifyInput {
  scheme: Scheme;
  secret: string;
  /** Header names in lower case; a value given without a name is under `webhook-signature`. */
  headers: Readonly<Record<string, string>>;
  body: Buffer;
  now: Date;
  toleranceSeconds: number;
}

const SIGNATURE_HEADER = 'webhook-signature';
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
const UNIX_SECONDS = /^\d{1,12}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** What Hookgate generates: `whsec_` and the base64 of 32 random bytes. */
const GENERATED_SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

/**
 * `--header` values as headers: `Name: value` (any case), or a bare value, which is taken as the
 * signature header (`t=…,v1=…` and `v1,…` hold no colon, so the two never mix up).
 */
export function parseHeaderArguments(values: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const named = /^([A-Za-z0-9-]+):\s*(.*)$/s.exec(value.trim());
    if (named?.[1] !== undefined && named[2] !== undefined) headers[named[1].toLowerCase()] = named[2].trim();
    else headers[SIGNATURE_HEADER] = value.trim();
  }
  return headers;
}

/** What each scheme signs with one secret and one set of signed header values. */
interface Parsed {
  timestamp: number;
  /** The signatures' bytes (32 each). */
  signatures: Buffer[];
  /** Whether `body` signed with `secret` matches any of them. */
  matches(body: Buffer, secret: string): boolean;
}

type ParseResult = { parsed: Parsed } | { problem: string; otherScheme: boolean };

function anyEqual(signatures: readonly Buffer[], expected: Buffer): boolean {
  let found = false;
  // Every candidate is compared, as a consumer would, whatever an earlier one answered.
  for (const signature of signatures) if (signature.length === expected.length && timingSafeEqual(signature, expected)) found = true;
  return found;
}

const looksStandard = (value: string) => /^v1,\S+( v1,\S+)*$/.test(value);
const looksHookgate = (value: string) => /(^|,)\s*t=/.test(value) && /(^|,)\s*v1=/.test(value);

function parseHookgate(headers: Readonly<Record<string, string>>): ParseResult {
  const value = headers[SIGNATURE_HEADER];
  if (!value) return { problem: "There is no signature: pass --header 'Webhook-Signature: t=…,v1=…'.", otherScheme: false };
  if (looksStandard(value)) {
    return { problem: 'The header is a Standard Webhooks signature (v1,<base64>), not a Hookgate one (t=…,v1=<hex>).', otherScheme: true };
  }
  let timestamp: string | undefined;
  const hex: string[] = [];
  const odd: string[] = [];
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part.trim() : part.slice(0, eq).trim();
    const given = eq < 0 ? '' : part.slice(eq + 1).trim();
    if (name === 't') timestamp ??= given;
    else if (name === 'v1' && HEX_SHA256.test(given)) hex.push(given);
    else if (name === 'v1') odd.push(`v1= holds ${given.length} characters where a hex HMAC-SHA256 has 64`);
  }
  if (timestamp === undefined) return { problem: 'The header has no t=<unix seconds>.', otherScheme: false };
  if (!UNIX_SECONDS.test(timestamp)) return { problem: `t=${timestamp} is not a time in unix seconds.`, otherScheme: false };
  if (hex.length === 0) {
    return { problem: `The header has no v1=<64 hex characters> signature${odd.length ? ` (${odd.join('; ')})` : ''}.`, otherScheme: false };
  }
  const t = Number(timestamp);
  return {
    parsed: {
      timestamp: t,
      signatures: hex.map((h) => Buffer.from(h, 'hex')),
      matches(body, secret) {
        const expected = hookgateSignature(body, t, [secret]).split(',v1=')[1] ?? '';
        return anyEqual(this.signatures, Buffer.from(expected, 'hex'));
      },
    },
  };
}

function parseStandard(headers: Readonly<Record<string, string>>): ParseResult {
  const value = headers[SIGNATURE_HEADER];
  if (!value) return { problem: "There is no signature: pass --header 'webhook-signature: v1,…'.", otherScheme: false };
  if (!looksStandard(value) && looksHookgate(value)) {
    return { problem: 'The header is a Hookgate signature (t=…,v1=<hex>), not a Standard Webhooks one (v1,<base64>).', otherScheme: true };
  }
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  if (!id || !timestamp) {
    return {
      problem: `Standard Webhooks signs "<webhook-id>.<webhook-timestamp>.<body>": pass the ${[!id && "'webhook-id: …'", !timestamp && "'webhook-timestamp: …'"].filter(Boolean).join(' and ')} header${!id && !timestamp ? 's' : ''} with --header too.`,
      otherScheme: false,
    };
  }
  if (!UNIX_SECONDS.test(timestamp)) return { problem: `webhook-timestamp ${timestamp} is not a time in unix seconds.`, otherScheme: false };
  const signatures = value
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .map((part) => part.slice(3))
    .filter((b64) => BASE64.test(b64))
    .map((b64) => Buffer.from(b64, 'base64'))
    .filter((bytes) => bytes.length === 32);
  if (signatures.length === 0) return { problem: 'The header has no v1,<base64 of 32 bytes> signature.', otherScheme: false };
  const t = Number(timestamp);
  return {
    parsed: {
      timestamp: t,
      signatures,
      matches(body, secret) {
        return anyEqual(this.signatures, Buffer.from(standardWebhooksSignature(id, t, body, [secret]).slice('v1,'.length), 'base64'));
      },
    },
  };
}

const parse = (scheme: Scheme, headers: Readonly<Record<string, string>>) => (scheme === 'hookgate' ? parseHookgate(headers) : parseStandard(headers));

/** A Standard Webhooks key is the base64 after `whsec_`, 24 to 64 bytes; anything else cannot be the sender's. */
function standardSecretProblem(secret: string): string | undefined {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  const bytes = BASE64.test(encoded) ? Buffer.from(encoded, 'base64').length : 0;
  if (bytes >= 24 && bytes <= 64) return undefined;
  return 'The secret is not a Standard Webhooks secret (whsec_ followed by base64 of 24 to 64 bytes), so it cannot be the one that signed.';
}

/** Changes a body commonly goes through between the wire and a file, and what to call each. */
function bodyVariants(body: Buffer): Array<[Buffer, string]> {
  const text = body.toString('utf8');
  const variants: Array<[string, string]> = [
    [text.replace(/[\r\n]+$/, ''), 'without the line break at its end (editors, echo and heredocs add one)'],
    [text.replace(/^\uFEFF/, ''), 'without the byte order mark at its start'],
    [text.replace(/\r\n/g, '\n'), 'with its CRLF line breaks made LF'],
    [text.replace(/\r?\n/g, '\r\n'), 'with its LF line breaks made CRLF'],
  ];
  try {
    variants.push([JSON.stringify(JSON.parse(text)), 'written as compact JSON (the file holds the same JSON re-indented or re-serialized)']);
  } catch {
    // Not JSON: there is no other way to write it.
  }
  return variants.filter(([variant]) => variant !== text).map(([variant, what]) => [Buffer.from(variant, 'utf8'), what]);
}

function secretVariants(scheme: Scheme, secret: string): Array<[string, string]> {
  const variants: Array<[string, string]> = [[secret.trim(), 'without the spaces or line break around it (copied along with it)']];
  // The Hookgate scheme keys with the whole string, prefix and all.
  if (scheme === 'hookgate' && secret.startsWith('whsec_')) variants.push([secret.slice('whsec_'.length), 'without its whsec_ prefix']);
  if (scheme === 'hookgate' && !secret.startsWith('whsec_')) variants.push([`whsec_${secret}`, 'with a whsec_ prefix (the Hookgate scheme keys with the whole secret, whsec_ included)']);
  return variants.filter(([variant]) => variant !== secret);
}

function describeTimestamp(timestamp: number, now: Date, tolerance: number): { finding: string; reason: Reason | null } {
  const age = Math.floor(now.getTime() / 1000) - timestamp;
  const at = new Date(timestamp * 1000).toISOString();
  if (age > tolerance) {
    return {
      reason: 'timestamp_too_old',
      finding:
        `It was signed at ${at}, ${age} s ago, beyond the ${tolerance} s tolerance: a consumer refuses it as a possible replay. ` +
        'Hookgate signs each try as it sends it, so a delivery checked when it arrives is never this old: this one was kept and sent again, or is checked late, or a clock is off.',
    };
  }
  if (-age > tolerance) {
    return {
      reason: 'timestamp_in_future',
      finding: `It was signed at ${at}, ${-age} s in the future, beyond the ${tolerance} s tolerance: the sender's clock or this machine's is wrong.`,
    };
  }
  return { reason: null, finding: `It was signed at ${at}, ${age >= 0 ? `${age} s ago` : `${-age} s ahead`}, within the ${tolerance} s tolerance.` };
}

/** A diagnosis of one scheme's check: valid exactly when there is no reason, nothing found until `rest` says. */
export const diagnosisOf =
  (scheme: Diagnosis['scheme'], toleranceSeconds: number) =>
  (reason: Reason | null, findings: string[], rest: Partial<Diagnosis> = {}): Diagnosis => ({
    valid: reason === null,
    scheme,
    reason,
    findings,
    likely_cause: null,
    timestamp: null,
    signatures: 0,
    tolerance_seconds: toleranceSeconds,
    ...rest,
  });

/**
 * Checks a delivery's signature as a consumer would, and says why it fails. What an HMAC can tell is
 * only "these exact bytes, signed with this key, give this signature" or not: a mismatch never says
 * whether the secret or the body (or a signed header value) differs. So this tries the usual accidents
 * (a line ending added to the body, JSON re-indented, a secret copied with a space or without its
 * prefix, the other scheme), and a variant that verifies is a fact; when none does, it says both are
 * possible and, separately, which one the inputs make more likely.
 */
export function diagnose(input: VerifyInput, crossCheck = true): Diagnosis {
  const { scheme, secret, headers, body, now, toleranceSeconds } = input;
  const result = diagnosisOf(scheme, toleranceSeconds);

  const parsed = parse(scheme, headers);
  if ('problem' in parsed) {
    if (!parsed.otherScheme) return result('malformed_header', [parsed.problem]);
    const other: Scheme = scheme === 'hookgate' ? 'standard_webhooks' : 'hookgate';
    const verifiesAsOther = crossCheck && diagnose({ ...input, scheme: other }, false).valid;
    return result('wrong_scheme', [
      parsed.problem,
      verifiesAsOther ? `It verifies with --scheme ${other}.` : `Check it with --scheme ${other}${other === 'standard_webhooks' ? ' and the webhook-id and webhook-timestamp headers' : ''}.`,
    ]);
  }

  const { timestamp, signatures } = parsed.parsed;
  const rest = { timestamp, signatures: signatures.length };
  const time = describeTimestamp(timestamp, now, toleranceSeconds);
  if (scheme === 'standard_webhooks') {
    const problem = standardSecretProblem(secret);
    if (problem) return result('malformed_secret', [problem, time.finding], rest);
  }
  const matches = (b: Buffer, s: string) => parsed.parsed.matches(b, s);

  if (matches(body, secret)) {
    const found = `The signature matches this secret and body${signatures.length > 1 ? ` (one of the ${signatures.length} in the header)` : ''}.`;
    return result(time.reason, [found, time.finding], rest);
  }

  const count = signatures.length === 1 ? 'The signature does not match' : `None of the ${signatures.length} signatures matches`;
  for (const [variant, what] of bodyVariants(body)) {
    if (matches(variant, secret)) {
      return result('body_changed', [`${count} the body file, but it matches the file ${what}: the file is not byte for byte what was signed.`, time.finding], rest);
    }
  }
  for (const [variant, what] of secretVariants(scheme, secret)) {
    if (matches(body, variant)) return result('wrong_secret', [`${count} this secret, but it matches the secret ${what}: that is the secret that signed.`, time.finding], rest);
  }

  const findings = [
    `${count} this secret and body. An HMAC cannot tell which input differs: the secret may not be the one that signed ` +
      '(another destination\'s, or one rotated out), or the body file may not be byte for byte what was sent ' +
      '(re-serialized JSON, a changed encoding or whitespace), or a signed header value (the timestamp, webhook-id) was edited.',
    time.finding,
  ];
  let likely: Diagnosis['likely_cause'] = null;
  const text = body.toString('utf8');
  if (body.length === 0) {
    findings.push('Guess: the body file is empty, which a delivery with a payload never is: more likely the body.');
    likely = 'body';
  } else if (/^[[{]\s*\n\s+\S/.test(text)) {
    findings.push('Guess: the body file is indented JSON, which Hookgate sends only if the sender wrote it so; a copy from a formatted view (a browser, jq) differs from the bytes sent: more likely the body.');
    likely = 'body';
  } else if (scheme === 'hookgate' && !GENERATED_SECRET.test(secret)) {
    findings.push('Guess: the secret is not of the form Hookgate generates (whsec_ and 44 base64 characters); unless the destination was given a secret of its own, more likely the secret.');
    likely = 'secret';
  }
  if (signatures.length > 1) {
    findings.push(`The header carries ${signatures.length} signatures: the destination's secret had been rotated for less than 24 hours, and this secret matches none of the secrets then valid.`);
  }
  return result('signature_mismatch', findings, { ...rest, likely_cause: likely });
}

/** The headline of a diagnosis, for a person. */
export function verdict(diagnosis: Diagnosis): string {
  const scheme = { hookgate: 'Hookgate', standard_webhooks: 'Standard Webhooks', ed25519: 'Ed25519' }[diagnosis.scheme];
  const why: Record<Reason, string> = {
    malformed_header: 'the signature headers are malformed',
    unknown_key: 'the JWKS lacks the key that signed',
    wrong_scheme: 'the header is of the other scheme',
    malformed_secret: 'the secret cannot be the one that signed',
    wrong_secret: 'the secret is not the one that signed',
    body_changed: 'the body file differs from what was signed',
    signature_mismatch: 'wrong secret or changed body (an HMAC cannot tell which)',
    timestamp_too_old: 'the signature matches, but its timestamp is too old',
    timestamp_in_future: 'the signature matches, but its timestamp is in the future',
  };
  return diagnosis.reason === null ? `OK    the ${scheme} signature verifies` : `FAIL  the ${scheme} signature does not verify: ${why[diagnosis.reason]}`;
}
