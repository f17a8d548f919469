import { accountPartition, keys, listPrefix } from './keys';
import { sourceLookupRecord, sourceRecord, type SourceRecord } from './records';
import { getItem, putNew, queryPrefix } from './table';

/** The token lookup is written first and conditionally, so a path token can never point at two sources. */
export async function insertSource(record: SourceRecord): Promise<void> {
  const lookupCreated = await putNew({
    ...keys.sourceLookup(record.path_token),
    entity: 'source_lookup',
    account_id: record.account_id,
    source_id: record.id,
  });
  if (!lookupCreated) throw new Error('path token collision');
  await putNew({ ...keys.source(record.account_id, record.id), entity: 'source', ...record });
}

export const findSource = (accountId: string, sourceId: string) =>
  getItem(keys.source(accountId, sourceId), sourceRecord);

export const findSourceByToken = (pathToken: string) => getItem(keys.sourceLookup(pathToken), sourceLookupRecord);

export const listSources = (accountId: string) =>
  queryPrefix(accountPartition(accountId), listPrefix.sources, sourceRecord);
