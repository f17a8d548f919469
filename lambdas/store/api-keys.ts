import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws-clients';
import { config } from '../shared/config';
import { accountPartition, keys, listPrefix } from './keys';
import { apiKeyLookupRecord, apiKeyRecord, type ApiKeyLookupRecord, type ApiKeyRecord } from './records';
import { batchGet, deleteItem, getItem, isConditionFailure, putNew, queryPrefix } from './table';

export type ApiKeyWithUsage = ApiKeyRecord & { last_used_at: string | null };

/** The record lives in the account's partition; a lookup item keyed by the hash finds it on each request. */
export async function insertApiKey(record: ApiKeyRecord): Promise<void> {
  const lookupCreated = await putNew({
    ...keys.apiKeyLookup(record.key_hash),
    entity: 'api_key_lookup',
    account_id: record.account_id,
    key_id: record.id,
    key_hash: record.key_hash,
    last_used_at: null,
  });
  if (!lookupCreated) throw new Error('api key hash collision');
  await putNew({ ...keys.apiKey(record.account_id, record.id), entity: 'api_key', ...record });
}

/** Strongly consistent, so a key revoked a moment ago is refused on the very next request. */
export const findApiKeyByHash = (keyHash: string) => getItem(keys.apiKeyLookup(keyHash), apiKeyLookupRecord, true);

export async function listApiKeys(accountId: string): Promise<ApiKeyWithUsage[]> {
  const records = await queryPrefix(accountPartition(accountId), listPrefix.apiKeys, apiKeyRecord);
  const lookups = await batchGet(
    records.map((r) => keys.apiKeyLookup(r.key_hash)),
    apiKeyLookupRecord,
  );
  const usage = new Map(lookups.map((l) => [l.key_id, l.last_used_at]));
  return records.map((r) => ({ ...r, last_used_at: usage.get(r.id) ?? null }));
}

/** Deletes the lookup first: from that moment the key authenticates nothing, whatever happens next. */
export async function revokeApiKey(accountId: string, keyId: string): Promise<boolean> {
  const record = await getItem(keys.apiKey(accountId, keyId), apiKeyRecord);
  if (!record) return false;
  await deleteItem(keys.apiKeyLookup(record.key_hash));
  await deleteItem(keys.apiKey(accountId, keyId));
  return true;
}

/** Records use at most once per interval per key, so authentication stays one read on most requests. */
export async function touchApiKey(lookup: ApiKeyLookupRecord, now: Date, intervalMs: number): Promise<void> {
  const last = lookup.last_used_at ? Date.parse(lookup.last_used_at) : 0;
  if (now.getTime() - last < intervalMs) return;
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.apiKeyLookup(lookup.key_hash),
        UpdateExpression: 'SET last_used_at = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':now': now.toISOString() },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
