import type { SQSClientConfig } from '@aws-sdk/client-sqs';
import type { AwsTarget } from '../domain/aws-targets';

/**
 * Whose credentials sign an AWS destination's calls, and the key its clients are cached under (one
 * client per set of credentials, so no call ever borrows another's). Every AWS delivery asks here and
 * nowhere else: today each target is reached with the deliver function's own role (the SDK's default
 * chain, `provider` undefined), granted by the stack; a destination in another account will get the
 * role it assumes through its connection here, and nothing else changes.
 */
export interface AwsCredentials {
  key: string;
  /** As every v3 client takes it (the same type in each); undefined: the default chain. */
  provider?: SQSClientConfig['credentials'];
}

const OWN_ROLE: AwsCredentials = { key: 'own-role' };

export const credentialsFor = (_target: AwsTarget): AwsCredentials => OWN_ROLE;
