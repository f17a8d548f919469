import type * as KmsSdk from '@aws-sdk/client-kms';
import type { KeyIdentity, SigningKey } from '../domain/signing-keys';
import type { KeyOwner } from './record';
import { config } from '../shared/config';
import { ENV } from '../shared/resource-definitions';

/**
 * An Ed25519 private key as stored: its JWK `d` encrypted with the stateful stack's KMS key, under
 * the encryption context `{account_id, kid}` (and `customer` for a customer's key), so a ciphertext
 * copied to another account's item, another customer's, or another key's place does not decrypt.
 */
export interface SealedSigningKey extends KeyIdentity {
  /** base64 of the KMS ciphertext blob. */
  sealed_private_key: string;
}

// Loaded on first use, as the AWS destination clients are: most containers never sign with Ed25519.
let kms: Promise<{ client: KmsSdk.KMSClient; sdk: typeof KmsSdk }> | undefined;
const kmsSdk = () => (kms ??= import('@aws-sdk/client-kms').then((sdk) => ({ client: new sdk.KMSClient({}), sdk })));

function keyId(): string {
  const id = config().signingKeysKmsKey;
  if (!id) throw new Error(`${ENV.signingKeysKmsKey} is not set: this function has no signing keys KMS key`);
  return id;
}

// The account's own keys keep the context they were sealed under before customers had keys of their own.
const contextOf = (accountId: string, customer: KeyOwner, kid: string): Record<string, string> =>
  customer === null ? { account_id: accountId, kid } : { account_id: accountId, customer, kid };

/** Encrypts the key's `d` (the api function, which makes and rotates keys, holds kms:Encrypt only). */
export async function sealSigningKey(accountId: string, customer: KeyOwner, key: SigningKey): Promise<SealedSigningKey> {
  const { client, sdk } = await kmsSdk();
  const { private_key: privateKey, ...identity } = key;
  const { CiphertextBlob } = await client.send(
    new sdk.EncryptCommand({ KeyId: keyId(), Plaintext: Buffer.from(privateKey, 'base64url'), EncryptionContext: contextOf(accountId, customer, key.kid) }),
  );
  if (!CiphertextBlob) throw new Error('KMS Encrypt answered no ciphertext');
  return { ...identity, sealed_private_key: Buffer.from(CiphertextBlob).toString('base64') };
}

/** Decrypts the key's `d` (the deliver function, which signs, holds kms:Decrypt only). */
export async function openSigningKey(accountId: string, customer: KeyOwner, key: SealedSigningKey): Promise<SigningKey> {
  const { client, sdk } = await kmsSdk();
  const { sealed_private_key: sealed, ...identity } = key;
  const { Plaintext } = await client.send(
    new sdk.DecryptCommand({ KeyId: keyId(), CiphertextBlob: Buffer.from(sealed, 'base64'), EncryptionContext: contextOf(accountId, customer, key.kid) }),
  );
  if (!Plaintext) throw new Error('KMS Decrypt answered no plaintext');
  return { ...identity, private_key: Buffer.from(Plaintext).toString('base64url') };
}
