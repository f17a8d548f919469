import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE } from '../shared/resource-definitions';
import { documentClient } from '../adapters/aws-clients';
import { config } from '../shared/config';
import { defineEntity, type Key } from './entity';
import { accountPartition, LOOKUP_SK } from './keys';
import {
  customDomainRecord,
  DELETING,
  domainLookupRecord,
  type CustomDomainRecord,
  type DomainLookupRecord,
} from './records';
import { isConditionFailure, putNew } from './table';

/**
 * One item per domain in the account's partition (outside the routing range, so the routing table's
 * query never reads them), plus a global lookup per hostname that makes a hostname belong to one
 * registration at a time. The lookup holds a pointer, no tenant data.
 */
const domainKey = (accountId: string, domainId: string) => ({ pk: accountPartition(accountId), sk: `SITEDOMAIN#${domainId}` });
export const customDomainEntity = defineEntity({
  name: 'custom_domain',
  schema: customDomainRecord,
  key: domainKey,
  keyOf: (record: CustomDomainRecord) => domainKey(record.account_id, record.id),
  collection: { partition: accountPartition, prefix: 'SITEDOMAIN#' },
});

const lookupKey = (hostname: string) => ({ pk: `DOMAIN#${hostname}`, sk: LOOKUP_SK });
export const domainLookupEntity = defineEntity({
  name: 'domain_lookup',
  schema: domainLookupRecord,
  key: lookupKey,
});

/** Work index partitions of the TLS provisioner: domains to set up, and deleted domains to tear down. */
export const DOMAIN_WORK = { tlsPending: 'DOMAINS#tls_pending', deleting: 'DOMAINS#deleting' } as const;

/**
 * An unverified registration holds its hostname this long. After that, a registration of the same
 * hostname (by any account) takes it over and the stale one becomes `failed`, so nobody can squat a
 * name they cannot prove.
 */
export const VERIFICATION_WINDOW_MS = 7 * 24 * 3600 * 1000;
/**
 * A lookup whose domain item is missing this long after it was written is left over from a create
 * that died between its two writes (the api function's timeout is 29 s), and may be taken over.
 */
const ORPHAN_LOOKUP_GRACE_MS = 60_000;
export const EXPIRED_MESSAGE = 'domain was not verified within 7 days and has been released; register it again';

const tableName = () => config().tableName;

