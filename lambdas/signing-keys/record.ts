import * as z from 'zod/mini';
import type { SigningKeySet } from '../domain/signing-keys';
import { defineEntity } from '../store/entity';
import { accountPartition } from '../store/keys';
import { getItem, putItem } from '../store/table';
import type { SealedSigningKey } from './sealing';

export type SealedKeySet = SigningKeySet<SealedSigningKey>;

const signingKey = z.object({ kid: z.string(), public_key: z.string(), sealed_private_key: z.string(), created_at: z.string() });

/** An account's Ed25519 keys as stored, private halves sealed (./sealing.ts); `version` counts rotations, so two at once cannot both win. */
const signingKeysRecord = z.object({
  account_id: z.string(),
  current: signingKey,
  previous: z.nullable(z.object({ ...signingKey.shape, retires_at: z.string() })),
  version: z.int(),
});
type SigningKeysRecord = z.infer<typeof signingKeysRecord>;

/** One item per account, outside the routing range (it sorts after `ACCOUNT#`), read only by key. */
const signingKeysEntity = defineEntity({
  name: 'signing_keys',
  schema: signingKeysRecord,
  key: (accountId: string) => ({ pk: accountPartition(accountId), sk: 'SIGNING_KEYS' }),
  keyOf: (record: SigningKeysRecord) => ({ pk: accountPartition(record.account_id), sk: 'SIGNING_KEYS' }),
});

/** `consistent: false` for readers a just-made rotation may miss for a moment (a try still signs with a key the JWKS lists). */
export function findSigningKeys(accountId: string, consistent = true): Promise<(SealedKeySet & { version: number }) | undefined> {
  return getItem(signingKeysEntity.key(accountId), signingKeysEntity.schema, consistent);
}

/** The account's first keys; false when it already had some (a concurrent first use). */
export const insertSigningKeys = (accountId: string, set: SealedKeySet): Promise<boolean> =>
  signingKeysEntity.create({ account_id: accountId, ...set, version: 1 });

/** Replaces the keys read at `version`; false when another rotation came first. */
export const replaceSigningKeys = (accountId: string, set: SealedKeySet, version: number): Promise<boolean> =>
  putItem(signingKeysEntity.item({ account_id: accountId, ...set, version: version + 1 }), {
    expression: '#version = :version',
    values: { ':version': version },
  });
