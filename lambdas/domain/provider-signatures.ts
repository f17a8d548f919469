import { createHmac, timingSafeEqual } from 'node:crypto';
import { payloadHash } from './payload-hash';
import type { Provider, SECRET_PROVIDERS } from './vocabulary';

/**
 * Inbound webhook signature verification, the way each provider's own SDK / docs sign.
 *
 * Pure: no AWS, no environment, no wall clock (the caller passes `now`). Every signature comparison
 * is constant-time on equal-length digests; a signature that is the wrong length or does not decode
 * is a plain mismatch. `verifySignature` and `deliveryIdFor` never throw, whatever they are given.
 *
 * Timestamps (stripe, slack, standard_webhooks) must be canonical unsigned decimal Unix seconds
 * (no sign, no leading zeros, at most 12 digits) and within TOLERANCE_SECONDS of `now`, both ways.
 */

export type VerificationConfig =
  | { provider: (typeof SECRET_PROVIDERS)[number]; secret: string }
  | { provider: 'hmac_sha256'; secret: string; header: string; encoding: 'hex' | 'base64'; prefix?: string };

/** `reason` is for logs and metrics only; never send it to the caller. Always one of VERIFY_FAILURE_REASONS. */
export type VerifyResult = { ok: true } | { ok: false; reason: string };

/** Maximum |now − signed timestamp|, in seconds, for the schemes that sign a timestamp. */
export const TOLERANCE_SECONDS = 300;

/** The closed set of failure reasons (low-cardinality, safe as a metric dimension). */
export const VERIFY_FAILURE_REASONS = [
  'invalid_config', // unknown provider, empty secret, undecodable standard_webhooks secret, bad generic header/encoding
  'invalid_request', // body is not bytes, headers is not an object, `now` is not a valid Date
  'missing_header', // a required header is absent or blank
  'malformed_header', // a header is present but does not have the provider's shape (or is over 8 KiB)
  'invalid_timestamp', // the signed timestamp is not canonical decimal Unix seconds
  'timestamp_too_old', // now − timestamp > TOLERANCE_SECONDS
  'timestamp_too_new', // timestamp − now > TOLERANCE_SECONDS
  'no_supported_signature', // stripe / standard_webhooks header holds no v1 signature
  'signature_mismatch', // no presented signature matches
  'internal_error', // should be unreachable; verification fails closed
] as const;
type VerifyFailureReason = (typeof VERIFY_FAILURE_REASONS)[number];

/** Signature headers longer than this are refused as malformed before any parsing. */
const MAX_SIGNATURE_HEADER_LENGTH = 8192;
const SHA256_BYTES = 32;
const TIMESTAMP = /^(?:0|[1-9][0-9]{0,11})$/;
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/;
const BASE64_SECRET = /^[A-Za-z0-9+/]+={0,2}$/;
const DELIVERY_ID = /^[\x21-\x7e]{1,256}$/;

type Headers = Record<string, string>;
type Failure = { ok: false; reason: VerifyFailureReason };

const OK: VerifyResult = { ok: true };
const fail = (reason: VerifyFailureReason): Failure => ({ ok: false, reason });

export function verifySignature(config: VerificationConfig, request: { headers: Headers; body: Buffer }, now: Date): VerifyResult {
  try {
    return verify(config, request, now);
  } catch {
    return fail('internal_error');
  }
}

/** Headers that carry a delivery id by convention, in order of preference: taken only where nothing is signed. */
const CONVENTIONAL_ID_HEADERS = ['idempotency-key', 'webhook-id', 'x-github-delivery', 'x-shopify-webhook-id'];

/** The delivery id each provider's signature covers: a signed header, a field of the signed JSON body, or none. */
const SIGNED_DELIVERY_ID: Record<Provider, { header: string } | { bodyField: string } | null> = {
  standard_webhooks: { header: 'webhook-id' }, // signed as `<id>.<timestamp>.<body>`
  stripe: { bodyField: 'id' }, // the event id `evt_…`; Stripe signs `<t>.<body>`
  slack: { bodyField: 'event_id' }, // Events API callbacks; Slack signs `v0:<ts>:<body>`
  github: null, // X-GitHub-Delivery is not signed
  shopify: null, // X-Shopify-Webhook-Id is not signed
  hmac_sha256: null, // only the body is signed
};

/**
 * The idempotency key of an ingested webhook (its `external_event_id`): a repeat within the source is
 * answered as the first and stored once. With a provider check (`provider` not null) only what the
 * signature covers counts: the signed id, else the signed body itself (its `payloadHash`). So a
 * captured webhook replayed under another delivery-id header is a duplicate, and a forged header never
 * makes a genuine webhook be dropped as one. Without a check nothing is signed: the conventional
 * headers (or, with a `Stripe-Signature` header, the body's `id`) are taken as sent; null when none is
 * there. A header's id is trimmed and not length-checked here (ingest refuses one over 256); a body's
 * id must be 1–256 visible ASCII characters, or the body's hash stands in.
 */
