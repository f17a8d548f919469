import * as z from 'zod/mini';
import { config } from '../shared/config';
import { defineEntity, type Key } from '../store/entity';
import { accountPartition, LOOKUP_SK } from '../store/keys';
import { deleteItem, INDEX, putItem, putNew, queryAll, updateItem, type Condition } from '../store/table';
import { ForgetfulCache } from '../store/forgetful-cache';
import { hostnameStanding, VERIFIED_ELSEWHERE } from '../domain/domain-ownership';
import { DOMAIN_STATUSES, TLS_STATUSES } from '../domain/vocabulary';

/** A deleted domain whose AWS resources the provisioner is removing: never shown, its hostname still held. */
export const DELETING = 'deleting';

const dnsRecord = z.object({ type: z.string(), name: z.string(), value: z.string() });

/** A registration of a hostname by an account: its ownership check, then its TLS set-up (./provisioning.ts). */
const customDomainRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  domain: z.string(),
  verification_token: z.string(),
  status: z.enum([...DOMAIN_STATUSES, DELETING]),
  verification_error: z.nullable(z.string()),
  verified_at: z.nullable(z.string()),
  tls_status: z.enum(TLS_STATUSES),
  tls_error: z.nullable(z.string()),
  certificate_arn: z.nullable(z.string()),
  tls_validation_record: z.nullable(dnsRecord),
  dns_target: z.nullable(z.string()),
  api_mapping_done: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type CustomDomainRecord = z.infer<typeof customDomainRecord>;

const domainLookupRecord = z.object({
  account_id: z.string(),
  domain_id: z.string(),
  created_at: z.string(),
});
type DomainLookupRecord = z.infer<typeof domainLookupRecord>;

/**
 * One item per domain in the account's partition (outside the routing range, so the routing table's
 * query never reads them), plus a global lookup per hostname, written when a registration verifies,
 * that makes a verified hostname belong to one registration. The lookup holds a pointer, no tenant data.
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

/** Sets and removes attributes of a domain, only when `condition` holds; the domain after the update, or undefined. */
async function conditionalUpdate(
  key: Key,
  set: Record<string, unknown>,
  condition: Condition,
  remove: string[] = [],
): Promise<CustomDomainRecord | undefined> {
  const updated = await updateItem(key, { set, remove }, { condition, returnValues: 'ALL_NEW' });
  return updated === false ? undefined : customDomainEntity.schema.parse(updated);
}

/** The hostname's lookup, pointing at `record`; `created_at` is when the lookup was written (its claim). */
const lookupItem = (record: Pick<CustomDomainRecord, 'domain' | 'account_id' | 'id'>, now: Date) =>
  domainLookupEntity.item({ account_id: record.account_id, domain_id: record.id, created_at: now.toISOString() }, lookupKey(record.domain));

/** Points the hostname's lookup at `record`, but only while it still points at `previous`. */
async function replaceLookup(record: CustomDomainRecord, previous: DomainLookupRecord, now: Date): Promise<boolean> {
  return putItem(lookupItem(record, now), {
    expression: 'account_id = :account AND domain_id = :domain',
    values: { ':account': previous.account_id, ':domain': previous.domain_id },
  });
}

/** The lookup of a hostname and what it stands for (see `hostnameStanding`). */
async function readHostname(hostname: string, now: Date) {
  const lookup = await domainLookupEntity.find(hostname);
  if (!lookup) return undefined;
  const holder = await findCustomDomain(lookup.account_id, lookup.domain_id);
  return { lookup, holder, standing: hostnameStanding(holder?.status, now.getTime() - Date.parse(lookup.created_at)) };
}

const live = (d: CustomDomainRecord) => d.status !== 'failed';

/**
 * Registers a hostname for an account, pending verification. Only a verified hostname is exclusive:
 * any number of accounts may hold pending registrations of it, and the first to verify owns it.
 * Returns false when the hostname is owned (verified, or deleted and still being torn down) or the
 * account already has a live registration of it.
 */
export async function registerCustomDomain(record: CustomDomainRecord, now: Date): Promise<boolean> {
  if ((await readHostname(record.domain, now))?.standing === 'owned') return false;
  if ((await listCustomDomains(record.account_id)).some((d) => d.domain === record.domain && live(d))) return false;
  const created = await customDomainEntity.create(record);
  if (!created) throw new Error(`custom domain id collision: ${record.id}`);
  return true;
}

