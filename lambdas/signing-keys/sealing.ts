import type { SigningKey } from '../domain/signing-keys';
import type { KeyOwner, SealedSigningKey } from './record';
import { kmsOpen, kmsSeal } from '../adapters/kms';

// The account's own keys keep the context they were sealed under before customers had keys of their own.
const contextOf = (accountId: string, customer: KeyOwner, kid: string): Record<string, string> =>
  customer === null ? { account_id: accountId, kid } : { account_id: accountId, customer, kid };

/** Encrypts the key's `d` (the api function, which makes and rotates keys, may decrypt subject keys only). */
export async function sealSigningKey(accountId: string, customer: KeyOwner, key: SigningKey): Promise<SealedSigningKey> {
  const { private_key: privateKey, ...identity } = key;
  return { ...identity, sealed_private_key: await kmsSeal(Buffer.from(privateKey, 'base64url'), contextOf(accountId, customer, key.kid)) };
}

/** Decrypts the key's `d` (the deliver function, which signs, holds kms:Decrypt only). */
export async function openSigningKey(accountId: string, customer: KeyOwner, key: SealedSigningKey): Promise<SigningKey> {
  const { sealed_private_key: sealed, ...identity } = key;
  return { ...identity, private_key: (await kmsOpen(sealed, contextOf(accountId, customer, key.kid))).toString('base64url') };
}
