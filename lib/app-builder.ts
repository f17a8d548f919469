import { readFileSync } from 'node:fs';
import { App, Tags, Validations, type AppProps, type Environment } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { HookgateNagChecks } from './nag';
import { ServiceStack, type ApiGatewayCloudWatchRole } from './service-stack';
import { StatefulStack, type TableCapacity } from './stateful-stack';

/**
 * Feature flags the stacks are written against. Given as `context`, so cdk.json or --context
 * still wins, and tests that build the app through createApp() get the same templates as synth.
 */
const FEATURE_FLAGS = {
  '@aws-cdk/aws-iam:minimizePolicies': true,
  '@aws-cdk/core:checkSecretUsage': true,
  '@aws-cdk/core:enablePartitionLiterals': true,
  // Access log delivery through a bucket policy; the legacy ACL grant fails on new buckets.
  '@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy': true,
  // Fn::GetStackOutput instead of exports: the stateful stack never gets locked by its consumer.
  '@aws-cdk/core:defaultCrossStackReferences': 'weak',
} as const;

export function createApp(props: AppProps = {}): App {
  return new App({ ...props, context: { ...FEATURE_FLAGS, ...props.context } });
}

export interface BuildAppOptions {
  /** Lower-case name of the deployment, part of the stack names: `Hookgate-<stage>-…`. */
  readonly stage: string;
  /** @default CDK_DEFAULT_ACCOUNT / CDK_DEFAULT_REGION when set, else environment-agnostic */
  readonly env?: Environment;
  /** @default the version in package.json */
  readonly version?: string;
  /** Register the cdk-nag AwsSolutions checks. @default true */
  readonly nag?: boolean;
  /** HOOKGATE_RETRY_SCHEDULE, comma-separated seconds. @default unset: the handlers' default schedule */
  readonly retrySchedule?: string;
  /** An address subscribed to the alarm topic. @default no subscription */
  readonly alarmEmail?: string;
  /**
   * Days the functions' logs and the API access logs are kept: a value CloudWatch Logs accepts
   * (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288,
   * 3653). @default 30
   */
  readonly logRetentionDays?: number;
  /** Batches the delivery queue's event source mapping runs at once (2 to 1,000). @default DELIVERY_QUEUE.maxConcurrency */
  readonly deliverMaxConcurrency?: number;
  /** Seconds the deliver mapping gathers a batch before it invokes (0 to 300). @default DELIVERY_QUEUE.batchingWindowSeconds */
  readonly deliverBatchingWindowSeconds?: number;
  /**
   * Percent of the deliver batches one account's tries under concurrency slots (slow, failing or new
   * destinations) may hold at once (1 to 100). @default DEFAULT_ACCOUNT_SHARE_PERCENT (25)
   */
  readonly deliverAccountSharePercent?: number;
  /** `closed` refuses `POST /v1/accounts`; an operator then creates accounts with `npm run create-account`. @default 'open' */
  readonly signup?: 'open' | 'closed';
  /** Every http destination, the account's own too, proves its endpoint's ownership before it is sent anything. @default false: customers' endpoints only */
  readonly requireEndpointVerification?: boolean;
  /** Most endpoints one customer of an account may have. @default 20 */
  readonly maxEndpointsPerCustomer?: number;
  /** Most endpoints one account may have. @default 10,000 */
  readonly maxEndpointsPerAccount?: number;
  /** How the table pays for reads and writes. @default 'on-demand' */
  readonly billingMode?: 'on-demand' | 'provisioned';
  /**
   * Auto scaling bounds of the table and of each index, in capacity units, when `billingMode` is
   * provisioned. @default PROVISIONED_CAPACITY_DEFAULTS
   */
  readonly minReadCapacity?: number;
  readonly maxReadCapacity?: number;
  readonly minWriteCapacity?: number;
  readonly maxWriteCapacity?: number;
  /** Share of the requests X-Ray traces, from 0 to 1. @default 0.01 */
  readonly tracingSampleRate?: number;
  /**
   * Requests a second `POST /ingest/{token}` takes, and the burst above that, before API Gateway answers
   * 429. @default DEFAULT_ROUTE_THROTTLES.ingest (1,000, burst 500)
   */
  readonly ingestRateLimit?: number;
  readonly ingestBurstLimit?: number;
  /** The same for the management API (`ANY /{proxy+}`). @default DEFAULT_ROUTE_THROTTLES.management (200, burst 100) */
  readonly managementRateLimit?: number;
  readonly managementBurstLimit?: number;
  /** The same for sign-up (`POST /v1/accounts`). @default DEFAULT_ROUTE_THROTTLES.signup (1, burst 5) */
  readonly signupRateLimit?: number;
  readonly signupBurstLimit?: number;
  /** Concurrent executions reserved for the ingest function (also its ceiling). @default none reserved */
  readonly ingestReservedConcurrency?: number;
  /** The same for the deliver function; at least `deliverMaxConcurrency`. @default none reserved */
  readonly deliverReservedConcurrency?: number;
  /** ARNs of the same-account targets AWS destinations may deliver to (docs/aws-destinations.md). @default none */
  readonly awsDestinationTargets?: readonly string[];
  /** Hookgate account ids whose AWS destinations may use those targets without a role (`*`: every account). @default none */
  readonly awsOwnRoleAccounts?: readonly string[];
  /**
   * Who provides the region's API Gateway CloudWatch Logs role, without which the listen WebSocket stage
   * cannot keep an access log (ApiGatewayCloudWatchRole). @default 'none': that stage keeps none
   */
  readonly apiGatewayCloudWatchRole?: ApiGatewayCloudWatchRole;
  /** Any new value forces the Service stack to read the Stateful stack's outputs again (ServiceStackProps). @default none */
  readonly statefulRecreated?: string;
}

