import { createHash } from 'node:crypto';
import { ArnFormat, Aws, CfnOutput, CfnResource, Duration, Lazy, RemovalPolicy, Stack, Token, Validations, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat, CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration, WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as xray from 'aws-cdk-lib/aws-xray';
import type { Construct } from 'constructs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from '../lambdas/domain/backoff';
import { MAX_MESSAGE_DELAY_SECONDS } from '../lambdas/domain/queue-wait';
import { accountTries, borrowedTries, DEFAULT_ACCOUNT_SHARE_PERCENT } from '../lambdas/domain/max-in-flight';
import { Alarms } from './constructs/alarms';
import { Dashboard } from './constructs/dashboard';
import { DeployTrigger } from './constructs/deploy-trigger';
import { HookgateFunction, type HookgateFunctionProps } from './constructs/hookgate-function';
import { DELIVERY_QUEUE, ENV, metricsService, SUBJECT_KEY_CONTEXT } from '../lambdas/shared/resource-definitions';
import type { StatefulResources } from './stateful-stack';
import { assumeCustomerRoles, awsDestinationStatements } from './constructs/aws-destination-grants';
import { acknowledgeWildcardResources } from './nag';

export interface ServiceStackProps extends StackProps {
  readonly stateful: StatefulResources;
  /** The deployment's name: in the functions' environment (metrics dimension) and the dashboard's name. */
  readonly stage: string;
  /** Reported by the API as the running version. */
  readonly version: string;
  /**
   * HOOKGATE_RETRY_SCHEDULE for every function (comma-separated seconds), validated here with the
   * handlers' own parser. @default unset: the handlers use DEFAULT_RETRY_SCHEDULE
   */
  readonly retrySchedule?: string;
  /** Subscribed to the alarm topic. @default no subscription */
  readonly alarmEmail?: string;
  /** How long the functions' logs and the API access logs are kept. @default one month */
  readonly logRetention?: logs.RetentionDays;
  /** Batches of ten the deliver function runs at once. @default DELIVERY_QUEUE.maxConcurrency */
  readonly deliverMaxConcurrency?: number;
  /** Seconds the deliver mapping gathers a batch before it invokes (0 to 300). @default DELIVERY_QUEUE.batchingWindowSeconds */
  readonly deliverBatchingWindowSeconds?: number;
  /** Percent of the deliver batches one account's tries under slots may hold (1 to 100). @default DEFAULT_ACCOUNT_SHARE_PERCENT */
  readonly deliverAccountSharePercent?: number;
  /** `closed`: `POST /v1/accounts` answers 403 and an operator creates accounts (`npm run create-account`). @default 'open' */
  readonly signup?: 'open' | 'closed';
  /** Every http destination, the account's own too, proves its endpoint's ownership before it is sent anything. @default false: customers' endpoints only */
  readonly requireEndpointVerification?: boolean;
  /** Most endpoints (destinations) one customer of an account may have. @default unset: the handlers' default, 20 */
  readonly maxEndpointsPerCustomer?: number;
  /** Most endpoints (destinations) one account may have. @default unset: the handlers' default, 10,000 */
  readonly maxEndpointsPerAccount?: number;
  /** Share of the functions' invocations X-Ray traces, 0 to 1. @default DEFAULT_TRACING_SAMPLE_RATE */
  readonly tracingSampleRate?: number;
  /**
   * Concurrent executions reserved for the ingest function: capacity nothing else in the account can
   * take, and its ceiling. @default none reserved: it shares the account's unreserved pool
   */
  readonly ingestReservedConcurrency?: number;
  /**
   * The same for the deliver function; at least `deliverMaxConcurrency`, or Lambda would throttle the
   * batches its event source mapping hands it. @default none reserved
   */
  readonly deliverReservedConcurrency?: number;
  /**
   * ARNs of the AWS destination targets in this account the deliver function may deliver to (queues,
   * topics, event buses, streams, functions, buckets). @default none: AWS destinations fail with AccessDenied
   */
  readonly awsDestinationTargets?: readonly string[];
  /**
   * The Hookgate accounts (ids; `*`: all) whose AWS destinations may go without a role, on the deliver
   * role's own grants (`awsDestinationTargets`): those grants are the deployment's, so by default no
   * tenant may use them and every AWS destination needs an AWS connection or a `role_arn`. @default none
   */
  readonly awsOwnRoleAccounts?: readonly string[];
  /** Any new value makes this stack update and read the Stateful stack's outputs again (after that stack was made anew). @default none */
  readonly statefulRecreated?: string;
  /** Who provides API Gateway's account CloudWatch Logs role, on which the listen stage's access log depends. @default 'none' */
  readonly apiGatewayCloudWatchRole?: ApiGatewayCloudWatchRole;
  /** Per-route budgets; a part left out keeps its default. @default DEFAULT_ROUTE_THROTTLES */
  readonly routeThrottles?: { readonly [route in ThrottledRoute]?: Partial<RouteThrottle> };
}

const API_THROTTLE = { burstLimit: 500, rateLimit: 1000 } as const;

/** hookgate listen: connects and answers, a developer's handful each; enough for a team, small beside ingest. */
const LISTEN_THROTTLE = { burstLimit: 50, rateLimit: 100 } as const;
/**
 * The WebSocket API's access log: as the HTTP API's, by connection rather than by path. Its variables
 * are not the HTTP API's: WebSocket stages name the integration's error `$context.integration.error`
 * and refuse `$context.integrationErrorMessage` (API Gateway V2 rejects a format with an unknown variable).
 */
const LISTEN_ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  time: '$context.requestTimeEpoch',
  ip: '$context.identity.sourceIp',
  route: '$context.routeKey',
  event: '$context.eventType',
  connection: '$context.connectionId',
  status: '$context.status',
  error: '$context.integration.error',
} as const;
const LISTEN_ACCESS_LOG_FORMAT = AccessLogFormat.custom(JSON.stringify(LISTEN_ACCESS_LOG_FIELDS));

/**
 * Who provides the region's API Gateway CloudWatch Logs role (the account setting `cloudWatchRoleArn`),
 * without which API Gateway refuses a WebSocket stage with access logs ("CloudWatch Logs role ARN must be
 * set in account settings to enable logging") and the stack rolls back. HTTP API stages do not need it.
 * - `none`: nobody is known to; the listen stage keeps no access log, so the first deploy of a fresh account succeeds.
 * - `existing`: the operator says the account has one (another stack or the console set it); the stage logs.
 * - `create`: this stack sets it (a role and an `AWS::ApiGateway::Account`, both retained); the stage logs.
 *   One setting per account and region: another stack that manages it would be overwritten.
 */
