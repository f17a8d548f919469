import { readFileSync } from 'node:fs';
import { ENV } from '../lambdas/shared/resource-definitions';
import { LOCAL_ACCOUNT_ID, LOCAL_CREDENTIALS, LOCAL_REGION, type EmulatorEndpoints } from './aws-clients';
import type { LocalResources } from './resources';

/** What the CDK stack would set on the functions, pointed at the emulators. */
export function handlerEnv(
  resources: LocalResources,
  endpoints: EmulatorEndpoints,
  publicUrl: string,
): Record<string, string> {
  return {
    [ENV.tableName]: resources.tableName,
    [ENV.deliveryQueueUrl]: resources.deliveryQueueUrl,
    [ENV.deliveryDlqUrl]: resources.deliveryDlqUrl,
    [ENV.payloadBucket]: resources.payloadBucket,
    [ENV.exportBucket]: resources.exportBucket,
    [ENV.publicUrl]: publicUrl,
    [ENV.version]: packageVersion(),
    [ENV.s3ForcePathStyle]: 'true',
    // The roles local/iam gives the two functions, which a connection's trust policy names (verify needs STS, which the runtime lacks).
    [ENV.awsPrincipals]: `arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/hookgate-local-deliver,arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/hookgate-local-api`,
    // Locally every account is the operator's: AWS destinations to the emulators need no role.
    [ENV.ownRoleAccounts]: '*',
    // dynalite has no TTL: locally the sweeper deletes what TTL would, as soon as it is out of its window.
    [ENV.ttlLagSeconds]: '0',
    HOOKGATE_LOCAL: '1', // human-readable logs, as outside Lambda, even if AWS_LAMBDA_FUNCTION_NAME is set
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_SQS: endpoints.sqs,
    AWS_ENDPOINT_URL_S3: endpoints.s3,
    // s3rver stores the SDK's default aws-chunked checksum framing as part of streamed objects.
    AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
    AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
  };
}

/** What the CDK app sets on the functions (lib/app-builder.ts): the delivery User-Agent carries it. */
function packageVersion(): string {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return version;
}

/** Sets the variables on this process; a real session token would not match the dummy keys. */
export function applyEnv(env: Record<string, string>): void {
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  Object.assign(process.env, env);
}