/**
 * Five units a second cost ~$2.34 a month of writes and ~$0.47 of reads per table or index (30 days): a small floor.
 * 4,000 leaves ingest's route throttle (1,000 requests/s) room on the table; each index scales on its own.
 */
export const PROVISIONED_CAPACITY_DEFAULTS = {
  minReadCapacity: 5,
  maxReadCapacity: 4000,
  minWriteCapacity: 5,
  maxWriteCapacity: 4000,
} as const;

export interface HookgateStacks {
  readonly stateful: StatefulStack;
  readonly service: ServiceStack;
}

const STAGE_PATTERN = /^[a-z][a-z0-9-]{0,19}$/;

/** `app` is usually the App; any construct above the stacks (a Stage) gives the same stack contents. */
export function buildApp(app: Construct, opts: BuildAppOptions): HookgateStacks {
  if (!STAGE_PATTERN.test(opts.stage)) {
    throw new Error(`stage must match ${STAGE_PATTERN.source}, got "${opts.stage}"`);
  }
  const logRetention = opts.logRetentionDays === undefined ? undefined : retentionDays(opts.logRetentionDays);
  const env = opts.env ?? environmentFromCli();
  const prefix = `Hookgate-${opts.stage}`;

  const stateful = new StatefulStack(app, `${prefix}-Stateful`, {
    env,
    description: `Hookgate ${opts.stage}: table, delivery queues, buckets`,
    capacity: tableCapacity(opts),
  });
  const service = new ServiceStack(app, `${prefix}-Service`, {
    env,
    description: `Hookgate ${opts.stage}: HTTP API, functions, schedules and alarms`,
    stateful,
    stage: opts.stage,
    version: opts.version ?? packageVersion(),
    retrySchedule: opts.retrySchedule,
    alarmEmail: opts.alarmEmail,
    logRetention,
    deliverMaxConcurrency: opts.deliverMaxConcurrency,
    deliverBatchingWindowSeconds: opts.deliverBatchingWindowSeconds,
    deliverAccountSharePercent: opts.deliverAccountSharePercent,
    signup: opts.signup,
    requireEndpointVerification: opts.requireEndpointVerification,
    maxEndpointsPerCustomer: opts.maxEndpointsPerCustomer,
    maxEndpointsPerAccount: opts.maxEndpointsPerAccount,
    tracingSampleRate: opts.tracingSampleRate,
    ingestReservedConcurrency: opts.ingestReservedConcurrency,
    deliverReservedConcurrency: opts.deliverReservedConcurrency,
    awsDestinationTargets: opts.awsDestinationTargets,
    awsOwnRoleAccounts: opts.awsOwnRoleAccounts,
    apiGatewayCloudWatchRole: opts.apiGatewayCloudWatchRole,
    statefulRecreated: opts.statefulRecreated,
    routeThrottles: {
      ingest: { rateLimit: opts.ingestRateLimit, burstLimit: opts.ingestBurstLimit },
      management: { rateLimit: opts.managementRateLimit, burstLimit: opts.managementBurstLimit },
      signup: { rateLimit: opts.signupRateLimit, burstLimit: opts.signupBurstLimit },
    },
  });

  Tags.of(app).add('project', 'hookgate');
  Tags.of(app).add('stage', opts.stage);

  if (opts.nag ?? true) {
    Validations.of(app).addPlugins(new HookgateNagChecks(app));
  }
  return { stateful, service };
}

function tableCapacity(opts: BuildAppOptions): TableCapacity {
  const bounds = ['minReadCapacity', 'maxReadCapacity', 'minWriteCapacity', 'maxWriteCapacity'] as const;
  if (opts.billingMode !== 'provisioned') {
    const given = bounds.filter((key) => opts[key] !== undefined);
    if (given.length) throw new Error(`${given.join(', ')} only apply with billingMode provisioned`);
    return { mode: 'on-demand' };
  }
  return {
    mode: 'provisioned',
    minReadCapacity: opts.minReadCapacity ?? PROVISIONED_CAPACITY_DEFAULTS.minReadCapacity,
    maxReadCapacity: opts.maxReadCapacity ?? PROVISIONED_CAPACITY_DEFAULTS.maxReadCapacity,
    minWriteCapacity: opts.minWriteCapacity ?? PROVISIONED_CAPACITY_DEFAULTS.minWriteCapacity,
    maxWriteCapacity: opts.maxWriteCapacity ?? PROVISIONED_CAPACITY_DEFAULTS.maxWriteCapacity,
  };
}

/** One of the retention periods CloudWatch Logs offers (never-expire is not one: logs may hold ids for ever). */
function retentionDays(days: number): RetentionDays {
  const allowed = Object.values(RetentionDays).filter((v): v is RetentionDays => typeof v === 'number' && v !== RetentionDays.INFINITE);
  const found = allowed.find((v) => v === days);
  if (found === undefined) throw new Error(`logRetentionDays must be one of ${allowed.join(', ')}, got ${days}`);
  return found;
}

/** Set by the CDK CLI when credentials are available; synth works without them. */
function environmentFromCli(): Environment {
  return { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
}

function packageVersion(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  if (typeof pkg === 'object' && pkg !== null && 'version' in pkg && typeof pkg.version === 'string') {
    return pkg.version;
  }
  throw new Error('package.json has no version');
}