export type ApiGatewayCloudWatchRole = 'none' | 'existing' | 'create';

/** A route's budget: requests per second, and how many may arrive at once above it. */
interface RouteThrottle {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

/**
 * Each route key has a budget of its own, so a flood of sign-ups or management calls answers 429 on
 * its own route and never takes ingest's. The HTTP API has no per-key usage plans: per tenant, only the
 * plan's limits and these per-route ones hold (docs/api.md). Ingest's budget is what the table, the
 * queue and the deliver function must keep up with, so a stage sized for more traffic raises it (CDK
 * context, docs/operations.md); these are the defaults.
 */
export const DEFAULT_ROUTE_THROTTLES = {
  ingest: { rateLimit: 1000, burstLimit: 500 },
  management: { rateLimit: 200, burstLimit: 100 },
  signup: { rateLimit: 1, burstLimit: 5 },
} as const satisfies Record<string, RouteThrottle>;

type ThrottledRoute = keyof typeof DEFAULT_ROUTE_THROTTLES;

const THROTTLED_ROUTE_KEYS: Record<ThrottledRoute, string> = {
  ingest: 'POST /ingest/{token}',
  // Every other path: the rest of /v1/*, the portal and the probes.
  management: 'ANY /{proxy+}',
  signup: 'POST /v1/accounts',
};

/** The bare root serves nothing a client needs: a small fixed budget, not worth a setting. */
const ROOT_ROUTE_THROTTLE = { 'ANY /': { rateLimit: 10, burstLimit: 10 } } as const;

/** The range SQS event source mappings accept for maximum concurrency. */
const ESM_CONCURRENCY_RANGE = [2, 1000] as const;

/** A delivery waiting longer than the longest retry step by this much means nothing consumes the queue. */
const QUEUE_STUCK_MARGIN = Duration.minutes(5);

/**
 * One short line per request, what an operator looks for: which request (its id is `api_request_id` on
 * the function's lines), when (epoch ms), from where, which route, the answer, how long it took, and
 * API Gateway's own error when the integration failed (`-` otherwise). Deliberately no $context.path:
 * on /ingest/{token} the path carries the source's secret token.
 */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  time: '$context.requestTimeEpoch',
  ip: '$context.identity.sourceIp',
  route: '$context.routeKey',
  status: '$context.status',
  latency: '$context.responseLatency',
  error: '$context.integrationErrorMessage',
} as const;
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS));

/**
 * X-Ray records this share of the requests that arrive with no sampling decision (HTTP APIs make
 * none): traces cost $5 a million, and at the default rule (1 a second, then 5%) they would be most of
 * a low-volume stage's requests. No reservoir: it would record a trace every second, whatever the rate.
 */
const DEFAULT_TRACING_SAMPLE_RATE = 0.01;
/** Ahead of X-Ray's Default rule (10,000), behind any rule an operator adds with a lower number. */
const SAMPLING_RULE_PRIORITY = 9000;

/** The longest region code AWS has (`ap-southeast-7`, `us-isob-east-1`): a name checked without a known region must fit it. */
const LONGEST_REGION = 14;
/** IAM's limit on a role name. */
const ROLE_NAME_MAX = 64;

/**
 * The name of a role that customers' trust policies name (the deliver and api functions'): from the stage
 * and the region alone, never from the stack's name or a construct path, so a replaced or renamed Service
 * stack has roles of the same ARNs (docs/operations.md, What is state). A stage's stacks live in one
 * region, so the region in the name keeps two regions' stages of one name apart (IAM names are global).
 */
export function stableRoleName(stage: string, region: string, fn: 'deliver' | 'api'): string {
  const regionLength = Token.isUnresolved(region) ? LONGEST_REGION : region.length;
  const length = `hookgate-${stage}--${fn}`.length + regionLength;
  if (length > ROLE_NAME_MAX) throw new Error(`role name hookgate-${stage}-<region>-${fn} would be ${length} characters, over IAM's ${ROLE_NAME_MAX}`);
  return `hookgate-${stage}-${region}-${fn}`;
}

/** The stateless part: functions, the HTTP API, the queue consumer, the schedules and the alarms. */
/**
 * The DynamoDB calls the store makes (lambdas/store/table.ts): single items and key queries, plus the
 * batches some functions reach. No scans, no transactions, no streams, no table descriptions. Each
 * function gets what its code calls (test/infra/service-stack.test.ts holds that table).
 */
const ITEM_CALLS = ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];

function grantTable(fn: HookgateFunction, table: ITable, batches: ReadonlyArray<'dynamodb:BatchGetItem' | 'dynamodb:BatchWriteItem'>): void {
  table.grant(fn.fn, ...ITEM_CALLS, ...batches);
}

/**
 * Object calls on a bucket, on its objects only: every call is by key, so no listing and no bucket
 * reads; single puts, so no multipart; no versions, tags or ACLs. A replay's CopyObject is GetObject on
 * the source and PutObject on the target; a pre-signed GET carries the signer's GetObject. Whoever
 * accepts events deletes the object it stored for an event that was then not stored (a lost
 * de-duplication race, a failed write): without DeleteObject that is AccessDenied in AWS and the
 * object stays until its lifecycle rule.
 */
function grantObjects(fn: HookgateFunction, bucket: IBucket, actions: ReadonlyArray<'s3:GetObject' | 's3:PutObject' | 's3:DeleteObject'>): void {
  iam.Grant.addToPrincipal({ grantee: fn.fn, actions: [...actions], resourceArns: [bucket.arnForObjects('*')] });
}

/** One use of the signing keys' KMS key, never both: who makes keys cannot read them back, who signs cannot make them. */
function grantSigningKeys(fn: HookgateFunction, key: IKey, action: 'kms:Encrypt' | 'kms:Decrypt'): void {
  iam.Grant.addToPrincipal({ grantee: fn.fn, actions: [action], resourceArns: [key.keyArn] });
  fn.fn.addEnvironment(ENV.signingKeysKmsKey, key.keyArn);
}

/**
 * Who hashes subjects (publish, ingest's subject_pointer, an erasure's start) or ordering keys (the
 * accept of an event that joins ordering lines: publish, ingest, replays) makes and opens the
 * account's subject key, sealed with the same KMS key but only under its own encryption context: these
 * grants cannot open an Ed25519 private key, whose context has no `purpose`.
 */
