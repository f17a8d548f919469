import { liveKeys, rotatedKeys, signerKey, type SignerKey } from '../domain/signing-keys';
import { newSigningKey } from '../shared/secrets';
import { findSigningKeys, insertSigningKeys, replaceSigningKeys, type KeyOwner, type SealedKeySet, type SealedSigningKey } from './record';
import { openSigningKey, sealSigningKey } from './sealing';

export { findSigningKeys } from './record';

const newSealedKey = (accountId: string, customer: KeyOwner, now: Date): Promise<SealedSigningKey> =>
  sealSigningKey(accountId, customer, newSigningKey(now));

/**
 * The owner's keys (a customer's, or the account's own), made on first use: when its first `ed25519`
 * destination is saved, so owners that never sign with Ed25519 carry no key (and cost no KMS call),
 * and the deliver path only ever reads one.
 */
export async function ensureSigningKeys(accountId: string, customer: KeyOwner, now: Date): Promise<SealedKeySet> {
  const found = await findSigningKeys(accountId, customer);
  if (found) return found;
  const made: SealedKeySet = { current: await newSealedKey(accountId, customer, now), previous: null };
  if (await insertSigningKeys(accountId, customer, made)) return made;
  const raced = await findSigningKeys(accountId, customer);
  if (!raced) throw new Error(`signing keys of ${accountId} (customer ${String(customer)}) neither written nor found`);
  return raced;
}

/** A new current key for one owner; the old one signs alongside it until it retires. Retried when another rotation wins the race. */
export async function rotateSigningKeys(accountId: string, customer: KeyOwner, now: Date): Promise<SealedKeySet> {
  for (;;) {
    const found = await findSigningKeys(accountId, customer);
    if (!found) {
      const made: SealedKeySet = { current: await newSealedKey(accountId, customer, now), previous: null };
      if (await insertSigningKeys(accountId, customer, made)) return made;
      continue;
    }
    const rotated = rotatedKeys(found, await newSealedKey(accountId, customer, now), now);
    if (await replaceSigningKeys(accountId, customer, rotated, found.version)) return rotated;
  }
}

/**
 * Key objects by owner and kid, for the container's life: a kid names one key pair forever, so a
 * cached one never goes stale. Promises, so tries signing at once with a key not yet cached share one KMS Decrypt.
 */
const signerCache = new Map<string, Promise<SignerKey>>();

function signerOf(accountId: string, customer: KeyOwner, key: SealedSigningKey): Promise<SignerKey> {
  const cacheKey = JSON.stringify([accountId, customer, key.kid]);
  let signer = signerCache.get(cacheKey);
  if (!signer) {
    signer = openSigningKey(accountId, customer, key).then(signerKey);
    signerCache.set(cacheKey, signer);
    // A failed Decrypt (throttled, say) is not kept: the next try asks again.
    signer.catch(() => signerCache.delete(cacheKey));
  }
  return signer;
}

/**
 * What a try to an `ed25519` destination signs with (a delivery, or an ownership challenge): the live
 * keys of the destination's customer (the account's own for a destination of no customer), current
 * first. Its keys item is read each try (eventually consistent: a try that just misses a rotation
 * signs with the old key, which the JWKS still lists), so every container signs with both keys right
 * after a rotation; a key's private half is decrypted once per container.
 */
export async function signerKeysOf(destination: { account_id: string; customer: KeyOwner }, now: Date): Promise<SignerKey[]> {
  const { account_id: accountId, customer } = destination;
  const set = await findSigningKeys(accountId, customer, false);
  // Saving an ed25519 destination makes its owner's keys; none means the item was removed by hand.
  if (!set) throw new Error(`account ${accountId} has an ed25519 destination of customer ${String(customer)} and no signing keys for it`);
  return Promise.all(liveKeys(set, now).map((key) => signerOf(accountId, customer, key)));
}