export function deliveryIdFor(provider: Provider | null, headers: Headers, body: Buffer): string | null {
  try {
    if (provider === null) {
      for (const name of CONVENTIONAL_ID_HEADERS) {
        const id = readHeader(headers, name)?.trim();
        if (id) return id;
      }
      return readHeader(headers, 'stripe-signature') === undefined ? null : bodyFieldId(body, 'id');
    }
    const signed = SIGNED_DELIVERY_ID[provider];
    const id = !signed ? null : 'header' in signed ? readHeader(headers, signed.header)?.trim() || null : bodyFieldId(body, signed.bodyField);
    return id ?? (body instanceof Uint8Array ? payloadHash(body) : null);
  } catch {
    return null;
  }
}

function verify(config: VerificationConfig, request: { headers: Headers; body: Buffer }, now: Date): VerifyResult {
  if (config === null || typeof config !== 'object') return fail('invalid_config');
  if (typeof config.secret !== 'string' || config.secret === '') return fail('invalid_config');
  if (request === null || typeof request !== 'object') return fail('invalid_request');
  const { headers, body } = request;
  if (headers === null || typeof headers !== 'object') return fail('invalid_request');
  if (!(body instanceof Uint8Array)) return fail('invalid_request');

  switch (config.provider) {
    case 'stripe':
      return verifyStripe(config.secret, headers, body, now);
    case 'github':
      return verifyGithub(config.secret, headers, body);
    case 'shopify':
      return verifyShopify(config.secret, headers, body);
    case 'slack':
      return verifySlack(config.secret, headers, body, now);
    case 'standard_webhooks':
      return verifyStandardWebhooks(config.secret, headers, body, now);
    case 'hmac_sha256':
      return verifyGeneric(config, headers, body);
    default:
      return fail('invalid_config');
  }
}

/** `stripe-signature: t=<ts>,v1=<hex>[,v1=<hex>...][,v0=...]`, HMAC of `<t>.<body>` keyed with the whole `whsec_…` string. */
function verifyStripe(secret: string, headers: Headers, body: Uint8Array, now: Date): VerifyResult {
  const value = readSignatureHeader(headers, 'stripe-signature');
  if (typeof value !== 'string') return value;

  const timestamps: string[] = [];
  const v1: string[] = [];
  for (const item of value.split(',')) {
    const eq = item.indexOf('=');
    if (eq < 0) continue;
    const key = item.slice(0, eq).trim();
    const val = item.slice(eq + 1).trim();
    if (key === 't') timestamps.push(val);
    else if (key === 'v1') v1.push(val);
    // v0 (test-mode legacy) and unknown schemes are ignored, as Stripe's SDK does.
  }
  const [t] = timestamps;
  if (t === undefined || timestamps.length > 1) return fail('malformed_header');
  if (v1.length === 0) return fail('no_supported_signature');
  const window = checkWindow(t, now);
  if (window) return window;

  const expected = hmacSha256(utf8(secret), `${t}.`, body);
  return anyMatches(v1.map(decodeHexDigest), expected) ? OK : fail('signature_mismatch');
}

/** `x-hub-signature-256: sha256=<hex>` of the body. */
function verifyGithub(secret: string, headers: Headers, body: Uint8Array): VerifyResult {
  const value = readSignatureHeader(headers, 'x-hub-signature-256');
  if (typeof value !== 'string') return value;
  if (!value.startsWith('sha256=')) return fail('malformed_header');
  const expected = hmacSha256(utf8(secret), body);
  return matches(decodeHexDigest(value.slice('sha256='.length)), expected) ? OK : fail('signature_mismatch');
}

/** `x-shopify-hmac-sha256: <base64>` of the body. */
function verifyShopify(secret: string, headers: Headers, body: Uint8Array): VerifyResult {
  const value = readSignatureHeader(headers, 'x-shopify-hmac-sha256');
  if (typeof value !== 'string') return value;
  const expected = hmacSha256(utf8(secret), body);
  return matches(decodeBase64Digest(value), expected) ? OK : fail('signature_mismatch');
}

/** `x-slack-signature: v0=<hex>` of `v0:<x-slack-request-timestamp>:<body>`. */
function verifySlack(secret: string, headers: Headers, body: Uint8Array, now: Date): VerifyResult {
  const value = readSignatureHeader(headers, 'x-slack-signature');
  if (typeof value !== 'string') return value;
  const timestamp = readSignatureHeader(headers, 'x-slack-request-timestamp');
  if (typeof timestamp !== 'string') return timestamp;
  if (!value.startsWith('v0=')) return fail('malformed_header');
  const window = checkWindow(timestamp, now);
  if (window) return window;

  const expected = hmacSha256(utf8(secret), `v0:${timestamp}:`, body);
  return matches(decodeHexDigest(value.slice('v0='.length)), expected) ? OK : fail('signature_mismatch');
}

/**
 * Standard Webhooks: `webhook-signature` is a space-separated list of `v1,<base64>` (other versions
 * ignored) over `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the base64-decoded secret
 * (after `whsec_`, when present).
 */