function grantSubjectKeys(fn: HookgateFunction, key: IKey): void {
  const conditions = { StringEquals: Object.fromEntries(Object.entries(SUBJECT_KEY_CONTEXT).map(([name, value]) => [`kms:EncryptionContext:${name}`, value])) };
  fn.fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['kms:Encrypt', 'kms:Decrypt'], resources: [key.keyArn], conditions }));
  fn.fn.addEnvironment(ENV.signingKeysKmsKey, key.keyArn);
}

export class ServiceStack extends Stack {
  readonly httpApi: apigw.HttpApi;
  readonly apiFunction: HookgateFunction;
  readonly ingestFunction: HookgateFunction;
  readonly deliverFunction: HookgateFunction;
  readonly exportFunction: HookgateFunction;
  readonly exportSchedule: events.Rule;
  readonly sweeperFunction: HookgateFunction;
  readonly sweeperSchedule: events.Rule;
  readonly sweeperDeployRun: DeployTrigger;
  readonly domainProvisionerFunction: HookgateFunction;
  readonly domainProvisionerSchedule: events.Rule;
  /** The deliver (and api, for verify) function's sts:AssumeRole on customers' roles for AWS destinations in other accounts. */
  readonly assumeRolesPolicy: iam.Policy;
  /** `hookgate listen`: the WebSocket API the CLI connects to, its stage and its function. */
  readonly listenApi: apigw.WebSocketApi;
  readonly listenStage: apigw.WebSocketStage;
  readonly listenFunction: HookgateFunction;
  /** The deliver function's PostToConnection on the listen stage's connections, and nothing else. */
  readonly listenConnectionsPolicy: iam.Policy;
  /** A digest of the Stateful stack's resources, so that a change there always updates this stack. */
  readonly statefulRevision?: CfnOutput;
  /** The region's API Gateway account setting and its role, when `apiGatewayCloudWatchRole` is `create`. */
  readonly apiGatewayAccount?: CfnAccount;
  /** What the deliver function may call on AWS destination targets (`awsDestinationTargets`); absent when none are listed. */
  readonly awsDestinationsPolicy?: iam.Policy;
  /** ACM and API Gateway permissions of the domain provisioner, in a policy of their own. */
  readonly tlsProvisioningPolicy: iam.Policy;
  readonly alarms: Alarms;
  readonly dashboard: Dashboard;
  readonly samplingRule: xray.CfnSamplingRule;

  /** Environment every Hookgate function receives. */
  private readonly sharedEnvironment: Readonly<Record<string, string>>;
  private readonly logRetention: logs.RetentionDays;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { table, deliveryQueue, deliveryDlq, payloadBucket, exportBucket, signingKeysKey } = props.stateful;
    // Fails the synth, not every function's first invocation, on a malformed schedule.
    const retrySchedule =
      props.retrySchedule === undefined ? [...DEFAULT_RETRY_SCHEDULE] : parseRetrySchedule(props.retrySchedule);

    this.logRetention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    this.httpApi = this.createHttpApi();
    this.samplingRule = this.createSamplingRule(props.stage, props.tracingSampleRate ?? DEFAULT_TRACING_SAMPLE_RATE);

    this.sharedEnvironment = {
      [ENV.tableName]: table.tableName,
      [ENV.deliveryQueueUrl]: deliveryQueue.queueUrl,
      [ENV.payloadBucket]: payloadBucket.bucketName,
      [ENV.exportBucket]: exportBucket.bucketName,
      [ENV.publicUrl]: this.httpApi.apiEndpoint,
      [ENV.version]: props.version,
      [ENV.stage]: props.stage,
      ...(props.retrySchedule === undefined ? {} : { [ENV.retrySchedule]: retrySchedule.join(',') }),
    };

    // Grants follow each function's code path, and nothing else. Only SQS's own redrive moves messages
    // into the DLQ; the sweeper alone reads it. Queue grants need no KMS: the queues use SQS-managed SSE.

    this.apiFunction = this.addFunction('ApiFunction', {
      handler: 'api',
      description: 'Hookgate management API (/v1/*)',
      // Just under the HTTP API's 30 s integration timeout.
      timeout: Duration.seconds(29),
      roleName: stableRoleName(props.stage, this.region, 'api'),
    });
    grantTable(this.apiFunction, table, ['dynamodb:BatchGetItem']);
    // POST /v1/events/{id}/replay enqueues the replay's deliveries.
    deliveryQueue.grantSendMessages(this.apiFunction.fn);
    // GET /v1/events/{id} reads bodies stored in S3 (or links them); publish stores them; replay copies them.
    grantObjects(this.apiFunction, payloadBucket, ['s3:GetObject', 's3:PutObject', 's3:DeleteObject']);

    this.apiFunction.fn.addEnvironment(ENV.signup, props.signup ?? 'open');
    // Destinations are created and changed by the api function alone (the API and the portal).
    if (props.requireEndpointVerification) this.apiFunction.fn.addEnvironment(ENV.requireEndpointVerification, 'true');
    if (props.maxEndpointsPerCustomer !== undefined) {
      this.apiFunction.fn.addEnvironment(ENV.maxEndpointsPerCustomer, endpointCap('maxEndpointsPerCustomer', props.maxEndpointsPerCustomer));
    }
    if (props.maxEndpointsPerAccount !== undefined) {
      this.apiFunction.fn.addEnvironment(ENV.maxEndpointsPerAccount, endpointCap('maxEndpointsPerAccount', props.maxEndpointsPerAccount));
    }
    // Saving an ed25519 destination and rotating keys make key pairs: their private halves are
    // encrypted here and decrypted by the deliver function alone (lambdas/signing-keys/sealing.ts).
    grantSigningKeys(this.apiFunction, signingKeysKey, 'kms:Encrypt');
    grantSubjectKeys(this.apiFunction, signingKeysKey);
    const apiIntegration = new HttpLambdaIntegration('ApiIntegration', this.apiFunction.fn);
    this.addRoutes('Api', ['/', '/{proxy+}'], [apigw.HttpMethod.ANY], apiIntegration);
    // A route of its own only so that sign-up gets a throttle of its own.
    this.addRoutes('Signup', ['/v1/accounts'], [apigw.HttpMethod.POST], apiIntegration);

