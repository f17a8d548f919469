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
  /**
   * How long one JWKS fetch may take, answer body included, before it is given up (the verification
   * then uses the keys it last fetched from that URL, or rejects without any). Default 10000 (10 s).
   */
  jwksTimeoutMs?: number;
  /** How the JWKS is fetched. Default: the global `fetch`. `signal` aborts it when the timeout passes. */
  fetch?: (
    url: string,
    init: { signal: AbortSignal },
  ) => Promise<{ ok: boolean; status: number; headers: { get(name: string): string | null }; json(): Promise<unknown> }>;
}

/** One JWKS URL's Ed25519 keys by kid, and until when they are fresh (the answer's `max-age`, else 5 minutes). */
interface CachedJwks {
  keys: Map<string, KeyObject>;
  freshUntil: number;
  /** When it was fetched because a delivery named a kid the cache lacked; 0 otherwise. */
  refetchedAt: number;
}

const JWKS_DEFAULT_MAX_AGE_MS = 300_000;
const DEFAULT_JWKS_TIMEOUT_MS = 10_000;
/**
 * Unknown kids fetch the JWKS again at most this often: a request with a made-up kid costs nothing to
 * send, and without this each one would make the receiver fetch (a rotation names its new kid once).
 * A fetch that failed while older keys were known waits as long before the next try.
 */
const UNKNOWN_KID_REFETCH_MS = 5_000;
/**
 * Hookgate signs with one key, two for a day after a rotation: a header far longer than that (each
 * signature is 92 characters) is refused unread, so nobody makes a receiver parse or check hundreds.
 */
const MAX_SIGNATURE_HEADER_LENGTH = 2048;
const MAX_KEY_ID_HEADER_LENGTH = 1024;
const ED25519_SIGNATURE = /^[A-Za-z0-9+/]{86}==$/;
const jwksCache = new Map<string, Promise<CachedJwks>>();

/** The set's usable Ed25519 keys: an entry that is not one, or does not import, is skipped, not fatal to the others. */
export function ed25519Keys(document: unknown): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  const listed = (document as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(listed)) throw new Error('the JWKS has no keys array');
  for (const jwk of listed as unknown[]) {
    if (typeof jwk !== 'object' || jwk === null) continue;
    const { kty, crv, x, kid } = jwk as Record<string, unknown>;
    if (kty !== 'OKP' || crv !== 'Ed25519' || typeof x !== 'string' || typeof kid !== 'string' || keys.has(kid)) continue;
    try {
      keys.set(kid, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' }));
    } catch {
      // A malformed `x` (wrong length, not base64url): this key can verify nothing; the rest still do.
    }
  }
  return keys;
}

