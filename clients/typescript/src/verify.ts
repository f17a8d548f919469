import { createHmac, timingSafeEqual } from 'node:crypto';

export interface VerifyWebhookOptions {
  /** How far the signature's timestamp may be from now, either way. Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The time to check against. Default: now. */
  now?: Date;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
const UNIX_SECONDS = /^\d{1,12}$/;

/**
 * Checks a delivery's `Webhook-Signature` header, Hookgate's default scheme:
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">[,v1=…]`, keyed with the UTF-8 bytes of the
 * destination's signing secret. Valid when any `v1` matches (two are sent while a rotated-out secret
 * is still valid) and the timestamp is within the tolerance. Pass the raw body, exactly as received:
 * a re-serialized JSON body does not verify. Constant-time; never throws on malformed input.
 */
export function verifyWebhook(
  body: string | Uint8Array,
  header: string | readonly string[] | null | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): boolean {
  const value = typeof header === 'string' ? header : Array.isArray(header) ? header.join(',') : '';
  if (!value || !secret) return false;
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const given = part.slice(eq + 1).trim();
    if (name === 't') timestamp ??= given;
    else if (name === 'v1' && HEX_SHA256.test(given)) signatures.push(given);
  }
  if (timestamp === undefined || !UNIX_SECONDS.test(timestamp) || signatures.length === 0) return false;

  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) return false;

  const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestamp}.`)
    .update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
    .digest();
  let valid = false;
  for (const signature of signatures) {
    // Every candidate is compared, in constant time, so timing tells nothing about which matched.
    if (timingSafeEqual(Buffer.from(signature, 'hex'), expected)) valid = true;
  }
  return valid;
}