    this.ingestFunction = this.addFunction('IngestFunction', {
      handler: 'ingest',
      description: 'Hookgate webhook intake (POST /ingest/{token})',
      timeout: Duration.seconds(29),
      memorySize: 512,
      reservedConcurrency: reservedConcurrency('ingestReservedConcurrency', props.ingestReservedConcurrency),
    });
    // Source lookup, routing (the destinations routes name, in batch gets), dedupe claim and event
    // write; then the first delivery tasks; bodies over the inline limit go to S3 (PutObject only:
    // ingest never reads a payload back).
    grantTable(this.ingestFunction, table, ['dynamodb:BatchGetItem']);
    deliveryQueue.grantSendMessages(this.ingestFunction.fn);
    grantObjects(this.ingestFunction, payloadBucket, ['s3:PutObject', 's3:DeleteObject']);
    grantSubjectKeys(this.ingestFunction, signingKeysKey);

    // More specific than ANY /{proxy+}, so API Gateway picks it for POST /ingest/{token}.
    const ingestIntegration = new HttpLambdaIntegration('IngestIntegration', this.ingestFunction.fn);
    this.addRoutes('Ingest', ['/ingest/{token}'], [apigw.HttpMethod.POST], ingestIntegration);
    this.throttleRoutes(routeThrottles(props.routeThrottles));

    const deliverBatches = deliverConcurrency(props.deliverMaxConcurrency);
    this.deliverFunction = this.addFunction('DeliverFunction', {
      handler: 'deliver',
      description: 'Hookgate delivery worker (SQS consumer)',
      timeout: Duration.seconds(DELIVERY_QUEUE.consumerTimeoutSeconds),
      memorySize: 512,
      reservedConcurrency: deliverReservedConcurrency(props.deliverReservedConcurrency, deliverBatches),
      roleName: stableRoleName(props.stage, this.region, 'deliver'),
    });
    const share = accountTries(deliverBatches, accountShare(props.deliverAccountSharePercent));
    this.deliverFunction.fn.addEnvironment(ENV.accountTries, String(share));
    this.deliverFunction.fn.addEnvironment(ENV.borrowedTries, String(borrowedTries(deliverBatches, share)));
    // Its three items (body, delivery, status) in one batch get; claims, attempts and breakers; the body when it is in S3. Consuming includes
    // ChangeMessageVisibility (short waits); a longer wait is a new delayed message, hence the send.
    grantTable(this.deliverFunction, table, ['dynamodb:BatchGetItem']);
    deliveryQueue.grantConsumeMessages(this.deliverFunction.fn);
    deliveryQueue.grantSendMessages(this.deliverFunction.fn);
    // GetObject only: the operational events it publishes are small bodies, always stored inline.
    grantObjects(this.deliverFunction, payloadBucket, ['s3:GetObject']);
    // Signs ed25519 tries and ownership challenges: decrypts a key's private half once per container.
    grantSigningKeys(this.deliverFunction, signingKeysKey, 'kms:Decrypt');
    // AWS destinations in other accounts: their roles, assumed with an external id.
    const assumeRoles = assumeCustomerRoles();
    this.assumeRolesPolicy = new iam.Policy(this, 'AssumeCustomerRolesPolicy', { statements: [assumeRoles] });
    this.deliverFunction.role.attachInlinePolicy(this.assumeRolesPolicy);
    // POST /v1/aws-connections/{id}/verify assumes the connection's role, as a delivery would.
    this.apiFunction.role.attachInlinePolicy(this.assumeRolesPolicy);
    // What an AWS connection's role trusts: these two roles, named in the trust policy the API hands out.
    // Their ARNs from their fixed names (a literal when the region is known), the same after a stack replacement.
    const roleArn = (fn: 'deliver' | 'api') => this.formatArn({ service: 'iam', region: '', resource: 'role', resourceName: stableRoleName(props.stage, this.region, fn) });
    this.apiFunction.fn.addEnvironment(ENV.awsPrincipals, `${roleArn('deliver')},${roleArn('api')}`);
    acknowledgeWildcardResources(
      this.assumeRolesPolicy,
      assumeRoles,
      'The roles customers create in their own accounts for AWS destinations (an AWS connection’s, or role_arn), known only at run time; every AssumeRole must carry a hookgate- external id (which each role’s trust policy requires) and may not name a role of this account.',
    );
    // Who may use the deliver role's own grants below: the API refuses others' role-less AWS destinations, the deliver function never sends them.
    for (const fn of [this.apiFunction.fn, this.deliverFunction.fn]) fn.addEnvironment(ENV.ownRoleAccounts, (props.awsOwnRoleAccounts ?? []).join(','));
    // AWS destinations: only the listed targets, each with the one action its type calls.
    const awsTargets = awsDestinationStatements(props.awsDestinationTargets ?? []);
    if (awsTargets.length > 0) {
      this.awsDestinationsPolicy = new iam.Policy(this, 'AwsDestinationsPolicy', { statements: awsTargets });
      this.deliverFunction.role.attachInlinePolicy(this.awsDestinationsPolicy);
      for (const statement of awsTargets.filter((s) => s.resources.some((resource) => resource.endsWith('/*')))) {
        acknowledgeWildcardResources(
          this.awsDestinationsPolicy,
          statement,
          's3:PutObject on the objects of one listed bucket of an S3 destination: its keys come from the destination’s key template and the event, known only at delivery.',
        );
      }
    }
    this.deliverFunction.fn.addEventSource(
      new SqsEventSource(deliveryQueue, {
        batchSize: DELIVERY_QUEUE.batchSize,
        maxBatchingWindow: Duration.seconds(batchingWindow(props.deliverBatchingWindowSeconds)),
        reportBatchItemFailures: true,
        maxConcurrency: deliverBatches,
      }),
    );

