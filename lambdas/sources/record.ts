import * as z from 'zod/mini';
import { config } from '../shared/config';
import { ForgetfulCache } from '../store/forgetful-cache';
import { defineEntity } from '../store/entity';
import { accountPartition, LOOKUP_SK } from '../store/keys';
import { SECRET_PROVIDERS } from '../domain/vocabulary';

/** A source's provider signature check; the secret is write-only (never in a response or a log). */
const verificationConfig = z.union([
  z.object({ provider: z.enum(SECRET_PROVIDERS), secret: z.string() }),
  z.object({
    provider: z.literal('hmac_sha256'),
    secret: z.string(),
    header: z.string(),
    encoding: z.enum(['hex', 'base64']),
    prefix: z.optional(z.string()),
  }),
]);

/** A source as stored: where third parties post webhooks (by path token), and how ingest checks them. */
const sourceRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  name: z.string(),
  path_token: z.string(),
  verification: z._default(z.nullable(verificationConfig), null),
  custom_domain_id: z.nullable(z.string()),
  /** Where ingest finds an event's data subject in its JSON payload (RFC 6901); null: inbound events get none. */
  subject_pointer: z._default(z.nullable(z.string()), null),
  /** An RFC 6901 pointer to its events' ordering key in their JSON payload (lambdas/domain/ordering.ts); null: unordered. */
  ordering_key_pointer: z._default(z.nullable(z.string()), null),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SourceRecord = z.infer<typeof sourceRecord>;

/** What ingest needs, in the one item it reads by path token. */
const sourceLookupRecord = z.object({
  account_id: z.string(),
  source_id: z.string(),
  verification: z._default(z.nullable(verificationConfig), null),
  subject_pointer: z._default(z.nullable(z.string()), null),
  ordering_key_pointer: z._default(z.nullable(z.string()), null),
});
type SourceLookupRecord = z.infer<typeof sourceLookupRecord>;

const sourceKey = (accountId: string, sourceId: string) => ({ pk: accountPartition(accountId), sk: `SOURCE#${sourceId}` });
const sourceEntity = defineEntity({
  name: 'source',
  schema: sourceRecord,
  key: sourceKey,
  keyOf: (record: SourceRecord) => sourceKey(record.account_id, record.id),
  collection: { partition: accountPartition, prefix: 'SOURCE#' },
});

/** What ingest reads by path token; the lookup does not hold the token itself, so writes pass its key. */
const sourceLookupEntity = defineEntity({
  name: 'source_lookup',
  schema: sourceLookupRecord,
  key: (pathToken: string) => ({ pk: `SOURCETOKEN#${pathToken}`, sk: LOOKUP_SK }),
});

/** The token lookup is written first and conditionally, so a path token can never point at two sources. */
export async function insertSource(record: SourceRecord): Promise<void> {
  const lookup = { account_id: record.account_id, source_id: record.id, verification: record.verification, subject_pointer: record.subject_pointer, ordering_key_pointer: record.ordering_key_pointer };
  if (!(await sourceLookupEntity.create(lookup, sourceLookupEntity.key(record.path_token)))) throw new Error('path token collision');
  await sourceEntity.create(record);
}

export const findSource = (accountId: string, sourceId: string) => sourceEntity.find(accountId, sourceId);

// Ingest reuses a token's lookup for HOOKGATE_ROUTE_CACHE_SECONDS; changes made through this process
// forget it at once (as the routing table does), so the local gateway is never stale.
const lookups = new ForgetfulCache<SourceLookupRecord | undefined>(() => config().routeCacheSeconds * 1000);

export const findSourceByToken = (pathToken: string) =>
  lookups.get(pathToken, () => sourceLookupEntity.find(pathToken));

export const listSources = (accountId: string) => sourceEntity.list(accountId);

/**
 * Changes a source. The lookup that ingest reads is updated first, so a new signature check is
 * enforced from the moment the API answers (and, in other warm functions, within their cache time).
 */
export async function updateSource(
  current: SourceRecord,
  changes: Partial<Pick<SourceRecord, 'name' | 'verification' | 'custom_domain_id' | 'subject_pointer' | 'ordering_key_pointer' | 'updated_at'>>,
): Promise<SourceRecord | undefined> {
  const read = { verification: changes.verification, subject_pointer: changes.subject_pointer, ordering_key_pointer: changes.ordering_key_pointer };
  const lookupChanges = Object.fromEntries(Object.entries(read).filter(([, value]) => value !== undefined));
  if (Object.keys(lookupChanges).length > 0) {
    await sourceLookupEntity.update([current.path_token], lookupChanges);
    lookups.forget(current.path_token);
  }
  return sourceEntity.update([current.account_id, current.id], changes);
}

/**
 * Deletes a source: its token lookup first, so ingest refuses the URL from then on (other warm
 * functions within their cache time), then the source itself. Its events stay.
 */
export async function deleteSource(current: SourceRecord): Promise<void> {
  await sourceLookupEntity.remove(current.path_token);
  lookups.forget(current.path_token);
  await sourceEntity.remove(current.account_id, current.id);
}
