import { rotatedKeys, type SigningKeySet } from '../domain/signing-keys';
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