    this.exportFunction = this.addFunction('ExportFunction', {
      handler: 'export',
      description: 'Hookgate job worker: turns queued export jobs into files, runs bulk replays and erasures',
      // An export's rows are read, encoded and uploaded in one go; a claim older than the worker's
      // STALE_CLAIM_MS (20 min) is taken over, so this must stay below it. A bulk replay stops a
      // minute before the timeout and the next run resumes it from its checkpoint.
      timeout: Duration.minutes(15),
      memorySize: 1024,
    });
    // Work-index and list-index queries, job claims and results; the file goes to the export bucket
    // (PutObject only: downloads are pre-signed by the api function, nothing is ever deleted here,
    // the bucket's lifecycle expires files).
    grantTable(this.exportFunction, table, ['dynamodb:BatchGetItem']);
    grantObjects(this.exportFunction, exportBucket, ['s3:PutObject']);
    // A bulk replay's copies: deliveries enqueued, and bodies stored in S3 copied (CopyObject: GetObject
    // on the source, PutObject on the target), as the api function's single replay does. An erasure
    // deletes a data subject's payload objects (DeleteObject). A copy with an ordering key joins lines
    // named by the key's HMAC, under the account's subject key.
    deliveryQueue.grantSendMessages(this.exportFunction.fn);
    grantObjects(this.exportFunction, payloadBucket, ['s3:GetObject', 's3:PutObject', 's3:DeleteObject']);
    grantSubjectKeys(this.exportFunction, signingKeysKey);
    // The schedule picks a job up within a minute whatever happened to an earlier invocation (the
    // api's start-now invoke included); a claim left by a crashed worker goes stale and is retaken.
    this.exportFunction.fn.configureAsyncInvoke({ retryAttempts: 0 });
    // The spec's 30 s poll is below EventBridge's finest rate; the api starts each new job at once anyway.
    this.exportSchedule = this.addSchedule('ExportSchedule', this.exportFunction, {
      description: 'Runs the Hookgate export worker every minute',
      schedule: events.Schedule.rate(Duration.minutes(1)),
    });

    // POST /v1/exports and POST /v1/replays start the worker at once with an asynchronous Invoke of this one function,
    // by its unqualified name: not grantInvoke(), which adds every version and alias (<arn>:*).
    this.apiFunction.fn.addEnvironment(ENV.exportFunctionName, this.exportFunction.fn.functionName);
    iam.Grant.addToPrincipal({
      grantee: this.apiFunction.fn,
      actions: ['lambda:InvokeFunction'],
      resourceArns: [this.exportFunction.fn.functionArn],
    });
    // GET /v1/exports/{id}/download pre-signs a GetObject URL, which carries the signer's permissions.
    // GetObject only: no listing, no bucket reads.
    grantObjects(this.apiFunction, exportBucket, ['s3:GetObject']);

    this.sweeperFunction = this.addFunction('SweeperFunction', {
      handler: 'sweeper',
      description: 'Hookgate retention sweeper: deletes events past their account retention, ends deliveries that outlive it, re-times TTLs',
      // It stops starting new work 30 s before its timeout and resumes from a checkpoint next time.
      timeout: Duration.minutes(15),
      memorySize: 512,
      environment: { [ENV.deliveryDlqUrl]: deliveryDlq.queueUrl },
    });
    // Key queries, deletes and TTL rewrites of events, their items and the checkpoint; payload objects
    // of deleted events, and those it moves to a new window's class (CopyObject: GetObject on the old
    // key, PutObject on the new, then DeleteObject). No export bucket. BatchGetItem: the announcement of
    // a delivery it ends reads the account's routes and their destinations (routing-table.ts).
    grantTable(this.sweeperFunction, table, ['dynamodb:BatchWriteItem', 'dynamodb:BatchGetItem']);
    grantObjects(this.sweeperFunction, payloadBucket, ['s3:GetObject', 's3:PutObject', 's3:DeleteObject']);
    // A delivery it ends past its event's window is announced: an operational event, whose deliveries it
    // enqueues; a stranded task it takes back from the DLQ is sent again to the delivery queue.
    deliveryQueue.grantSendMessages(this.sweeperFunction.fn);
    // Reads and deletes the DLQ's messages (lambdas/pipeline/stranded-tasks.ts); never sends to it.
    iam.Grant.addToPrincipal({
      grantee: this.sweeperFunction.fn,
      actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage'],
      resourceArns: [deliveryDlq.queueArn],
    });
    // Lambda's default async retries (2) stay: a failed sweep resumes from its checkpoint a minute or
    // two later instead of an hour, and every step of it is idempotent.
    this.sweeperSchedule = this.addSchedule('SweeperSchedule', this.sweeperFunction, {
      description: 'Runs the Hookgate retention sweeper every hour',
      schedule: events.Schedule.rate(Duration.hours(1)),
    });
    // "Once at start-up" in AWS: after a deploy that changes the sweeper (its code, configuration or
    // the release version in its environment), once the function and its grants are in place.
    this.sweeperDeployRun = new DeployTrigger(this, 'SweeperDeployRun', {
      handler: this.sweeperFunction.fn,
      executeAfter: [this.sweeperFunction],
    });

    this.domainProvisionerFunction = this.addFunction('DomainProvisionerFunction', {
      handler: 'domain-provisioner',
      description: 'Hookgate custom domains: ACM certificates, API Gateway domain names and API mappings',
      // A handful of ACM and API Gateway calls per domain, at most 50 domains per run.
      timeout: Duration.minutes(2),
      environment: { [ENV.httpApiId]: this.httpApi.apiId },
    });
    // Work-index query and the domain items' TLS progress. No SQS, no S3.
    grantTable(this.domainProvisionerFunction, table, []);
    this.tlsProvisioningPolicy = this.addTlsProvisioningPolicy(this.domainProvisionerFunction);
    // Every step is recorded and idempotent; the next run (5 minutes later) picks up where one failed.
    this.domainProvisionerFunction.fn.configureAsyncInvoke({ retryAttempts: 0 });
    this.domainProvisionerSchedule = this.addSchedule('DomainProvisionerSchedule', this.domainProvisionerFunction, {
      description: 'Runs the Hookgate custom-domain TLS provisioner every 5 minutes',
      schedule: events.Schedule.rate(Duration.minutes(5)),
    });

    const cloudWatchRole = props.apiGatewayCloudWatchRole ?? 'none';
    if (cloudWatchRole === 'create') this.apiGatewayAccount = this.createApiGatewayAccount();
    ({ api: this.listenApi, stage: this.listenStage, fn: this.listenFunction, policy: this.listenConnectionsPolicy } = this.createListenApi(table, cloudWatchRole !== 'none'));
    if (this.apiGatewayAccount) this.listenStage.node.addDependency(this.apiGatewayAccount);

    // Every function by the name its alarms, dashboard lines and log `service` use.
    const functions = {
      api: this.apiFunction.fn,
      ingest: this.ingestFunction.fn,
      deliver: this.deliverFunction.fn,
      export: this.exportFunction.fn,
      sweeper: this.sweeperFunction.fn,
      'domain-provisioner': this.domainProvisionerFunction.fn,
      listen: this.listenFunction.fn,
    };
    this.alarms = new Alarms(this, 'Alarms', {
      deliveryQueue,
      deliveryDlq,
      // A wait longer than one message delay hops to a new message, so no healthy message gets older than that.
      oldestMessageAgeThreshold: Duration.seconds(Math.min(Math.max(...retrySchedule), MAX_MESSAGE_DELAY_SECONDS)).plus(QUEUE_STUCK_MARGIN),
      metricsService: metricsService(props.stage),
      functions,
      httpApi: this.httpApi,
      email: props.alarmEmail,
      deliverLogGroup: this.deliverFunction.logGroup,
    });
    this.dashboard = new Dashboard(this, 'Dashboard', {
      stage: props.stage,
      metricsService: metricsService(props.stage),
      deliveryQueue,
      deliveryDlq,
      functions,
      httpApi: this.httpApi,
      alarms: this.alarms,
    });

