import { liveKeys, rotatedKeys, signerKey, type SignerKey } from '../domain/signing-keys';
import { newSigningKey } from '../shared/secrets';
import { findSigningKeys, insertSigningKeys, replaceSigningKeys, type SealedKeySet } from './record';
import { openSigningKey, sealSigningKey, type SealedSigningKey } from './sealing';

export { findSigningKeys } from './record';

const newSealedKey = (accountId: string, now: Date): Promise<SealedSigningKey> => sealSigningKey(accountId, newSigningKey(now));

/**
 * The account's keys, made on first use: when its first `ed25519` destination is saved, so accounts
 * that never sign with Ed25519 carry no key, and the deliver path only ever reads one.
 */
export async function ensureSigningKeys(accountId: string, now: Date): Promise<SealedKeySet> {
  const found = await findSigningKeys(accountId);
  if (found) return found;
  const made: SealedKeySet = { current: await newSealedKey(accountId, now), previous: null };
  if (await insertSigningKeys(accountId, made)) return made;
  const raced = await findSigningKeys(accountId);
  if (!raced) throw new Error(`signing keys of ${accountId} neither written nor found`);
  return raced;
}

/** A new current key; the old one signs alongside it until it retires. Retried when another rotation wins the race. */
export async function rotateSigningKeys(accountId: string, now: Date): Promise<SealedKeySet> {
  for (;;) {
    const found = await findSigningKeys(accountId);
    if (!found) {
      const made: SealedKeySet = { current: await newSealedKey(accountId, now), previous: null };
      if (await insertSigningKeys(accountId, made)) return made;
      continue;
    }
    const rotated = rotatedKeys(found, await newSealedKey(accountId, now), now);
    if (await replaceSigningKeys(accountId, rotated, found.version)) return rotated;
  }
}

/**
 * Key objects by kid, for the container's life: a kid names one key pair forever, so a cached one
 * never goes stale. Promises, so tries signing at once with a key not yet cached share one KMS Decrypt.
 */
const signerCache = new Map<string, Promise<SignerKey>>();

function signerOf(accountId: string, key: SealedSigningKey): Promise<SignerKey> {
  const cacheKey = `${accountId}/${key.kid}`;
  let signer = signerCache.get(cacheKey);
  if (!signer) {
    signer = openSigningKey(accountId, key).then(signerKey);
    signerCache.set(cacheKey, signer);
    // A failed Decrypt (throttled, say) is not kept: the next try asks again.
    signer.catch(() => signerCache.delete(cacheKey));
  }
  return signer;
}

/**
 * What a try to an `ed25519` destination signs with (a delivery, or an ownership challenge): the
 * account's live keys, current first. Its keys item is read each try (eventually consistent: a
 * try that just misses a rotation signs with the old key, which the JWKS still lists), so every
 * container signs with both keys right after a rotation; a key's private half is decrypted once per
 * container.
 */
export async function signerKeysOf(accountId: string, now: Date): Promise<SignerKey[]> {
  const set = await findSigningKeys(accountId, false);
  // Saving an ed25519 destination makes the account's keys; none means the item was removed by hand.
  if (!set) throw new Error(`account ${accountId} has an ed25519 destination and no signing keys`);
  return Promise.all(liveKeys(set, now).map((key) => signerOf(accountId, key)));
}
