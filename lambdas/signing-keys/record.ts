import * as z from 'zod/mini';
import type { KeyIdentity, SigningKeySet } from '../domain/signing-keys';
import { defineEntity } from '../store/entity';
import { accountPartition } from '../store/keys';
import { getItem, putItem } from '../store/table';

/**
 * An Ed25519 private key as stored: its JWK `d` encrypted with the stateful stack's KMS key, under
 * the encryption context `{account_id, kid}` (and `customer` for a customer's key), so a ciphertext
 * copied to another account's item, another customer's, or another key's place does not decrypt.
 */
export interface SealedSigningKey extends KeyIdentity {
  /** base64 of the KMS ciphertext blob. */
  sealed_private_key: string;
}

export type SealedKeySet = SigningKeySet<SealedSigningKey>;

/**
 * Whose key pair: one of the account's customers (the `customer` of its destinations), or null for
 * the account's own destinations. Each has its own, so a delivery to one does not verify at another.
 */
export type KeyOwner = string | null;

const signingKey = z.object({ kid: z.string(), public_key: z.string(), sealed_private_key: z.string(), created_at: z.string() });

/** One owner's Ed25519 keys as stored, private halves sealed (./sealing.ts); `version` counts rotations, so two at once cannot both win. */
const signingKeysRecord = z.object({
  account_id: z.string(),
  // Absent on the account's own item, which predates customers' keys.
  customer: z._default(z.nullable(z.string()), null),
  current: signingKey,
  previous: z.nullable(z.object({ ...signingKey.shape, retires_at: z.string() })),
  version: z.int(),
});
type SigningKeysRecord = z.infer<typeof signingKeysRecord>;

const sortKey = (customer: KeyOwner): string => (customer === null ? 'SIGNING_KEYS' : `SIGNING_KEYS#CUSTOMER#${customer}`);

/** One item per owner, outside the routing range (they sort after `ACCOUNT#`), read only by key. */
const signingKeysEntity = defineEntity({
  name: 'signing_keys',
  schema: signingKeysRecord,
  key: ({ accountId, customer }: { accountId: string; customer: KeyOwner }) => ({ pk: accountPartition(accountId), sk: sortKey(customer) }),
  keyOf: (record: SigningKeysRecord) => ({ pk: accountPartition(record.account_id), sk: sortKey(record.customer) }),
});

/** `consistent: false` for readers a just-made rotation may miss for a moment (a try still signs with a key the JWKS lists). */
export function findSigningKeys(accountId: string, customer: KeyOwner, consistent = true): Promise<(SealedKeySet & { version: number }) | undefined> {
  return getItem(signingKeysEntity.key({ accountId, customer }), signingKeysEntity.schema, consistent);
}

/** The owner's first keys; false when it already had some (a concurrent first use). */
export const insertSigningKeys = (accountId: string, customer: KeyOwner, set: SealedKeySet): Promise<boolean> =>
  signingKeysEntity.create({ account_id: accountId, customer, ...set, version: 1 });

/** Replaces the keys read at `version`; false when another rotation came first. */
export const replaceSigningKeys = (accountId: string, customer: KeyOwner, set: SealedKeySet, version: number): Promise<boolean> =>
  putItem(signingKeysEntity.item({ account_id: accountId, customer, ...set, version: version + 1 }), {
    expression: '#version = :version',
    values: { ':version': version },
  });