    if (Stack.isStack(props.stateful)) this.statefulRevision = this.addStatefulRevision(props.stateful, props.statefulRecreated);

    new CfnOutput(this, 'ApiUrl', { value: this.httpApi.apiEndpoint, description: 'Hookgate base URL' });
    new CfnOutput(this, 'ListenUrl', { value: this.listenStage.url, description: 'Where hookgate listen connects (the API hands it out)' });
    new CfnOutput(this, 'Signup', { value: signupOutput(props.signup ?? 'open'), description: 'Who may create an account (POST /v1/accounts)' });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn, description: 'Hookgate alarm notifications' });
    new CfnOutput(this, 'DashboardUrl', {
      value: `https://console.aws.amazon.com/cloudwatch/home?region=${Aws.REGION}#dashboards:name=${this.dashboard.dashboardName}`,
      description: 'Hookgate CloudWatch dashboard',
    });
  }

  /**
   * The weak references to the Stateful stack (`Fn::GetStackOutput`) are read only when this stack
   * updates, and the CLI skips a stack whose template did not change: a Stateful resource replaced
   * (a new table, queue or bucket name) would leave the functions on the old one. This output is a
   * digest of every resource of the Stateful template, so any change there changes this template, and
   * its deploy reads the outputs again. An output, not a parameter: the CLI keeps a parameter's previous
   * value. A Stateful stack destroyed and made again from the same template changes nothing here;
   * `statefulRecreated` (any new value) then forces the update (docs/operations.md).
   */
  private addStatefulRevision(stateful: Stack, recreated: string | undefined): CfnOutput {
    const digest = Lazy.string({
      produce: () => {
        const resources = stateful.node
          .findAll()
          .filter((c): c is CfnResource => CfnResource.isCfnResource(c))
          .map((c) => stateful.resolve(c._toCloudFormation()) as unknown);
        return createHash('sha256').update(JSON.stringify({ resources, recreated })).digest('hex').slice(0, 16);
      },
    });
    return new CfnOutput(this, 'StatefulRevision', { value: digest, description: `Digest of the ${stateful.stackName} resources this stack last read the outputs of` });
  }

  /** A function with the shared environment; `environment` adds to it. */
  addFunction(id: string, props: HookgateFunctionProps): HookgateFunction {
    return new HookgateFunction(this, id, {
      logRetention: this.logRetention,
      ...props,
      environment: { ...this.sharedEnvironment, ...props.environment },
    });
  }

  /** An EventBridge rule that invokes `fn` asynchronously on `props.schedule`. */
  addSchedule(id: string, fn: HookgateFunction, props: Pick<events.RuleProps, 'description' | 'schedule'>): events.Rule {
    return new events.Rule(this, id, { ...props, targets: [new targets.LambdaFunction(fn.fn)] });
  }

  /**
   * What the domain provisioner does in ACM and API Gateway, and nothing more: request DNS-validated
   * certificates and read them back; create regional custom domain names and their API mappings in
   * this region, and read them back (to recognise its own earlier work after a crash). No delete, no
   * update, no other API Gateway resource.
   */
  private addTlsProvisioningPolicy(fn: HookgateFunction): iam.Policy {
    const apigateway = `arn:${Aws.PARTITION}:apigateway:${Aws.REGION}::`;
    const grants: [iam.PolicyStatement, string][] = [
      [
        new iam.PolicyStatement({
          actions: ['acm:RequestCertificate'],
          resources: ['*'],
          conditions: { StringEquals: { 'acm:ValidationMethod': 'DNS' } },
        }),
        'acm:RequestCertificate supports no resource-level permission (the certificate does not exist yet); the statement is limited to DNS validation by the acm:ValidationMethod condition.',
      ],
      [
        // DeleteCertificate: a deleted custom domain's certificate (ACM refuses one still in use).
        new iam.PolicyStatement({
          actions: ['acm:DescribeCertificate', 'acm:DeleteCertificate'],
          resources: [`arn:${Aws.PARTITION}:acm:${Aws.REGION}:${Aws.ACCOUNT_ID}:certificate/*`],
        }),
        'acm:DescribeCertificate and acm:DeleteCertificate (a deleted custom domain) on the certificates of this account and region: their ids are assigned by ACM when the provisioner requests them.',
      ],
      [
        new iam.PolicyStatement({
          actions: ['apigateway:POST'],
          resources: [`${apigateway}/domainnames`, `${apigateway}/domainnames/*/apimappings`],
        }),
        "apigateway:POST (CreateApiMapping) on the mappings of custom domain names, whose names are the customers' hostnames, known only at run time.",
      ],
      [
        // DELETE: a deleted custom domain's domain name and its mapping (`/domainnames/*/apimappings/*`).
        new iam.PolicyStatement({
          actions: ['apigateway:GET', 'apigateway:DELETE'],
          resources: [`${apigateway}/domainnames/*`],
        }),
        "apigateway:GET (GetDomainName, GetApiMappings) on custom domain names of this region, to recognise a domain name or mapping an interrupted run already created, and apigateway:DELETE (DeleteDomainName, DeleteApiMapping) to remove a deleted custom domain; the names are customers' hostnames, known only at run time.",
      ],
    ];
    const policy = new iam.Policy(fn, 'TlsProvisioningPolicy', { roles: [fn.role], statements: grants.map(([statement]) => statement) });
    for (const [statement, reason] of grants) acknowledgeWildcardResources(policy, statement, reason);
    return policy;
  }

  /**
   * The region's API Gateway CloudWatch Logs role, set in the account settings. Both are retained: the
   * setting outlives the stack anyway (deleting the resource leaves it in place), and a deleted role would
   * leave every WebSocket and REST API of the account and region that logs unable to.
   */
  private createApiGatewayAccount(): CfnAccount {
    const role = new iam.Role(this, 'ApiGatewayCloudWatchRole', {
      assumedBy: new iam.ServicePrincipal('apigateway.amazonaws.com'),
      description: 'API Gateway: writes the access and execution logs of this account and region (account setting cloudWatchRoleArn)',
    });
    // What AmazonAPIGatewayPushToCloudWatchLogs allows, on this region's log groups only (not an AWS-managed policy on every region's).
    const write = new iam.PolicyStatement({
      actions: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:DescribeLogGroups', 'logs:DescribeLogStreams', 'logs:PutLogEvents', 'logs:GetLogEvents', 'logs:FilterLogEvents'],
      resources: [Stack.of(this).formatArn({ service: 'logs', resource: 'log-group', resourceName: '*', arnFormat: ArnFormat.COLON_RESOURCE_NAME })],
    });
    const policy = new iam.Policy(this, 'ApiGatewayCloudWatchPolicy', { roles: [role], statements: [write] });
    acknowledgeWildcardResources(
      policy,
      write,
      "API Gateway's account role writes the logs of every API of this account and region that logs (its access logs go to each stage's own group, execution logs to groups it names itself): the log groups of this region.",
    );
    const account = new CfnAccount(this, 'ApiGatewayAccount', { cloudWatchRoleArn: role.roleArn });
    account.node.addDependency(policy);
    for (const resource of [role, policy, account]) resource.applyRemovalPolicy(RemovalPolicy.RETAIN);
    return account;
  }

  /**
   * `hookgate listen`: a WebSocket API whose routes all go to the listen function. `$connect`
   * authenticates the API key and binds the connection to its session's destination (items in the
   * table); `response` stores the CLI's answer to a try; `$disconnect` forgets the connection. The
   * deliver function posts each try to the connection (execute-api:ManageConnections on this stage's
   * connections: POST to send a try, DELETE to close a revoked key's socket) and reads the answer back from the table. The api function hands the URL out.
   */
  private createListenApi(table: ITable, accessLog: boolean) {
    const fn = this.addFunction('ListenFunction', {
      handler: 'listen',
      description: 'Hookgate listen WebSocket API ($connect, $disconnect, response)',
      // Just under API Gateway's 29 s integration timeout.
      timeout: Duration.seconds(28),
    });
    // The API key and session lookups, the connection items and the answers.
    grantTable(fn, table, []);
    const integration = new WebSocketLambdaIntegration('ListenIntegration', fn.fn);
    const api = new apigw.WebSocketApi(this, 'ListenApi', {
      description: 'Hookgate listen: deliveries to the hookgate CLI',
      routeSelectionExpression: '$request.body.action',
      connectRouteOptions: { integration },
      disconnectRouteOptions: { integration },
      defaultRouteOptions: { integration },
    });
    api.addRoute('response', { integration });
    for (const route of api.node.children.filter((child) => child instanceof apigw.WebSocketRoute)) {
      Validations.of(route).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason: '$connect authenticates the API key inside the listen function and refuses the connection otherwise; the other routes are reached only over a connection it accepted.',
      });
    }
    const accessLogSettings = accessLog
      ? { destination: new apigw.LogGroupLogDestination(new logs.LogGroup(this, 'ListenApiAccessLogs', { retention: this.logRetention })), format: LISTEN_ACCESS_LOG_FORMAT }
      : undefined;
    const stage = new apigw.WebSocketStage(this, 'ListenStage', { webSocketApi: api, stageName: 'live', autoDeploy: true, throttle: LISTEN_THROTTLE, accessLogSettings });
    if (!accessLog) {
      Validations.of(stage).acknowledge({
        id: 'AwsSolutions-APIG1',
        reason:
          'A WebSocket access log needs the account-level API Gateway CloudWatch Logs role, which a fresh account lacks (the stage would fail to create): it is on with -c apiGatewayCloudWatchRole=existing or =create (docs/operations.md, Pre-flight). The listen function logs every connection and answer meanwhile.',
      });
    }
    this.apiFunction.fn.addEnvironment(ENV.listenUrl, stage.url);
    this.deliverFunction.fn.addEnvironment(ENV.listenEndpoint, stage.callbackUrl);
    // Revoking an API key closes the sockets it opened (DELETE only: the api function never sends a try).
    this.apiFunction.fn.addEnvironment(ENV.listenEndpoint, stage.callbackUrl);
    // ManageConnections is granted per HTTP method: POST sends a try, DELETE closes the socket of a revoked key. No GET: nothing reads a connection.
    const connections = (method: 'POST' | 'DELETE') =>
      Stack.of(this).formatArn({ service: 'execute-api', resource: api.apiId, resourceName: `${stage.stageName}/${method}/@connections/*`, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
    const manageConnections = new iam.PolicyStatement({ actions: ['execute-api:ManageConnections'], resources: [connections('POST'), connections('DELETE')] });
    const policy = new iam.Policy(this, 'ListenConnectionsPolicy', { statements: [manageConnections] });
    this.deliverFunction.role.attachInlinePolicy(policy);
    acknowledgeWildcardResources(
      policy,
      manageConnections,
      'PostToConnection and DeleteConnection on the connections of the listen stage only: connection ids are assigned by API Gateway when a CLI connects.',
    );
    const closeConnections = new iam.PolicyStatement({ actions: ['execute-api:ManageConnections'], resources: [connections('DELETE')] });
    const closePolicy = new iam.Policy(this, 'ListenCloseConnectionsPolicy', { statements: [closeConnections] });
    this.apiFunction.role.attachInlinePolicy(closePolicy);
    acknowledgeWildcardResources(closePolicy, closeConnections, 'DeleteConnection on the connections of the listen stage only, to close the sockets of a revoked API key: connection ids are assigned by API Gateway when a CLI connects.');
    return { api, stage, fn, policy };
  }

  /** Routes without an API Gateway authorizer: every handler authenticates the request itself. */
  addRoutes(
    id: string,
    paths: readonly string[],
    methods: apigw.HttpMethod[],
    integration: apigw.HttpRouteIntegration,
  ): apigw.HttpRoute[] {
    const routes = paths.flatMap((path) => this.httpApi.addRoutes({ path, methods, integration }));
    for (const route of routes) {
      Validations.of(route).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason: `${id} routes authenticate inside the Lambda: a Bearer API key for /v1/*, the secret path token plus the provider signature for /ingest/{token}.`,
      });
    }
    return routes;
  }

  /** Route settings name routes by key, so the stage must be (re)deployed after the routes exist. */
  private throttleRoutes(throttles: Record<string, RouteThrottle>): void {
    const stage = this.httpApi.node.findChild('DefaultStage') as apigw.HttpStage;
    const cfnStage = stage.node.defaultChild as apigw.CfnStage;
    // A free-form map in CloudFormation: CDK passes it through as is, so the keys are CloudFormation's.
    cfnStage.routeSettings = Object.fromEntries(
      Object.entries(throttles).map(([routeKey, t]) => [routeKey, { ThrottlingRateLimit: t.rateLimit, ThrottlingBurstLimit: t.burstLimit }]),
    );
    for (const route of this.httpApi.node.children.filter((child) => child instanceof apigw.HttpRoute)) stage.node.addDependency(route);
  }

  /**
   * The sampling rule of this stage's functions. Matched by the function names, which CloudFormation
   * derives from the stack name (`Hookgate-<stage>-Service-…`); docs/operations.md (Traces) says how to
   * check in AWS which rule the functions' traces followed.
   */
  private createSamplingRule(stage: string, rate: number): xray.CfnSamplingRule {
    if (!(rate >= 0 && rate <= 1)) throw new Error(`tracingSampleRate must be a number from 0 to 1, got ${rate}`);
    return new xray.CfnSamplingRule(this, 'TracingSamplingRule', {
      samplingRule: {
        ruleName: `hookgate-${stage}`,
        priority: SAMPLING_RULE_PRIORITY,
        fixedRate: rate,
        reservoirSize: 0,
        serviceName: `${this.stackName}-*`,
        serviceType: '*',
        host: '*',
        httpMethod: '*',
        urlPath: '*',
        resourceArn: '*',
        version: 1,
      },
    });
  }

  private createHttpApi(): apigw.HttpApi {
    const httpApi = new apigw.HttpApi(this, 'HttpApi', {
      description: 'Hookgate webhook gateway',
      // The default stage is created below: HttpApiProps cannot set its throttling or access logs.
      createDefaultStage: false,
    });

    const accessLogs = new logs.LogGroup(this, 'HttpApiAccessLogs', { retention: this.logRetention });
    httpApi.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: API_THROTTLE,
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(accessLogs),
        format: ACCESS_LOG_FORMAT,
      },
    });
    return httpApi;
  }
}

