import type { AwsCredentials } from '../aws-credentials';

/** What every v3 client is built with here; each service's module passes its own constructor. */
export interface TargetClientConfig {
  region?: string;
  credentials?: AwsCredentials['provider'];
  maxAttempts: number;
}

/**
 * Throttling and 5xx answers are retried within the try by the SDK's standard strategy (with backoff,
 * inside the try's timeout); anything else comes back at once. Either way a try that still fails is
 * the pipeline's to retry on the destination's schedule.
 */
const SDK_ATTEMPTS = 3;

const clients = new Map<string, unknown>();

/**
 * One client per service, region and set of credentials, kept for the life of the process (keep-alive
 * connections, cached credentials). Region null: the deployment's own (`AWS_REGION`).
 */
export function targetClient<C>(service: string, region: string | null, credentials: AwsCredentials, make: (config: TargetClientConfig) => C): C {
  const key = `${service}|${region ?? ''}|${credentials.key}`;
  let client = clients.get(key) as C | undefined;
  if (!client) {
    client = make({ ...(region !== null && { region }), ...(credentials.provider && { credentials: credentials.provider }), maxAttempts: SDK_ATTEMPTS });
    clients.set(key, client);
  }
  return client;
}
