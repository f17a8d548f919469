import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Destination } from './generated.js';

/**
 * A delivery's request headers, names in any case: a Fetch `Headers` (`request.headers` in a Fetch
 * handler), or a plain object such as Node's `req.headers` (a value may be an array).
 */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** The destination's `signature_scheme`. Default `hookgate`. */
  scheme?: Destination['signature_scheme'];
  /** How far the signature's timestamp may be from now, either way. Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The time to check against. Default: now. */
  now?: Date;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
const UNIX_SECONDS = /^\d{1,12}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Every value of one header, whatever the case of its name and the shape of `headers`. */
function headerValues(headers: WebhookHeaders, name: string): string[] {
  if (typeof headers.get === 'function') {
    const value = (headers as { get(name: string): string | null }).get(name);
    return value === null ? [] : [value];
  }
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers as Readonly<Record<string, unknown>>)) {
    if (key.toLowerCase() !== name) continue;
    if (typeof value === 'string') values.push(value);
    else if (Array.isArray(value)) values.push(...value.filter((v): v is string => typeof v === 'string'));
  }
  return values;
}

function fresh(timestamp: string, options: VerifyWebhookOptions): boolean {
  if (!UNIX_SECONDS.test(timestamp)) return false;
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  return Math.abs(nowSeconds - Number(timestamp)) <= tolerance;
}

function anyMatches(candidates: Buffer[], expected: Buffer): boolean {
  let valid = false;
  for (const candidate of candidates) {
    // Every candidate is compared, in constant time, so timing tells nothing about which matched.
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) valid = true;
  }
  return valid;
}

const bytes = (body: string | Uint8Array) => (typeof body === 'string' ? Buffer.from(body, 'utf8') : body);

function verifyHookgate(body: string | Uint8Array, headers: WebhookHeaders, secret: string, options: VerifyWebhookOptions): boolean {
  let timestamp: string | undefined;
  const signatures: Buffer[] = [];
  for (const part of headerValues(headers, 'webhook-signature').join(',').split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const given = part.slice(eq + 1).trim();
    if (name === 't') timestamp ??= given;
    else if (name === 'v1' && HEX_SHA256.test(given)) signatures.push(Buffer.from(given, 'hex'));
  }
  if (timestamp === undefined || signatures.length === 0 || !fresh(timestamp, options)) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`).update(bytes(body)).digest();
  return anyMatches(signatures, expected);
}

function verifyStandardWebhooks(body: string | Uint8Array, headers: WebhookHeaders, secret: string, options: VerifyWebhookOptions): boolean {
  const [id] = headerValues(headers, 'webhook-id');
  const [timestamp] = headerValues(headers, 'webhook-timestamp');
  if (!id || !timestamp || !fresh(timestamp, options)) return false;
  const key = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (!BASE64.test(key)) return false;
  const signatures: Buffer[] = [];
  // Signatures are separated by spaces. A repeated header, joined (`, `), leaves a comma after one: split's limit drops it.
  for (const part of headerValues(headers, 'webhook-signature').join(' ').split(' ')) {
    const [version, given] = part.split(',', 2);
    if (version === 'v1' && given && BASE64.test(given)) signatures.push(Buffer.from(given, 'base64'));
  }
  if (signatures.length === 0) return false;
  const expected = createHmac('sha256', Buffer.from(key, 'base64')).update(`${id}.${timestamp}.`).update(bytes(body)).digest();
  return anyMatches(signatures, expected);
}

/**
 * Whether a delivery is genuine: signed with `secret` over exactly `body`, within the tolerance.
 * `headers` are the delivery's request headers; `options.scheme` is the destination's
 * `signature_scheme`:
 *
 * - `hookgate` (the default): `Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">[,v1=…]`,
 *   keyed with the UTF-8 bytes of the secret; two `v1` while a rotated-out secret is still valid, and either verifies.
 * - `standard_webhooks`: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256 of
 *   "<id>.<t>.<body>">` (several separated by spaces), keyed with the base64-decoded part of the `whsec_` secret.
 *
 * Pass the raw body, exactly as received: a re-serialized JSON body does not verify. Constant-time;
 * answers false, never throws, on malformed headers. Throws a TypeError only for a programming error:
 * a string where the headers go, or an unknown scheme.
 */
export function verifyWebhook(body: string | Uint8Array, headers: WebhookHeaders, secret: string, options: VerifyWebhookOptions = {}): boolean {
  if (typeof headers === 'string' || Array.isArray(headers)) {
    throw new TypeError('verifyWebhook takes the request headers, not one header: verifyWebhook(body, request.headers, secret)');
  }
  const scheme = options.scheme ?? 'hookgate';
  if (scheme !== 'hookgate' && scheme !== 'standard_webhooks') {
    throw new TypeError(`unknown signature scheme ${JSON.stringify(scheme)}: hookgate or standard_webhooks`);
  }
  if (!secret || typeof headers !== 'object' || headers === null) return false;
  return scheme === 'hookgate' ? verifyHookgate(body, headers, secret, options) : verifyStandardWebhooks(body, headers, secret, options);
}