/**
 * Most deliver batches the queue may run at once: a cap on the event source, not reserved concurrency,
 * so it protects the destinations and the table's throughput without taking capacity from ingest and
 * the API. A batch lasts as long as its slowest record (up to a destination's 30 s timeout), so the cap
 * must leave room for the batches hanging endpoints hold until their breakers open; docs/scaling.md
 * has the arithmetic. Messages above the cap wait in the queue (fair queues keep the order fair).
 */
function deliverConcurrency(requested: number | undefined): number {
  const value = requested ?? DELIVERY_QUEUE.maxConcurrency;
  const [min, max] = ESM_CONCURRENCY_RANGE;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`deliverMaxConcurrency must be a whole number from ${min} to ${max}, got ${value}`);
  }
  return value;
}

/** An account's share of the deliver batches, in percent, refused at synth outside 1 to 100. */
function accountShare(requested: number | undefined): number {
  const value = requested ?? DEFAULT_ACCOUNT_SHARE_PERCENT;
  if (!Number.isInteger(value) || value < 1 || value > 100) throw new Error(`deliverAccountSharePercent must be a whole number from 1 to 100, got ${value}`);
  return value;
}

/** The deliver mapping's batching window, refused at synth outside what SQS mappings accept. */
function batchingWindow(requested: number | undefined): number {
  const value = requested ?? DELIVERY_QUEUE.batchingWindowSeconds;
  if (!Number.isInteger(value) || value < 0 || value > 300) throw new Error(`deliverBatchingWindowSeconds must be a whole number from 0 to 300, got ${value}`);
  return value;
}

