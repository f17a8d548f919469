import * as z from 'zod/mini';
import { defineEntity } from '../store/entity';
import { accountPartition, LOOKUP_SK } from '../store/keys';
import { batchGet, ITEM_EXISTS, updateItem } from '../store/table';

/** An API key as stored: only the key's hash and its prefix, never the key. */
const apiKeyRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  name: z.nullable(z.string()),
  prefix: z.string(),
  key_hash: z.string(),
  created_at: z.string(),
});
export type ApiKeyRecord = z.infer<typeof apiKeyRecord>;

/** What authentication reads by the key's hash, and when the key was last used. */
const apiKeyLookupRecord = z.object({
  account_id: z.string(),
  key_id: z.string(),
  key_hash: z.string(),
  last_used_at: z.nullable(z.string()),
});
export type ApiKeyLookupRecord = z.infer<typeof apiKeyLookupRecord>;

/** The record lives in the account's partition; a lookup item keyed by the hash finds it on each request. */
const apiKeyKey = (accountId: string, keyId: string) => ({ pk: accountPartition(accountId), sk: `APIKEY#${keyId}` });
/** Where a key's record is, for reads that check the key still exists together with other items (portal sessions). */
export const apiKeyItemKey = apiKeyKey;
const apiKeyEntity = defineEntity({
  name: 'api_key',
  schema: apiKeyRecord,
  key: apiKeyKey,
  keyOf: (record: ApiKeyRecord) => apiKeyKey(record.account_id, record.id),
  collection: { partition: accountPartition, prefix: 'APIKEY#' },
});

const lookupKey = (keyHash: string) => ({ pk: `APIKEYHASH#${keyHash}`, sk: LOOKUP_SK });
const apiKeyLookupEntity = defineEntity({
  name: 'api_key_lookup',
  schema: apiKeyLookupRecord,
  key: lookupKey,
  keyOf: (lookup: ApiKeyLookupRecord) => lookupKey(lookup.key_hash),
});

export type ApiKeyWithUsage = ApiKeyRecord & { last_used_at: string | null };

export async function insertApiKey(record: ApiKeyRecord): Promise<void> {
  const lookupCreated = await apiKeyLookupEntity.create({
    account_id: record.account_id,
    key_id: record.id,
    key_hash: record.key_hash,
    last_used_at: null,
  });
  if (!lookupCreated) throw new Error('api key hash collision');
  await apiKeyEntity.create(record);
}

/** Strongly consistent, so a key revoked a moment ago is refused on the very next request. */
export const findApiKeyByHash = (keyHash: string) => apiKeyLookupEntity.find(keyHash);

export async function listApiKeys(accountId: string): Promise<ApiKeyWithUsage[]> {
  const records = await apiKeyEntity.list(accountId);
  const lookups = await batchGet(
    records.map((r) => apiKeyLookupEntity.key(r.key_hash)),
    apiKeyLookupRecord,
  );
  const usage = new Map(lookups.map((l) => [l.key_id, l.last_used_at]));
  return records.map((r) => ({ ...r, last_used_at: usage.get(r.id) ?? null }));
}

/** Deletes the lookup first: from that moment the key authenticates nothing, whatever happens next. The key revoked, if it existed. */
export async function revokeApiKey(accountId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
  const record = await apiKeyEntity.find(accountId, keyId);
  if (!record) return undefined;
  await apiKeyLookupEntity.remove(record.key_hash);
  await apiKeyEntity.remove(accountId, keyId);
  return record;
}

/** Records use at most once per interval per key, so authentication stays one read on most requests. */
export async function touchApiKey(lookup: ApiKeyLookupRecord, now: Date, intervalMs: number): Promise<void> {
  const last = lookup.last_used_at ? Date.parse(lookup.last_used_at) : 0;
  if (now.getTime() - last < intervalMs) return;
  // A key revoked meanwhile fails the condition: nothing to record.
  await updateItem(apiKeyLookupEntity.key(lookup.key_hash), { set: { last_used_at: now.toISOString() } }, { condition: ITEM_EXISTS });
}
