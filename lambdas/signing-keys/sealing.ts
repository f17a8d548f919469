import type { KeyIdentity, SigningKey } from '../domain/signing-keys';
import { kmsOpen, kmsSeal } from '../adapters/kms';

/**
 * An account's Ed25519 private key as stored: its JWK `d` encrypted with the stateful stack's KMS
 * key, under the encryption context `{account_id, kid}`, so a ciphertext copied to another account's
 * item (or another key's place) does not decrypt.
 */
export interface SealedSigningKey extends KeyIdentity {
  /** base64 of the KMS ciphertext blob. */
  sealed_private_key: string;
}

const contextOf = (accountId: string, kid: string): Record<string, string> => ({ account_id: accountId, kid });

/** Encrypts the key's `d` (the api function, which makes and rotates keys, may decrypt subject keys only). */
export async function sealSigningKey(accountId: string, key: SigningKey): Promise<SealedSigningKey> {
  const { private_key: privateKey, ...identity } = key;
  return { ...identity, sealed_private_key: await kmsSeal(Buffer.from(privateKey, 'base64url'), contextOf(accountId, key.kid)) };
}

/** Decrypts the key's `d` (the deliver function, which signs, holds kms:Decrypt only). */
export async function openSigningKey(accountId: string, key: SealedSigningKey): Promise<SigningKey> {
  const { sealed_private_key: sealed, ...identity } = key;
  return { ...identity, private_key: (await kmsOpen(sealed, contextOf(accountId, key.kid))).toString('base64url') };
}
