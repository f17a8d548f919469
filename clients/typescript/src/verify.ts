import { createHmac, createPublicKey, timingSafeEqual, verify as verifySignature, type KeyObject } from 'node:crypto';
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
  if (scheme === 'ed25519') {
    throw new TypeError('ed25519 deliveries are verified with public keys, not a secret: await verifyWebhookWithJwks(body, request.headers, jwksUrl)');
  }
  if (scheme !== 'hookgate' && scheme !== 'standard_webhooks') {
    throw new TypeError(`unknown signature scheme ${JSON.stringify(scheme)}: hookgate, standard_webhooks or ed25519`);
  }
  if (!secret || typeof headers !== 'object' || headers === null) return false;
  return scheme === 'hookgate' ? verifyHookgate(body, headers, secret, options) : verifyStandardWebhooks(body, headers, secret, options);
}

export interface VerifyWithJwksOptions {
  /** How far the signature's timestamp may be from now, either way. Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The time to check against. Default: now. */
  now?: Date;
  /** How the JWKS is fetched. Default: the global `fetch`. */
  fetch?: (url: string) => Promise<{ ok: boolean; status: number; headers: { get(name: string): string | null }; json(): Promise<unknown> }>;
}

/** One JWKS URL's Ed25519 keys by kid, and until when they are fresh (the answer's `max-age`, else 5 minutes). */
interface CachedJwks {
  keys: Map<string, KeyObject>;
  freshUntil: number;
  /** When it was fetched because a delivery named a kid the cache lacked; 0 otherwise. */
  refetchedAt: number;
}

const JWKS_DEFAULT_MAX_AGE_MS = 300_000;
/**
 * Unknown kids fetch the JWKS again at most this often: a request with a made-up kid costs nothing to
 * send, and without this each one would make the receiver fetch (a rotation names its new kid once).
 */
const UNKNOWN_KID_REFETCH_MS = 5_000;
const ED25519_SIGNATURE = /^[A-Za-z0-9+/]{86}==$/;
const jwksCache = new Map<string, Promise<CachedJwks>>();

function ed25519Keys(document: unknown): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  const listed = (document as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(listed)) throw new Error('the JWKS has no keys array');
  for (const jwk of listed as Array<Record<string, unknown>>) {
    if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string' || typeof jwk.kid !== 'string') continue;
    keys.set(jwk.kid, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' }));
  }
  return keys;
}

async function loadJwks(jwksUrl: string, refetch: boolean, options: VerifyWithJwksOptions): Promise<CachedJwks> {
  const get = options.fetch ?? ((url: string) => fetch(url));
  const answer = await get(jwksUrl);
  if (!answer.ok) throw new Error(`GET ${jwksUrl} answered ${answer.status}`);
  const maxAge = /max-age=(\d+)/.exec(answer.headers.get('cache-control') ?? '')?.[1];
  const now = Date.now();
  return { keys: ed25519Keys(await answer.json()), freshUntil: now + (maxAge === undefined ? JWKS_DEFAULT_MAX_AGE_MS : Number(maxAge) * 1000), refetchedAt: refetch ? now : 0 };
}

/**
 * The URL's keys: cached while fresh; fetched again when stale or when `refresh` (a kid the cache
 * lacks), unless the cache is itself such a refetch of the last few seconds. Concurrent callers share one fetch.
 */
async function jwksKeys(jwksUrl: string, refresh: boolean, options: VerifyWithJwksOptions): Promise<CachedJwks> {
  const cached = jwksCache.get(jwksUrl);
  const known = cached && (await cached.catch(() => undefined));
  if (known && known.freshUntil > Date.now() && (!refresh || Date.now() - known.refetchedAt < UNKNOWN_KID_REFETCH_MS)) return known;
  const loading = loadJwks(jwksUrl, refresh, options);
  jwksCache.set(jwksUrl, loading);
  loading.catch(() => jwksCache.delete(jwksUrl));
  return loading;
}

/**
 * Whether an `ed25519` delivery is genuine: Standard Webhooks' asymmetric form, `webhook-signature:
 * v1a,<base64 Ed25519 signature of "<webhook-id>.<webhook-timestamp>.<body>">` (several separated by
 * spaces during a key rotation), each made with the key `webhook-key-id` names in the same place, a
 * public key of the account's JWKS at `jwksUrl` (`GET /v1/account` shows it as `jwks_url`).
 *
 * The JWKS is cached per URL for its `max-age` and fetched again at once when a delivery names a kid
 * it lacks (at most once in 5 seconds), so a rotation needs no redeploy. Answers false on malformed headers or a signature no
 * listed key makes; rejects only when the JWKS cannot be fetched.
 */
export async function verifyWebhookWithJwks(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  jwksUrl: string,
  options: VerifyWithJwksOptions = {},
): Promise<boolean> {
  if (typeof headers === 'string' || Array.isArray(headers)) {
    throw new TypeError('verifyWebhookWithJwks takes the request headers, not one header: verifyWebhookWithJwks(body, request.headers, jwksUrl)');
  }
  if (typeof headers !== 'object' || headers === null) return false;
  const [id] = headerValues(headers, 'webhook-id');
  const [timestamp] = headerValues(headers, 'webhook-timestamp');
  if (!id || !timestamp || !fresh(timestamp, options)) return false;
  const kids = headerValues(headers, 'webhook-key-id').join(' ').split(' ').filter(Boolean);
  const signatures: Array<{ kid: string | undefined; signature: Buffer }> = [];
  headerValues(headers, 'webhook-signature')
    .join(' ')
    .split(' ')
    .filter(Boolean)
    .forEach((part, i) => {
      const [version, given] = part.split(',', 2);
      if (version === 'v1a' && given && ED25519_SIGNATURE.test(given)) signatures.push({ kid: kids[i], signature: Buffer.from(given, 'base64') });
    });
  if (signatures.length === 0) return false;
  const message = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), bytes(body)]);
  let jwks = await jwksKeys(jwksUrl, false, options);
  if (signatures.some(({ kid }) => kid !== undefined && !jwks.keys.has(kid))) jwks = await jwksKeys(jwksUrl, true, options);
  return signatures.some(({ kid, signature }) => {
    const candidates = kid === undefined ? [...jwks.keys.values()] : [jwks.keys.get(kid)].filter((key): key is KeyObject => key !== undefined);
    return candidates.some((key) => verifySignature(null, message, key, signature));
  });
}
