import { randomBytes } from 'node:crypto';
import { txtResolver } from '../adapters/dns-txt';
import { invalid } from '../domain/errors';
import { verificationRecordName } from '../domain/hostname';
import { refused, type NotFound, type Refused } from '../domain/outcomes';
import { newId } from '../shared/secrets';
import {
  DELETING,
  deleteUnprovisionedDomain,
  failRegistration,
  findCustomDomain,
  listCustomDomains,
  markDomainDeleting,
  recordVerificationFailure,
  registerCustomDomain,
  verifiedElsewhere,
  verifyRegistration,
  type CustomDomainRecord,
} from './record';
import { domainRemoval } from './removal';

/**
 * A custom domain's life through the management API: register, show, verify its TXT record, delete.
 * Its TLS set-up and the teardown of a deleted one's AWS resources are the provisioner's (./provisioning.ts).
 */

export type ShownDomain = CustomDomainRecord & { status: Exclude<CustomDomainRecord['status'], typeof DELETING> };

/** A deleted domain whose teardown is under way is gone for the API (its id is a 404). */
const shown = (d: CustomDomainRecord | undefined): d is ShownDomain => d !== undefined && d.status !== DELETING;

export async function showDomain(accountId: string, domainId: string): Promise<ShownDomain | undefined> {
  const domain = await findCustomDomain(accountId, domainId);
  return shown(domain) ? domain : undefined;
}

/** The account's domains, newest first. */
export const listDomains = async (accountId: string): Promise<ShownDomain[]> => (await listCustomDomains(accountId)).filter(shown);

/** `hgv_` + base64url of 24 random bytes: what the customer publishes in the TXT record. */
const newVerificationToken = () => `hgv_${randomBytes(24).toString('base64url')}`;

/** `hostname` is normalised already (lambdas/domain/hostname.ts). */
export async function registerDomain(accountId: string, hostname: string, now: Date): Promise<{ kind: 'created'; domain: ShownDomain } | Refused> {
  const at = now.toISOString();
  const domain: ShownDomain = {
    id: newId(),
    account_id: accountId,
    domain: hostname,
    verification_token: newVerificationToken(),
    status: 'pending_verification',
    verification_error: null,
    verified_at: null,
    tls_status: 'pending',
    tls_error: null,
    certificate_arn: null,
    tls_validation_record: null,
    dns_target: null,
    api_mapping_done: false,
    created_at: at,
    updated_at: at,
  };
  if (!(await registerCustomDomain(domain, now))) return refused(invalid('domain already registered'));
  return { kind: 'created', domain };
}

/** Why a check did not verify the domain, in words the customer can act on. */
function verificationFailure(domain: CustomDomainRecord, records: string[]): string {
  const name = verificationRecordName(domain.domain);
  return records.length === 0
    ? `no TXT record found at ${name}`
    : `the TXT records at ${name} do not contain the verification token`;
}

/** Verified when the TXT record holds the token (unless another registration wins meanwhile), else the reason kept on the domain. */
async function checkTxtRecord(domain: CustomDomainRecord, now: Date): Promise<CustomDomainRecord | undefined> {
  const records = await txtResolver()(verificationRecordName(domain.domain));
  return records.some((r) => r.trim() === domain.verification_token)
    ? verifyRegistration(domain, now)
    : recordVerificationFailure(domain, verificationFailure(domain, records), now);
}

/**
 * Checks the TXT record now, for a domain pending verification (a verified or failed one comes back
 * as it is). Not found is no failure: the domain stays pending, `verification_error` saying why.
 */
export async function verifyDomain(accountId: string, domainId: string, now: Date): Promise<{ kind: 'checked'; domain: ShownDomain } | NotFound> {
  const domain = await showDomain(accountId, domainId);
  if (!domain) return { kind: 'not_found' };
  if (domain.status !== 'pending_verification') return { kind: 'checked', domain };
  const updated = (await verifiedElsewhere(domain, now)) ? await failRegistration(domain, now) : await checkTxtRecord(domain, now);
  // A concurrent change (a parallel verification, a deletion) won: show the domain as it now is.
  const current = shown(updated) ? updated : await showDomain(accountId, domain.id);
  return current ? { kind: 'checked', domain: current } : { kind: 'not_found' };
}

/** Gone from the API at once; one with a certificate keeps its hostname until the provisioner has torn it down. */
export async function removeDomain(accountId: string, domainId: string, now: Date): Promise<{ kind: 'deleted' } | NotFound> {
  const domain = await showDomain(accountId, domainId);
  if (!domain) return { kind: 'not_found' };
  if (domainRemoval(domain) === 'delete_now' && (await deleteUnprovisionedDomain(domain))) return { kind: 'deleted' };
  // It has a certificate, or the provisioner recorded one since it was read. A mark that finds the
  // domain gone or changed lost to a concurrent delete, which has done the work.
  const current = await findCustomDomain(accountId, domain.id);
  if (current && current.status !== DELETING) await markDomainDeleting(current, now);
  return { kind: 'deleted' };
}