/** A reservation, refused at synth when it is no whole number of at least 1 (0 would stop the function). */
function reservedConcurrency(name: string, value: number | undefined): number | undefined {
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) throw new Error(`${name} must be a whole number of at least 1, got ${value}`);
  return value;
}

/**
 * Below the event source mapping's cap, Lambda throttles the batches the mapping hands over; each
 * throttled batch is received again later, and every receive counts toward the redrive policy's
 * maxReceiveCount, so healthy tasks would end in the DLQ.
 */
function deliverReservedConcurrency(value: number | undefined, batches: number): number | undefined {
  const reserved = reservedConcurrency('deliverReservedConcurrency', value);
  if (reserved !== undefined && reserved < batches) {
    throw new Error(`deliverReservedConcurrency must be at least deliverMaxConcurrency (${batches}), got ${reserved}`);
  }
  return reserved;
}

/**
 * Every throttled route by its key, each budget checked at synth: CloudFormation would take a rate of 0
 * or a fractional burst, and the route would then refuse every request.
 */
function routeThrottles(overrides: ServiceStackProps['routeThrottles'] = {}): Record<string, RouteThrottle> {
  const byKey: Record<string, RouteThrottle> = { ...ROOT_ROUTE_THROTTLE };
  for (const route of Object.keys(DEFAULT_ROUTE_THROTTLES) as ThrottledRoute[]) {
    const rateLimit = overrides[route]?.rateLimit ?? DEFAULT_ROUTE_THROTTLES[route].rateLimit;
    const burstLimit = overrides[route]?.burstLimit ?? DEFAULT_ROUTE_THROTTLES[route].burstLimit;
    if (!(Number.isFinite(rateLimit) && rateLimit > 0)) throw new Error(`${route}RateLimit must be a number above 0, got ${rateLimit}`);
    if (!Number.isInteger(burstLimit) || burstLimit < 1) throw new Error(`${route}BurstLimit must be a whole number of at least 1, got ${burstLimit}`);
    byKey[THROTTLED_ROUTE_KEYS[route]] = { rateLimit, burstLimit };
  }
  return byKey;
}

/**
 * Open sign-up is the API's contract, so it stays the default; but on a stage the internet can reach it
 * lets strangers make accounts and relay webhooks through it on the operator's AWS bill. The output says
 * so where `cdk deploy` prints it, rather than only in docs an operator may not have read.
 */
function signupOutput(signup: 'open' | 'closed'): string {
  return signup === 'open'
    ? 'open — anyone who can reach the API can create an account and relay webhooks on your AWS bill; deploy with -c signup=closed and create accounts with npm run create-account'
    : 'closed';
}

/** An endpoint cap, refused at synth rather than by the api function's first request. */
function endpointCap(name: string, value: number): string {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number of at least 1, got ${value}`);
  return String(value);
}
