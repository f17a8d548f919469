import { provisionDomains } from '../custom-domains/provisioning';
import { config } from '../shared/config';
import { log } from '../shared/log';
import { observedHandler } from '../shared/observability';

/**
 * Every 5 minutes (EventBridge, AWS only: the local runtime does not run it, there is no ACM there):
 * certificates, API Gateway custom domains and mappings for verified custom domains.
 */
async function provisionRun() {
  const apiId = config().httpApiId;
  if (!apiId) throw new Error('HOOKGATE_HTTP_API_ID is not set');
  const report = await provisionDomains({ apiId, now: () => new Date() });
  if (report.examined > 0) log.info('custom domains provisioned', { examined: report.examined, ...report.outcomes });
  return report;
}

export const handler = observedHandler(provisionRun);