/**
 * Takes the hostname's lookup for `domain`: written conditionally, so of two registrations verifying
 * at once exactly one gets it. A lookup already pointing at `domain` is its own, left by an attempt
 * that died before marking the domain verified. False when another registration owns it or is
 * claiming it right now.
 */
async function claimHostname(domain: CustomDomainRecord, now: Date): Promise<boolean> {
  for (let round = 0; round < 3; round++) {
    if (await putNew(lookupItem(domain, now))) return true;
    const current = await readHostname(domain.domain, now);
    if (!current) continue; // released between our two calls
    if (current.lookup.account_id === domain.account_id && current.lookup.domain_id === domain.id) return true;
    if (current.standing !== 'released') return false;
    if (await replaceLookup(domain, current.lookup, now)) return true;
  }
  return false;
}

/**
 * The account a hostname is bound to: the owner of its verified registration (or of a deleted one
 * still being torn down, which API Gateway may still serve), else null. Cached per process for the
 * route cache's time (HOOKGATE_ROUTE_CACHE_SECONDS, 5 s by default), as sources' tokens are: a
 * verification or removal is seen at once by the function that made it (locally, by every handler)
 * and within that time by the others. Negative answers are cached too, so the API's own hostname
 * costs one pair of reads per cache time.
 */
const hostOwners = new ForgetfulCache<string | null>(() => config().routeCacheSeconds * 1000);
export const findHostOwner = (hostname: string, now: Date): Promise<string | null> =>
  hostOwners.get(hostname, async () => {
    const current = await readHostname(hostname, now);
    return current?.standing === 'owned' && current.holder ? current.holder.account_id : null;
  });

/** The account's domain, or undefined (another account's id is simply not in this partition). */
export const findCustomDomain = (accountId: string, domainId: string): Promise<CustomDomainRecord | undefined> =>
  customDomainEntity.find(accountId, domainId);

/** Newest first (ids are UUIDv7). */
export const listCustomDomains = (accountId: string) => customDomainEntity.list(accountId);

const workKey = (at: string, d: Pick<CustomDomainRecord, 'account_id' | 'id'>) => `${at}#${d.account_id}#${d.id}`;

/**
 * Pending → verified, and into the work index where the TLS provisioner finds it. Conditional on the
 * domain still pending, so a concurrent verification or deletion cannot be overwritten.
 */
async function markDomainVerified(domain: CustomDomainRecord, now: Date): Promise<CustomDomainRecord | undefined> {
  const at = now.toISOString();
  const verified = await conditionalUpdate(
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
    { expression: '#status = :pending', values: { ':pending': 'pending_verification' } },
  );
  if (verified) hostOwners.forget(domain.domain);
  return verified;
}

/**
 * A pending registration whose TXT record was found: the first to verify takes the hostname and owns
 * it; one that finds it owned by another registration (or being taken right now) fails for good with
 * VERIFIED_ELSEWHERE. The domain after the change, or undefined when a concurrent change won.
 */
export async function verifyRegistration(domain: CustomDomainRecord, now: Date): Promise<CustomDomainRecord | undefined> {
  if (!(await claimHostname(domain, now))) return failRegistration(domain, now);
  const verified = await markDomainVerified(domain, now);
  // Deleted while we claimed: give the hostname back now, not after the grace.
  if (!verified && !(await findCustomDomain(domain.account_id, domain.id))) await releaseLookup(domain);
  return verified;
}

/** Whether another registration owns the domain's hostname (or is taking it right now). */
export async function verifiedElsewhere(domain: CustomDomainRecord, now: Date): Promise<boolean> {
  const current = await readHostname(domain.domain, now);
  if (!current || current.standing === 'released') return false;
  return current.lookup.account_id !== domain.account_id || current.lookup.domain_id !== domain.id;
}

/** Pending → failed for good: another registration verified the hostname first. */
export const failRegistration = (domain: CustomDomainRecord, now: Date): Promise<CustomDomainRecord | undefined> =>
  conditionalUpdate(
    domainKey(domain.account_id, domain.id),
    { status: 'failed', verification_error: VERIFIED_ELSEWHERE, updated_at: now.toISOString() },
    { expression: '#status = :pending', values: { ':pending': 'pending_verification' } },
  );

