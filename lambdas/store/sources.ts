import { config } from '../shared/config';
import { ForgetfulCache } from './forgetful-cache';
import { accountPartition, keys, listPrefix } from './keys';
import { sourceLookupRecord, sourceRecord, type SourceLookupRecord, type SourceRecord } from './records';
import { deleteItem, getItem, putNew, queryPrefix, updateExisting } from './table';

const lookupItem = (record: SourceRecord) => ({
  ...keys.sourceLookup(record.path_token),
  entity: 'source_lookup',
  account_id: record.account_id,
  source_id: record.id,
  verification: record.verification,
});

/** The token lookup is written first and conditionally, so a path token can never point at two sources. */
export async function insertSource(record: SourceRecord): Promise<void> {
  if (!(await putNew(lookupItem(record)))) throw new Error('path token collision');
  await putNew({ ...keys.source(record.account_id, record.id), entity: 'source', ...record });
}

export const findSource = (accountId: string, sourceId: string) =>
  getItem(keys.source(accountId, sourceId), sourceRecord);

// Ingest reuses a token's lookup for HOOKGATE_ROUTE_CACHE_SECONDS; changes made through this process
// forget it at once (as the routing table does), so the local gateway is never stale.
const lookups = new ForgetfulCache<SourceLookupRecord | undefined>(() => config().routeCacheSeconds * 1000);

export const findSourceByToken = (pathToken: string) =>
  lookups.get(pathToken, () => getItem(keys.sourceLookup(pathToken), sourceLookupRecord));

export const listSources = (accountId: string) =>
  queryPrefix(accountPartition(accountId), listPrefix.sources, sourceRecord);

/**
 * Changes a source. The lookup that ingest reads is updated first, so a new signature check is
 * enforced from the moment the API answers (and, in other warm functions, within their cache time).
 */
export async function updateSource(
  current: SourceRecord,
  changes: Partial<Pick<SourceRecord, 'name' | 'verification' | 'custom_domain_id' | 'updated_at'>>,
): Promise<SourceRecord | undefined> {
  if (changes.verification !== undefined) {
    await updateExisting(keys.sourceLookup(current.path_token), { verification: changes.verification }, sourceLookupRecord);
    lookups.forget(current.path_token);
  }
  return updateExisting(keys.source(current.account_id, current.id), changes, sourceRecord);
}

/**
 * Deletes a source: its token lookup first, so ingest refuses the URL from then on (other warm
 * functions within their cache time), then the source itself. Its events stay.
 */
export async function deleteSource(current: SourceRecord): Promise<void> {
  await deleteItem(keys.sourceLookup(current.path_token));
  lookups.forget(current.path_token);
  await deleteItem(keys.source(current.account_id, current.id));
}