/** SET/REMOVE on an item, only when `condition` holds; the item after the update, or undefined. */
async function conditionalUpdate(
  key: Key,
  changes: Record<string, unknown>,
  condition: { expression: string; values: Record<string, unknown> },
  removals: string[] = [],
): Promise<CustomDomainRecord | undefined> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ...condition.values };
  const sets = Object.entries(changes).map(([field, value], i) => {
    names[`#s${i}`] = field;
    values[`:s${i}`] = value;
    return `#s${i} = :s${i}`;
  });
  const removes = removals.map((field, i) => {
    names[`#r${i}`] = field;
    return `#r${i}`;
  });
  // Condition expressions name attributes as #a_<name>.
  for (const match of condition.expression.matchAll(/#a_(\w+)/g)) names[match[0]] = match[1] ?? '';
  try {
    const out = await documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : '']
          .filter(Boolean)
          .join(' '),
        ConditionExpression: condition.expression,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return customDomainEntity.schema.parse(out.Attributes);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

const lookupItem = (record: Pick<CustomDomainRecord, 'domain' | 'account_id' | 'id' | 'created_at'>) =>
  domainLookupEntity.item({ account_id: record.account_id, domain_id: record.id, created_at: record.created_at }, lookupKey(record.domain));

/** Points the hostname's lookup at `record`, but only while it still points at `previous`. */
async function replaceLookup(record: CustomDomainRecord, previous: DomainLookupRecord): Promise<boolean> {
  try {
    await documentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: lookupItem(record),
        ConditionExpression: 'account_id = :account AND domain_id = :domain',
        ExpressionAttributeValues: { ':account': previous.account_id, ':domain': previous.domain_id },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Ends an unverified registration whose window has passed; false when it was verified (or changed) meanwhile. */
async function expireRegistration(holder: CustomDomainRecord, now: Date): Promise<boolean> {
  const failed = await conditionalUpdate(
    domainKey(holder.account_id, holder.id),
    { status: 'failed', verification_error: EXPIRED_MESSAGE, updated_at: now.toISOString() },
    {
      expression: '#a_status = :pending AND #a_created_at = :created',
      values: { ':pending': 'pending_verification', ':created': holder.created_at },
    },
  );
  return failed !== undefined;
}

/**
 * Whether the registration a lookup points at may be replaced: a failed one, an unverified one past
 * its window (failed here first, conditionally, so a concurrent verification wins), or none at all
 * when the lookup is an orphan.
 */
async function releasable(lookup: DomainLookupRecord, now: Date): Promise<boolean> {
  const holder = await findCustomDomain(lookup.account_id, lookup.domain_id);
  if (!holder) return now.getTime() - Date.parse(lookup.created_at) > ORPHAN_LOOKUP_GRACE_MS;
  if (holder.status === 'failed') return true;
  if (holder.status === 'verified' || holder.status === DELETING) return false;
  if (now.getTime() - Date.parse(holder.created_at) <= VERIFICATION_WINDOW_MS) return false;
  return expireRegistration(holder, now);
}

/**
 * Registers a hostname for an account. The global lookup is written first and conditionally, so a
 * hostname belongs to one registration at a time whatever the concurrency; the domain item follows.
 * Returns false when the hostname is held by a live registration (any account, this one included).
 */
export async function registerCustomDomain(record: CustomDomainRecord, now: Date): Promise<boolean> {
  let claimed = await putNew(lookupItem(record));
  for (let round = 0; !claimed && round < 3; round++) {
    const current = await domainLookupEntity.find(record.domain);
    if (!current) {
      claimed = await putNew(lookupItem(record)); // released between our two reads
      continue;
    }
    if (!(await releasable(current, now))) return false;
    claimed = await replaceLookup(record, current);
  }
  if (!claimed) return false;
  const created = await customDomainEntity.create(record);
  if (!created) throw new Error(`custom domain id collision: ${record.id}`);
  return true;
}

/** The account's domain, or undefined (another account's id is simply not in this partition). */
export const findCustomDomain = (accountId: string, domainId: string): Promise<CustomDomainRecord | undefined> =>
  customDomainEntity.find(accountId, domainId);

/** Newest first (ids are UUIDv7). */
export const listCustomDomains = (accountId: string) => customDomainEntity.list(accountId);

const workKey = (at: string, d: Pick<CustomDomainRecord, 'account_id' | 'id'>) => `${at}#${d.account_id}#${d.id}`;

/**
 * Pending → verified, and into the work index where the TLS provisioner finds it. Conditional on the
 * domain still pending, so an expiry or a concurrent verification cannot be overwritten.
 */
export function markDomainVerified(domain: CustomDomainRecord, now: Date): Promise<CustomDomainRecord | undefined> {
  const at = now.toISOString();
  return conditionalUpdate(
    domainKey(domain.account_id, domain.id),
    {
      status: 'verified',
      verified_at: at,
      verification_error: null,
      tls_status: 'pending',
      updated_at: at,
      gsi2pk: DOMAIN_WORK.tlsPending,
      gsi2sk: workKey(at, domain),
    },
    { expression: '#a_status = :pending', values: { ':pending': 'pending_verification' } },
  );
}

/** Keeps the domain pending and records why the last check did not verify it. */
export function recordVerificationFailure(
  domain: CustomDomainRecord,
  message: string,
  now: Date,
): Promise<CustomDomainRecord | undefined> {
  return conditionalUpdate(
    domainKey(domain.account_id, domain.id),
    { verification_error: message, updated_at: now.toISOString() },
    { expression: '#a_status = :pending', values: { ':pending': 'pending_verification' } },
  );
}

/** Verified domains whose TLS set-up is not finished, oldest verification first. */
export const listTlsPendingDomains = (limit: number) => listDomainWork(DOMAIN_WORK.tlsPending, limit);

/** Deleted domains whose AWS resources are still to be removed, oldest deletion first. */
export const listDomainsToTearDown = (limit: number) => listDomainWork(DOMAIN_WORK.deleting, limit);

async function listDomainWork(partition: string, limit: number): Promise<Array<{ accountId: string; domainId: string }>> {
  const found: Array<{ accountId: string; domainId: string }> = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await documentClient().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: TABLE.globalIndexes[1].indexName,
        KeyConditionExpression: 'gsi2pk = :pk',
        ExpressionAttributeValues: { ':pk': partition },
        Limit: limit - found.length,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of out.Items ?? []) {
      const [, accountId, domainId] = String(item.gsi2sk).split('#');
      if (accountId && domainId) found.push({ accountId, domainId });
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey && found.length < limit);
  return found;
}

export type TlsChanges = Partial<
  Pick<CustomDomainRecord, 'tls_status' | 'tls_error' | 'certificate_arn' | 'tls_validation_record' | 'dns_target' | 'api_mapping_done'>
>;

/**
 * Records TLS progress on a domain that is still `tls_status: pending`. When the change settles it
 * (`issued` or `failed`) the domain leaves the work index.
 */
export function updateTlsProgress(
  domain: CustomDomainRecord,
  changes: TlsChanges,
  now: Date,
): Promise<CustomDomainRecord | undefined> {
  const settled = changes.tls_status === 'issued' || changes.tls_status === 'failed';
  return conditionalUpdate(
    domainKey(domain.account_id, domain.id),
    { ...changes, updated_at: now.toISOString() },
    { expression: '#a_tls_status = :tlsPending AND #a_status = :verified', values: { ':tlsPending': 'pending', ':verified': 'verified' } },
    settled ? ['gsi2pk', 'gsi2sk'] : [],
  );
}

/** Deletes a delete-only item when `condition` holds; false when it did not (or the item is gone). */
async function deleteWhen(key: Key, condition: string, values: Record<string, unknown>): Promise<boolean> {
  try {
    await documentClient().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: key,
        ConditionExpression: condition,
        ExpressionAttributeValues: values,
        // Conditions name the status as #status (a reserved word).
        ...(condition.includes('#status') ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * The domain item, then the hostname's lookup while it still points at this registration. In this
 * order a crash between the two leaves an orphan lookup, which a new registration takes over a minute
 * later (`releasable`), and never a domain whose hostname someone else could take.
 */
async function removeItems(domain: CustomDomainRecord, condition: string, values: Record<string, unknown>): Promise<boolean> {
  if (!(await deleteWhen(domainKey(domain.account_id, domain.id), condition, values))) return false;
  await deleteWhen(lookupKey(domain.domain), 'account_id = :account AND domain_id = :domain', {
    ':account': domain.account_id,
    ':domain': domain.id,
  });
  return true;
}

/**
 * Deletes a domain that has no certificate, and frees its hostname. Conditional on it still having
 * none, so a certificate the provisioner recorded meanwhile is never lost track of (false: read it
 * again and tear it down instead).
 */
export const deleteUnprovisionedDomain = (domain: CustomDomainRecord): Promise<boolean> =>
  removeItems(domain, 'attribute_type(certificate_arn, :null)', { ':null': 'NULL' });

/** Deletes a domain the provisioner has torn down, and frees its hostname. */
export const deleteTornDownDomain = (domain: CustomDomainRecord): Promise<boolean> =>
  removeItems(domain, '#status = :deleting', { ':deleting': DELETING });

/**
 * Marks a domain with a certificate as deleted and puts it in the provisioner's work index, which
 * removes what it made in AWS and then the items. Conditional on the certificate it was read with.
 */
export function markDomainDeleting(domain: CustomDomainRecord, now: Date): Promise<CustomDomainRecord | undefined> {
  const at = now.toISOString();
  return conditionalUpdate(
    domainKey(domain.account_id, domain.id),
    { status: DELETING, updated_at: at, gsi2pk: DOMAIN_WORK.deleting, gsi2sk: workKey(at, domain) },
    { expression: '#a_certificate_arn = :arn', values: { ':arn': domain.certificate_arn } },
  );
}
