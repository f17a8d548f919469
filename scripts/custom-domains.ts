/**
 * The custom domains a stage's domain provisioner made outside CloudFormation (ACM certificates, API
 * Gateway domain names and their API mappings), which `cdk destroy` leaves behind. Lists them, or
 * removes them, for one HTTP API (the Service stack's `ApiUrl`: `https://<api id>.execute-api…`):
 *
 *   export AWS_REGION=eu-west-1   # the stage's region
 *   API_ID=$(aws cloudformation describe-stacks --stack-name Hookgate-prod-Service \
 *     --query "Stacks[0].Outputs[?OutputKey=='ApiUrl'].OutputValue" --output text | cut -d/ -f3 | cut -d. -f1)
 *   npm run custom-domains -- list --api-id "$API_ID"
 *   npm run custom-domains -- remove --api-id "$API_ID"
 *
 * A domain name is this API's when one of its mappings points at it; only this API's mappings are
 * deleted, then the domain name, then its certificate (ACM refuses one still in use for a while after
 * its domain name goes: that is retried until a deadline). Prints one JSON line per domain; exits 1
 * when anything is left (run it again), 2 on bad arguments.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ApiGatewayV2Client, GetApiMappingsCommand, GetDomainNamesCommand } from '@aws-sdk/client-apigatewayv2';
import { deleteCertificate, removeDomainName } from '../lambdas/adapters/tls-provisioner';

interface StageDomain {
  readonly hostname: string;
  readonly certificateArn: string | null;
}

/** Every API Gateway domain name of the region with a mapping to `apiId`, and the certificate it carries. */
export async function listStageDomains(apiId: string, client = new ApiGatewayV2Client({})): Promise<StageDomain[]> {
  const found: StageDomain[] = [];
  let nextToken: string | undefined;
  do {
    const page = await client.send(new GetDomainNamesCommand({ NextToken: nextToken }));
    for (const domain of page.Items ?? []) {
      if (!domain.DomainName) continue;
      const mappings = await client.send(new GetApiMappingsCommand({ DomainName: domain.DomainName }));
      if (!(mappings.Items ?? []).some((m) => m.ApiId === apiId)) continue;
      found.push({ hostname: domain.DomainName, certificateArn: domain.DomainNameConfigurations?.[0]?.CertificateArn ?? null });
    }
    nextToken = page.NextToken;
  } while (nextToken);
  return found;
}

type Removal = StageDomain & ({ removed: true } | { removed: false; error: string });

/** Removes each domain (mapping, domain name, certificate); a certificate ACM still holds in use is retried until `deadlineMs`. */
export async function removeStageDomains(apiId: string, domains: readonly StageDomain[], opts: { deadlineMs: number; retryDelayMs: number }): Promise<Removal[]> {
  const results: Removal[] = [];
  for (const domain of domains) {
    try {
      if (domain.certificateArn === null) throw new Error('the domain name carries no certificate: remove it by hand');
      await removeDomainName(domain.hostname, domain.certificateArn, apiId);
      const certificateArn = domain.certificateArn;
      const deadline = Date.now() + opts.deadlineMs;
      for (;;) {
        try {
          await deleteCertificate(certificateArn);
          break;
        } catch (error) {
          if ((error as { name?: string }).name !== 'ResourceInUseException' || Date.now() >= deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, opts.retryDelayMs));
        }
      }
      results.push({ ...domain, removed: true });
    } catch (error) {
      results.push({ ...domain, removed: false, error: `${(error as { name?: string }).name ?? 'Error'}: ${(error as Error).message}` });
    }
  }
  return results;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ options: { 'api-id': { type: 'string' } }, allowPositionals: true, strict: true });
  const [command] = positionals;
  const apiId = values['api-id'];
  if ((command !== 'list' && command !== 'remove') || !apiId || !/^[a-z0-9]{10}$/.test(apiId)) {
    console.error('usage: npm run custom-domains -- list|remove --api-id <the HTTP API id, 10 characters>');
    process.exit(2);
  }
  if (!process.env.AWS_REGION) {
    console.error('custom-domains: no AWS region: set AWS_REGION to the stage’s region');
    process.exit(2);
  }
  const domains = await listStageDomains(apiId);
  if (command === 'list') {
    for (const domain of domains) console.log(JSON.stringify(domain));
    return;
  }
  const results = await removeStageDomains(apiId, domains, { deadlineMs: 5 * 60_000, retryDelayMs: 15_000 });
  for (const result of results) console.log(JSON.stringify(result));
  if (results.some((r) => !r.removed)) process.exit(1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