/** Keeps the domain pending and records why the last check did not verify it. */
export function recordVerificationFailure(
  domain: CustomDomainRecord,
  message: string,
  now: Date,
): Promise<CustomDomainRecord | undefined> {
  return conditionalUpdate(
    domainKey(domain.account_id, domain.id),
    { verification_error: message, updated_at: now.toISOString() },
    { expression: '#status = :pending', values: { ':pending': 'pending_verification' } },
  );
}

/** Verified domains whose TLS set-up is not finished, oldest verification first. */
export const listTlsPendingDomains = (limit: number) => listDomainWork(DOMAIN_WORK.tlsPending, limit);

/** Deleted domains whose AWS resources are still to be removed, oldest deletion first. */
export const listDomainsToTearDown = (limit: number) => listDomainWork(DOMAIN_WORK.deleting, limit);

async function listDomainWork(partition: string, limit: number): Promise<Array<{ accountId: string; domainId: string }>> {
  const items = await queryAll({ IndexName: INDEX.work, KeyConditionExpression: 'gsi2pk = :pk', ExpressionAttributeValues: { ':pk': partition } }, limit);
  return items.flatMap((item) => {
    const [, accountId, domainId] = String(item.gsi2sk).split('#');
    return accountId && domainId ? [{ accountId, domainId }] : [];
  });
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
    { expression: '#tls_status = :tlsPending AND #status = :verified', values: { ':tlsPending': 'pending', ':verified': 'verified' } },
    settled ? ['gsi2pk', 'gsi2sk'] : [],
  );
}

/** Deletes a delete-only item when `condition` holds; false when it did not (or the item is gone). */
const deleteWhen = async (key: Key, condition: Condition): Promise<boolean> => (await deleteItem(key, { condition })) !== false;

/**
 * The domain item, then the hostname's lookup while it still points at this registration (a pending
 * one has none). In this order a crash between the two leaves an orphan lookup, which the next
 * verification takes over a minute later (`hostnameStanding`), and never a domain whose hostname
 * someone else could take.
 */
async function removeItems(domain: CustomDomainRecord, condition: Condition): Promise<boolean> {
  if (!(await deleteWhen(domainKey(domain.account_id, domain.id), condition))) return false;
  await releaseLookup(domain);
  return true;
}

/** Deletes the hostname's lookup while it points at `domain`. */
async function releaseLookup(domain: CustomDomainRecord): Promise<void> {
  await deleteWhen(lookupKey(domain.domain), {
    expression: 'account_id = :account AND domain_id = :domain',
    values: { ':account': domain.account_id, ':domain': domain.id },
  });
  hostOwners.forget(domain.domain);
}

/**
 * Deletes a domain that has no certificate, and frees its hostname. Conditional on it still having
 * none, so a certificate the provisioner recorded meanwhile is never lost track of (false: read it
 * again and tear it down instead).
 */
export const deleteUnprovisionedDomain = (domain: CustomDomainRecord): Promise<boolean> =>
  removeItems(domain, { expression: 'attribute_type(certificate_arn, :null)', values: { ':null': 'NULL' } });

/** Deletes a domain the provisioner has torn down, and frees its hostname. */
export const deleteTornDownDomain = (domain: CustomDomainRecord): Promise<boolean> =>
  removeItems(domain, { expression: '#status = :deleting', values: { ':deleting': DELETING } });

/**
 * Marks a domain with a certificate as deleted and puts it in the provisioner's work index, which
 * removes what it made in AWS and then the items. Conditional on the certificate it was read with.
 */
export function markDomainDeleting(domain: CustomDomainRecord, now: Date): Promise<CustomDomainRecord | undefined> {
  const at = now.toISOString();
  return conditionalUpdate(
    domainKey(domain.account_id, domain.id),
    { status: DELETING, updated_at: at, gsi2pk: DOMAIN_WORK.deleting, gsi2sk: workKey(at, domain) },
    { expression: '#certificate_arn = :arn', values: { ':arn': domain.certificate_arn } },
  );
}
