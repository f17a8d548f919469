import { verify } from 'node:crypto';
// The client's reader of a JWKS, so the CLI and the library skip the same malformed keys.
import { ed25519Keys } from '../../typescript/src/verify.js';
import { diagnosisOf, type Diagnosis } from './diagnose.js';

/** A JWKS as `GET /.well-known/jwks/{account_id}.json` serves it; keys of other types are ignored. */
export interface Jwks {
  keys: ReadonlyArray<Readonly<Record<string, unknown>>>;
}

export interface Ed25519Input {
  /** Header names in lower case; a value given without a name is under `webhook-signature`. */
  headers: Readonly<Record<string, string>>;
  body: Buffer;
  jwks: Jwks;
  now: Date;
  toleranceSeconds: number;
}

const UNIX_SECONDS = /^\d{1,12}$/;
const ED25519_SIGNATURE = /^[A-Za-z0-9+/]{86}==$/;


function timeFinding(timestamp: number, now: Date, tolerance: number): { finding: string; reason: Diagnosis['reason'] } {
  const age = Math.floor(now.getTime() / 1000) - timestamp;
  const at = new Date(timestamp * 1000).toISOString();
  if (age > tolerance) return { reason: 'timestamp_too_old', finding: `It was signed at ${at}, ${age} s ago, beyond the ${tolerance} s tolerance: a consumer refuses it as a possible replay.` };
  if (-age > tolerance) return { reason: 'timestamp_in_future', finding: `It was signed at ${at}, ${-age} s in the future, beyond the ${tolerance} s tolerance: the sender's clock or this machine's is wrong.` };
  return { reason: null, finding: `It was signed at ${at}, ${age >= 0 ? `${age} s ago` : `${-age} s ahead`}, within the ${tolerance} s tolerance.` };
}

/**
 * Checks an `ed25519` delivery against a JWKS, as a consumer would: each `v1a` signature with the key
 * `webhook-key-id` names in its place. Unlike an HMAC, a public key tells a wrong key from a changed
 * body: a key the JWKS lacks is named as such, and a listed key that does not verify means the signed
 * bytes (body, webhook-id or webhook-timestamp) differ.
 */
export function diagnoseEd25519(input: Ed25519Input): Diagnosis {
  const { headers, body, jwks, now, toleranceSeconds } = input;
  const result = diagnosisOf('ed25519', toleranceSeconds);
  const value = headers['webhook-signature'];
  if (!value) return result('malformed_header', ["There is no signature: pass --header 'webhook-signature: v1a,…'."]);
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  if (!id || !timestamp) {
    const missing = [!id && "'webhook-id: …'", !timestamp && "'webhook-timestamp: …'"].filter(Boolean).join(' and ');
    return result('malformed_header', [`An ed25519 signature signs "<webhook-id>.<webhook-timestamp>.<body>": pass the ${missing} header${!id && !timestamp ? 's' : ''} with --header too.`]);
  }
  if (!UNIX_SECONDS.test(timestamp)) return result('malformed_header', [`webhook-timestamp ${timestamp} is not a time in unix seconds.`]);
  const kids = (headers['webhook-key-id'] ?? '').split(' ').filter(Boolean);
  const signatures = value
    .split(' ')
    .map((part, i) => ({ kid: kids[i], given: part.startsWith('v1a,') ? part.slice(4) : '' }))
    .filter(({ given }) => ED25519_SIGNATURE.test(given))
    .map(({ kid, given }) => ({ kid, bytes: Buffer.from(given, 'base64') }));
  if (signatures.length === 0) return result('malformed_header', ['The header has no v1a,<base64 of 64 bytes> signature.']);
  const t = Number(timestamp);
  const rest = { timestamp: t, signatures: signatures.length };
  const time = timeFinding(t, now, toleranceSeconds);
  const keys = ed25519Keys(jwks);
  const listed = signatures.filter(({ kid }) => kid === undefined || keys.has(kid));
  if (listed.length === 0) {
    return result('unknown_key', [
      `The JWKS lists none of the keys that signed (${kids.join(', ') || 'no webhook-key-id'}): it is another account's or another customer's JWKS (each customer's endpoints are signed with its own keys), or the delivery was signed with a key that has since retired.`,
      time.finding,
    ], rest);
  }
  const message = (bytes: Buffer) => Buffer.concat([Buffer.from(`${id}.${t}.`, 'utf8'), bytes]);
  const verifies = (bytes: Buffer) =>
    listed.some(({ kid, bytes: signature }) => (kid === undefined ? [...keys.values()] : [keys.get(kid)!]).some((key) => verify(null, message(bytes), key, signature)));
  if (verifies(body)) return result(time.reason, [`The signature matches a key of the JWKS and this body${signatures.length > 1 ? ` (one of the ${signatures.length} in the header)` : ''}.`, time.finding], rest);
  const trimmed = Buffer.from(body.toString('utf8').replace(/[\r\n]+$/, ''), 'utf8');
  if (!trimmed.equals(body) && verifies(trimmed)) {
    return result('body_changed', ['The signature does not match the body file, but it matches the file without the line break at its end (editors, echo and heredocs add one).', time.finding], rest);
  }
  return result('body_changed', [
    'A key of the JWKS made this signature, and it does not match: the body file is not byte for byte what was signed (re-serialized JSON, a changed encoding or whitespace), or webhook-id or webhook-timestamp was edited.',
    time.finding,
  ], rest);
}
