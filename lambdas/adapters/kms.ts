import type * as KmsSdk from '@aws-sdk/client-kms';
import { config } from '../shared/config';
import { ENV } from '../shared/resource-definitions';

/**
 * Encrypt and Decrypt with the stateful stack's KMS key, always under an encryption context: a
 * ciphertext asked back under another context (another account's, another use's) does not decrypt,
 * and the functions' grants are scoped by it (lib/service-stack.ts).
 */

// Loaded on first use: a container opens each key it needs once, and most never need one.
let kms: Promise<{ client: KmsSdk.KMSClient; sdk: typeof KmsSdk }> | undefined;
const kmsSdk = () => (kms ??= import('@aws-sdk/client-kms').then((sdk) => ({ client: new sdk.KMSClient({}), sdk })));

function keyId(): string {
  const id = config().signingKeysKmsKey;
  if (!id) throw new Error(`${ENV.signingKeysKmsKey} is not set: this function has no KMS key`);
  return id;
}

/** The ciphertext blob, base64. */
export async function kmsSeal(plaintext: Uint8Array, context: Record<string, string>): Promise<string> {
  const { client, sdk } = await kmsSdk();
  const { CiphertextBlob } = await client.send(new sdk.EncryptCommand({ KeyId: keyId(), Plaintext: plaintext, EncryptionContext: context }));
  if (!CiphertextBlob) throw new Error('KMS Encrypt answered no ciphertext');
  return Buffer.from(CiphertextBlob).toString('base64');
}

export async function kmsOpen(sealed: string, context: Record<string, string>): Promise<Buffer> {
  const { client, sdk } = await kmsSdk();
  const { Plaintext } = await client.send(new sdk.DecryptCommand({ KeyId: keyId(), CiphertextBlob: Buffer.from(sealed, 'base64'), EncryptionContext: context }));
  if (!Plaintext) throw new Error('KMS Decrypt answered no plaintext');
  return Buffer.from(Plaintext);
}
