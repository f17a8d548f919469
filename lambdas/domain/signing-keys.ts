import { createPrivateKey, sign, type KeyObject } from 'node:crypto';

/** What is known of a key without its private half: `public_key` is the JWK `x` (RFC 8037), base64url of 32 bytes. */
export interface KeyIdentity {
  kid: string;
  public_key: string;
  created_at: string;
}

/** An account's Ed25519 key pair as the signing side knows it: `private_key` is the JWK `d`, base64url of 32 bytes. */
export interface SigningKey extends KeyIdentity {
  private_key: string;
}

/**
 * The current key, and the one a rotation replaced until it retires. `K` is how the keys are held:
 * with their private half in clear, or as stored (sealed, lambdas/signing-keys/sealing.ts).
 */
export interface SigningKeySet<K extends KeyIdentity = SigningKey> {
  current: K;
  previous: (K & { retires_at: string }) | null;
}

/** A public key as JWKS documents list it (RFC 8037): never `d`. */
export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  use: 'sig';
  alg: 'EdDSA';
}

/** As long as a rotated HMAC secret stays valid: receivers that cache the JWKS see the new key well before the old one goes. */
export const KEY_ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/** The keys that sign and verify now, current first: the previous one only until it retires. */
export function liveKeys<K extends KeyIdentity>(set: SigningKeySet<K>, now: Date): K[] {
  const { current, previous } = set;
  return previous !== null && Date.parse(previous.retires_at) > now.getTime() ? [current, previous] : [current];
}

/** The set after a rotation to `fresh`: the current key becomes the previous one for the overlap; an earlier previous key is gone. */
export function rotatedKeys<K extends KeyIdentity>(set: SigningKeySet<K>, fresh: K, now: Date): SigningKeySet<K> {
  return { current: fresh, previous: { ...set.current, retires_at: new Date(now.getTime() + KEY_ROTATION_OVERLAP_MS).toISOString() } };
}

const publicJwk = (key: Pick<KeyIdentity, 'kid' | 'public_key'>): PublicJwk => ({
  kty: 'OKP',
  crv: 'Ed25519',
  x: key.public_key,
  kid: key.kid,
  use: 'sig',
  alg: 'EdDSA',
});

/** The JWKS document of an account: its live keys, or none before it has any. */
export const jwksOf = (set: SigningKeySet<KeyIdentity> | undefined, now: Date): { keys: PublicJwk[] } => ({
  keys: set === undefined ? [] : liveKeys(set, now).map(publicJwk),
});

/** A key ready to sign with: node's key object of its JWK. */
export interface SignerKey {
  kid: string;
  key: KeyObject;
}

export const signerKey = (key: SigningKey): SignerKey => ({
  kid: key.kid,
  key: createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.public_key, d: key.private_key }, format: 'jwk' }),
});

/**
 * Standard Webhooks' asymmetric form: `v1a,<base64 Ed25519 signature of "<id>.<t>.<body>">`, one per
 * live key, separated by spaces; `keyIds` names their keys in the same order (`webhook-key-id`).
 */
export function ed25519Signature(
  messageId: string,
  timestamp: number,
  body: Buffer,
  keys: readonly SignerKey[],
): { signature: string; keyIds: string } {
  const message = Buffer.concat([Buffer.from(`${messageId}.${timestamp}.`, 'utf8'), body]);
  return {
    signature: keys.map(({ key }) => `v1a,${sign(null, message, key).toString('base64')}`).join(' '),
    keyIds: keys.map(({ kid }) => kid).join(' '),
  };
}