function verifyStandardWebhooks(secret: string, headers: Headers, body: Uint8Array, now: Date): VerifyResult {
  const key = standardWebhooksKey(secret);
  if (key === null) return fail('invalid_config');
  const id = readSignatureHeader(headers, 'webhook-id');
  if (typeof id !== 'string') return id;
  const timestamp = readSignatureHeader(headers, 'webhook-timestamp');
  if (typeof timestamp !== 'string') return timestamp;
  const value = readSignatureHeader(headers, 'webhook-signature');
  if (typeof value !== 'string') return value;

  const v1: string[] = [];
  for (const entry of value.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0) continue;
    if (entry.slice(0, comma) === 'v1') v1.push(entry.slice(comma + 1));
  }
  if (v1.length === 0) return fail('no_supported_signature');
  const window = checkWindow(timestamp, now);
  if (window) return window;

  const expected = hmacSha256(key, `${id}.${timestamp}.`, body);
  return anyMatches(v1.map(decodeBase64Digest), expected) ? OK : fail('signature_mismatch');
}

/** Generic: a configured header carrying hex or base64 HMAC-SHA256 of the body, optionally behind a required prefix. */
function verifyGeneric(
  config: { secret: string; header: string; encoding: 'hex' | 'base64'; prefix?: string },
  headers: Headers,
  body: Uint8Array,
): VerifyResult {
  if (typeof config.header !== 'string' || config.header.trim() === '') return fail('invalid_config');
  if (config.encoding !== 'hex' && config.encoding !== 'base64') return fail('invalid_config');
  if (config.prefix !== undefined && typeof config.prefix !== 'string') return fail('invalid_config');

  const value = readSignatureHeader(headers, config.header.trim().toLowerCase());
  if (typeof value !== 'string') return value;
  const prefix = config.prefix ?? '';
  if (!value.startsWith(prefix)) return fail('malformed_header');
  const presented = value.slice(prefix.length);

  const expected = hmacSha256(utf8(config.secret), body);
  const decoded = config.encoding === 'hex' ? decodeHexDigest(presented) : decodeBase64Digest(presented);
  return matches(decoded, expected) ? OK : fail('signature_mismatch');
}

// ── helpers ────────────────────────────────────────────────────────────────────────────────────

function readHeader(headers: Headers, name: string): string | undefined {
  if (headers === null || typeof headers !== 'object' || !Object.hasOwn(headers, name)) return undefined;
  const value: unknown = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The trimmed header value, or the failure to report when it is absent, blank or oversized. */
function readSignatureHeader(headers: Headers, name: string): string | Failure {
  const raw = readHeader(headers, name);
  if (raw === undefined) return fail('missing_header');
  if (raw.length > MAX_SIGNATURE_HEADER_LENGTH) return fail('malformed_header');
  const value = raw.trim();
  return value === '' ? fail('missing_header') : value;
}

/** undefined when `timestamp` is canonical and within tolerance of `now`; otherwise the failure. */
function checkWindow(timestamp: string, now: Date): Failure | undefined {
  if (!TIMESTAMP.test(timestamp)) return fail('invalid_timestamp');
  if (!(now instanceof Date) || !Number.isFinite(now.getTime())) return fail('invalid_request');
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const seconds = Number(timestamp);
  if (nowSeconds - seconds > TOLERANCE_SECONDS) return fail('timestamp_too_old');
  if (seconds - nowSeconds > TOLERANCE_SECONDS) return fail('timestamp_too_new');
  return undefined;
}

function utf8(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

function hmacSha256(key: Uint8Array, ...parts: (string | Uint8Array)[]): Buffer {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/** 64 hex digits (either case) → 32 bytes; anything else → null (a mismatch). */
function decodeHexDigest(text: string): Buffer | null {
  return HEX_SHA256.test(text) ? Buffer.from(text, 'hex') : null;
}

/** Canonical padded standard base64 of 32 bytes → the bytes; anything else → null (a mismatch). */
function decodeBase64Digest(text: string): Buffer | null {
  if (!BASE64_SHA256.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : null;
}

function matches(presented: Buffer | null, expected: Buffer): boolean {
  return presented !== null && presented.length === SHA256_BYTES && timingSafeEqual(presented, expected);
}

/** Compares every candidate (no early exit), so the work does not depend on which one matches. */
function anyMatches(presented: (Buffer | null)[], expected: Buffer): boolean {
  let found = false;
  for (const candidate of presented) found = matches(candidate, expected) || found;
  return found;
}

function standardWebhooksKey(secret: string): Buffer | null {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (!BASE64_SECRET.test(encoded)) return null;
  const key = Buffer.from(encoded, 'base64');
  return key.length > 0 ? key : null;
}

function usableId(value: string | undefined): string | null {
  if (value === undefined) return null;
  const id = value.trim();
  return DELIVERY_ID.test(id) ? id : null;
}

/** A top-level string field of a JSON object body, when it is a usable id. */
function bodyFieldId(body: Buffer, field: string): string | null {
  if (!(body instanceof Uint8Array)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || !Object.hasOwn(parsed, field)) return null;
  const id: unknown = (parsed as Record<string, unknown>)[field];
  return typeof id === 'string' ? usableId(id) : null;
}
