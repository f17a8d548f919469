import { log } from '../shared/log';
import {
  DELETING,
  deleteTornDownDomain,
  findCustomDomain,
  listDomainsToTearDown,
  listTlsPendingDomains,
  updateTlsProgress,
  type CustomDomainRecord,
  type TlsChanges,
} from './record';

/**
 * ACM and API Gateway, loaded when a domain has a step to take: most runs find none, and their two
 * SDK clients were a fifth of the function's bundle at every cold start.
 */
const tlsProvisioner = () => import('../adapters/tls-provisioner');

/** Domains looked at per run; the rest wait for the next run (every 5 minutes). */
const DOMAINS_PER_RUN = 50;

/** ACM states after which the certificate will never be issued. */
const CERTIFICATE_DEAD = new Set(['FAILED', 'VALIDATION_TIMED_OUT', 'REVOKED', 'EXPIRED', 'INACTIVE']);

type DomainOutcome = 'requested' | 'waiting' | 'issued' | 'failed' | 'removed' | 'skipped' | 'error';

export interface ProvisionReport {
  examined: number;
  outcomes: Record<DomainOutcome, number>;
}

/** ACM's idempotency token: word characters only, at most 32 (a UUID without its dashes). */
const idempotencyToken = (domain: CustomDomainRecord) => domain.id.replaceAll('-', '').slice(0, 32);

const sameRecord = (a: CustomDomainRecord['tls_validation_record'], b: CustomDomainRecord['tls_validation_record']) =>
  a?.type === b?.type && a?.name === b?.name && a?.value === b?.value;

/**
 * One step of one domain's TLS set-up. Every step is recorded before the next starts and every AWS
 * call is idempotent (a stable ACM idempotency token; existing API Gateway domains and mappings are
 * recognised), so a run that dies anywhere is finished by the next one.
 *
 *   no certificate → RequestCertificate (DNS validation), ARN stored
 *   PENDING_VALIDATION → its validation CNAME stored for the customer
 *   ISSUED → CreateDomainName (REGIONAL) → dns_target stored → CreateApiMapping ($default) → issued
 *   FAILED / timed out / revoked … → failed, with ACM's reason
 */
async function provisionDomain(
  initial: CustomDomainRecord,
  opts: { apiId: string; now: () => Date },
): Promise<DomainOutcome> {
  const { deleteCertificate, describeCertificate, ensureApiMapping, ensureDomainName, requestCertificate, TlsSetupError } = await tlsProvisioner();
  let domain = initial;
  const save = async (changes: TlsChanges): Promise<boolean> => {
    const updated = await updateTlsProgress(domain, changes, opts.now());
    if (updated) domain = updated;
    return updated !== undefined;
  };
  try {
    let outcome: DomainOutcome = 'waiting';
    if (!domain.certificate_arn) {
      const arn = await requestCertificate(domain.domain, idempotencyToken(domain));
      if (!(await save({ certificate_arn: arn }))) {
        // Deleted while it had no certificate (its items went at once): nobody else knows this one.
        if (!(await findCustomDomain(domain.account_id, domain.id))) await deleteCertificate(arn);
        return 'skipped';
      }
      outcome = 'requested';
    }
    const certificateArn = domain.certificate_arn ?? '';
    const certificate = await describeCertificate(certificateArn);
    const record = certificate.validationRecord ?? domain.tls_validation_record;
    if (record && !sameRecord(record, domain.tls_validation_record)) {
      if (!(await save({ tls_validation_record: record }))) return 'skipped';
    }
    if (CERTIFICATE_DEAD.has(certificate.status)) {
      const reason = `certificate ${certificate.status.toLowerCase()}${certificate.failureReason ? `: ${certificate.failureReason}` : ''}`;
      return (await save({ tls_status: 'failed', tls_error: reason })) ? 'failed' : 'skipped';
    }
    if (certificate.status !== 'ISSUED') return outcome;

    if (!domain.dns_target) {
      const target = await ensureDomainName(domain.domain, certificateArn);
      if (!(await save({ dns_target: target }))) return 'skipped';
    }
    if (!domain.api_mapping_done) await ensureApiMapping(domain.domain, opts.apiId);
    return (await save({ api_mapping_done: true, tls_status: 'issued', tls_error: null })) ? 'issued' : 'skipped';
  } catch (error) {
    if (!(error instanceof TlsSetupError)) throw error;
    log.warn('custom domain TLS set-up failed', { account_id: domain.account_id, domain_id: domain.id, reason: error.reason }, error.awsError);
    return (await save({ tls_status: 'failed', tls_error: error.reason })) ? 'failed' : 'skipped';
  }
}

/**
 * Removes a deleted domain from AWS (the mapping and domain name, then the certificate, which ACM
 * deletes only once nothing uses it), then its items, which frees the hostname. Each step tolerates
 * one already done, so a failed step is simply retried on the next run.
 */
async function tearDownDomain(domain: CustomDomainRecord, opts: { apiId: string }): Promise<DomainOutcome> {
  if (domain.certificate_arn) {
    const { deleteCertificate, removeDomainName } = await tlsProvisioner();
    await removeDomainName(domain.domain, domain.certificate_arn, opts.apiId);
    await deleteCertificate(domain.certificate_arn);
  }
  return (await deleteTornDownDomain(domain)) ? 'removed' : 'skipped';
}

/**
 * Works through deleted domains to remove from AWS, then verified domains whose TLS is pending (the sparse work index). A domain whose step
 * fails for a passing reason (throttling, a 5xx) is logged and left for the next run; one domain
 * never holds up the others.
 */
export async function provisionDomains(opts: { apiId: string; now: () => Date; limit?: number }): Promise<ProvisionReport> {
  const report: ProvisionReport = {
    examined: 0,
    outcomes: { requested: 0, waiting: 0, issued: 0, failed: 0, removed: 0, skipped: 0, error: 0 },
  };
  const limit = opts.limit ?? DOMAINS_PER_RUN;
  const visit = async (work: Array<{ accountId: string; domainId: string }>, step: (d: CustomDomainRecord) => Promise<DomainOutcome>) => {
    for (const { accountId, domainId } of work) {
      report.examined += 1;
      let outcome: DomainOutcome;
      try {
        // The index is eventually consistent and keys only: the item itself says what is left to do.
        const domain = await findCustomDomain(accountId, domainId);
        outcome = domain ? await step(domain) : 'skipped';
      } catch (error) {
        log.error('custom domain TLS step failed; retried next run', { account_id: accountId, domain_id: domainId }, error);
        outcome = 'error';
      }
      report.outcomes[outcome] += 1;
    }
  };
  // Teardowns first: a deleted domain holds its hostname until its teardown is done.
  await visit(await listDomainsToTearDown(limit), (d) => (d.status === DELETING ? tearDownDomain(d, opts) : Promise.resolve('skipped')));
  const left = limit - report.examined;
  await visit(left > 0 ? await listTlsPendingDomains(left) : [], (d) =>
    d.status === 'verified' && d.tls_status === 'pending' ? provisionDomain(d, opts) : Promise.resolve('skipped'),
  );
  return report;
}
