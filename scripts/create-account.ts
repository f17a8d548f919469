/**
 * Creates an account and its bootstrap API key directly in the table, for deployments that closed
 * open sign-up (CDK context `signup=closed`). The operator's own AWS credentials are the authority:
 * whoever may write the table may create accounts, and no operator key lives in the API.
 *
 *   export AWS_REGION=eu-west-1   # the stage's region
 *   TABLE_NAME=$(aws cloudformation describe-stacks --stack-name Hookgate-prod-Stateful \
 *     --query "Stacks[0].Outputs[?OutputKey=='TableName'].OutputValue" --output text) \
 *   npm run create-account -- --name Acme --plan pro
 *
 * Prints the account and its key as JSON (the key is shown this once). Against `npm start`, point it
 * at the local table and emulator (`TABLE_NAME`, `AWS_ENDPOINT_URL_DYNAMODB`).
 */
import { parseArgs } from 'node:util';
import { ENV } from '../lambdas/shared/resource-definitions';
import { presentAccount, presentNewApiKey } from '../lambdas/accounts/shapes';
import { PLANS, type Plan } from '../lambdas/domain/plans';
import { Refusal } from '../lambdas/domain/errors';
import { createAccount } from '../lambdas/accounts';
import { documentClient } from '../lambdas/store/client';

const { values } = parseArgs({
  options: { name: { type: 'string' }, plan: { type: 'string' }, 'retention-days': { type: 'string' } },
  strict: true,
});

function fail(message: string): never {
  console.error(`create-account: ${message}`);
  process.exit(2);
}

if (!process.env[ENV.tableName]) fail(`${ENV.tableName} must name the deployment's table (the Stateful stack's TableName output)`);
const plan = values.plan;
if (plan !== undefined && !PLANS.includes(plan as Plan)) fail(`--plan must be one of: ${PLANS.join(', ')}`);
const retentionDays = values['retention-days'] === undefined ? undefined : Number(values['retention-days']);
if (retentionDays !== undefined && !Number.isInteger(retentionDays)) fail('--retention-days must be a whole number');

// Account creation touches the table only; the handlers' other settings do not apply to it.
for (const name of [ENV.deliveryQueueUrl, ENV.payloadBucket, ENV.exportBucket]) process.env[name] ??= 'not-used-by-create-account';

// The SDK reads the region from AWS_REGION or the profile, never from AWS_DEFAULT_REGION, which is
// all an AWS CLI user may have set: the CLI then finds the stack and the write fails with a stack trace.
const region = await documentClient().config.region().catch(() => undefined);
if (!region) fail('no AWS region: set AWS_REGION to the stage\'s region (the SDK does not read AWS_DEFAULT_REGION, which the AWS CLI does)');

try {
  const { account, apiKey, key } = await createAccount({ name: values.name, plan: plan as Plan | undefined, retentionDays }, new Date());
  console.log(JSON.stringify({ account: presentAccount(account), api_key: presentNewApiKey(apiKey, key) }, null, 2));
} catch (error) {
  if (error instanceof Refusal) fail(error.message);
  throw error;
}
