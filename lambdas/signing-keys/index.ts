import { liveKeys, rotatedKeys, signerKey, type SignerKey, type SigningKeySet } from '../domain/signing-keys';
import { newSigningKey } from '../shared/secrets';
import { findSigningKeys, insertSigningKeys, replaceSigningKeys } from './record';

export { findSigningKeys } from './record';

/**
 * The account's keys, made on first use: when its first `ed25519` destination is saved, so accounts
 * that never sign with Ed25519 carry no key, and the deliver path only ever reads one.
 */
export async function ensureSigningKeys(accountId: string, now: Date): Promise<SigningKeySet> {
  const found = await findSigningKeys(accountId);
  if (found) return found;
  const made: SigningKeySet = { current: newSigningKey(now), previous: null };
  if (await insertSigningKeys(accountId, made)) return made;
  const raced = await findSigningKeys(accountId);
  if (!raced) throw new Error(`signing keys of ${accountId} neither written nor found`);
  return raced;
}

/** A new current key; the old one signs alongside it until it retires. Retried when another rotation wins the race. */
export async function rotateSigningKeys(accountId: string, now: Date): Promise<SigningKeySet> {
  for (;;) {
    const found = await findSigningKeys(accountId);
    if (!found) {
      const made: SigningKeySet = { current: newSigningKey(now), previous: null };
      if (await insertSigningKeys(accountId, made)) return made;
      continue;
    }
    const rotated = rotatedKeys(found, newSigningKey(now), now);
    if (await replaceSigningKeys(accountId, rotated, found.version)) return rotated;
  }
}

/** Key objects by kid, for the container's life: a kid names one key pair forever, so a cached one never goes stale. */
const signerCache = new Map<string, SignerKey>();

/**
 * What a try to an `ed25519` destination signs with (a delivery, or an ownership challenge): the
 * account's live keys, current first. Its keys item is read each try (eventually consistent: a
 * try that just misses a rotation signs with the old key, which the JWKS still lists), so every
 * container signs with both keys right after a rotation.
 */
export async function signerKeysOf(accountId: string, now: Date): Promise<SignerKey[]> {
  const set = await findSigningKeys(accountId, false);
  // Saving an ed25519 destination makes the account's keys; none means the item was removed by hand.
  if (!set) throw new Error(`account ${accountId} has an ed25519 destination and no signing keys`);
  return liveKeys(set, now).map((key) => {
    let signer = signerCache.get(key.kid);
    if (!signer) signerCache.set(key.kid, (signer = signerKey(key)));
    return signer;
  });
}