async function fetchJwks(jwksUrl: string, options: VerifyWithJwksOptions): Promise<{ keys: Map<string, KeyObject>; maxAge: string | undefined }> {
  const get = options.fetch ?? ((url: string, init: { signal: AbortSignal }) => fetch(url, init));
  const timeoutMs = options.jwksTimeoutMs ?? DEFAULT_JWKS_TIMEOUT_MS;
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Raced as well as aborted: a fetch function that ignores the signal, or a body that stalls, still ends here.
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`GET ${jwksUrl} gave no answer within ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    return await Promise.race([
      (async () => {
        const answer = await get(jwksUrl, { signal: controller.signal });
        if (!answer.ok) throw new Error(`GET ${jwksUrl} answered ${answer.status}`);
        const maxAge = /max-age=(\d+)/.exec(answer.headers.get('cache-control') ?? '')?.[1];
        return { keys: ed25519Keys(await answer.json()), maxAge };
      })(),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function loadJwks(jwksUrl: string, refetch: boolean, known: CachedJwks | undefined, options: VerifyWithJwksOptions): Promise<CachedJwks> {
  try {
    const { keys, maxAge } = await fetchJwks(jwksUrl, options);
    const now = Date.now();
    return { keys, freshUntil: now + (maxAge === undefined ? JWKS_DEFAULT_MAX_AGE_MS : Number(maxAge) * 1000), refetchedAt: refetch ? now : 0 };
  } catch (error) {
    if (!known) throw error;
    // The host is down or stalls: the keys it served last still verify what they signed, and
    // verifications do not each wait for it; it is asked again in a few seconds.
    const now = Date.now();
    return { keys: known.keys, freshUntil: now + UNKNOWN_KID_REFETCH_MS, refetchedAt: now };
  }
}

/**
 * The URL's keys: cached while fresh; fetched again when stale or when `refresh` (a kid the cache
 * lacks), unless the cache is itself such a refetch of the last few seconds. Concurrent callers share one fetch.
 */
async function jwksKeys(jwksUrl: string, refresh: boolean, options: VerifyWithJwksOptions): Promise<CachedJwks> {
  const cached = jwksCache.get(jwksUrl);
  const known = cached && (await cached.catch(() => undefined));
  if (known && known.freshUntil > Date.now() && (!refresh || Date.now() - known.refetchedAt < UNKNOWN_KID_REFETCH_MS)) return known;
  // Another caller may have started a fetch while this one waited for the cache.
  const current = jwksCache.get(jwksUrl);
  if (current !== cached && current !== undefined) return current;
  const loading = loadJwks(jwksUrl, refresh, known, options);
  jwksCache.set(jwksUrl, loading);
  loading.catch(() => {
    if (jwksCache.get(jwksUrl) === loading) jwksCache.delete(jwksUrl);
  });
  return loading;
}

/** The signatures of a header, each once, with the kid `webhook-key-id` names in its place; none when either header is oversized. */
function signaturesOf(headers: WebhookHeaders): Array<{ kid: string | undefined; given: string }> {
  const header = headerValues(headers, 'webhook-signature').join(' ');
  const kidHeader = headerValues(headers, 'webhook-key-id').join(' ');
  if (header.length > MAX_SIGNATURE_HEADER_LENGTH || kidHeader.length > MAX_KEY_ID_HEADER_LENGTH) return [];
  const kids = kidHeader.split(' ').filter(Boolean);
  const seen = new Set<string>();
  const signatures: Array<{ kid: string | undefined; given: string }> = [];
  header
    .split(' ')
    .filter(Boolean)
    .forEach((part, i) => {
      const [version, given] = part.split(',', 2);
      const kid = kids[i];
      const key = `${kid ?? ''} ${given ?? ''}`;
      if (version !== 'v1a' || !given || !ED25519_SIGNATURE.test(given) || seen.has(key)) return;
      seen.add(key);
      signatures.push({ kid, given });
    });
  return signatures;
}

/**
 * Whether an `ed25519` delivery is genuine: Standard Webhooks' asymmetric form, `webhook-signature:
 * v1a,<base64 Ed25519 signature of "<webhook-id>.<webhook-timestamp>.<body>">` (several separated by
 * spaces during a key rotation), each made with the key `webhook-key-id` names in the same place, a
 * public key of the receiver's JWKS at `jwksUrl`: a customer's own (its portal shows it; each
 * customer's endpoints are signed with a key pair of its own, so a delivery to one customer does not
 * verify with another's), or for the account's own destinations its `jwks_url` (`GET /v1/account`).
 *
 * The JWKS is cached per URL for its `max-age` and fetched again at once when a delivery names a kid
 * it lacks (at most once in 5 seconds), so a rotation needs no redeploy. A fetch that takes longer
 * than `jwksTimeoutMs` is given up; while it fails, the keys last fetched keep verifying. A key of
 * the set that is not a valid Ed25519 JWK is skipped. A `webhook-signature` over 2048 characters is
 * refused, repeated signatures are checked once, and no more signatures are checked than the JWKS
 * lists keys. Answers false on malformed headers or a signature no listed key makes; rejects only
 * when the JWKS cannot be fetched and none was before.
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
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) return false;
  const [id] = headerValues(headers, 'webhook-id');
  const [timestamp] = headerValues(headers, 'webhook-timestamp');
  if (!id || !timestamp || !fresh(timestamp, options)) return false;
  const signatures = signaturesOf(headers);
  if (signatures.length === 0) return false;
  const message = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), bytes(body)]);
  let jwks = await jwksKeys(jwksUrl, false, options);
  if (signatures.some(({ kid }) => kid !== undefined && !jwks.keys.has(kid))) jwks = await jwksKeys(jwksUrl, true, options);
  // Each check is an Ed25519 verification: as many as the set has keys, whatever the header holds.
  let checks = jwks.keys.size;
  for (const { kid, given } of signatures) {
    const candidates = kid === undefined ? [...jwks.keys.values()] : [jwks.keys.get(kid)].filter((key): key is KeyObject => key !== undefined);
    for (const key of candidates) {
      if (checks-- <= 0) return false;
      if (verifySignature(null, message, key, Buffer.from(given, 'base64'))) return true;
    }
  }
  return false;
}
