/**
 * The shape of every stateful resource, as plain data. The CDK stateful stack and the local
 * emulator bootstrap both build from this file, so local and AWS resources cannot drift apart.
 * No aws-cdk-lib or AWS SDK imports here.
 */

export const TABLE = {
  logicalName: 'hookgate',
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'expires_at',
  globalIndexes: [
    {
      // Lists by time within an owner: events of an account and direction, newest first. Only what
      // never changes after ingest is projected, so a status change writes nothing to this index.
      indexName: 'gsi1',
      partitionKey: 'gsi1pk',
      sortKey: 'gsi1sk',
      projection: 'INCLUDE' as const,
      nonKeyAttributes: ['entity', 'id', 'account_id', 'source_id', 'direction', 'event_type', 'external_event_id', 'customer', 'received_at', 'created_at'],
    },
    {
      // Sparse work index for background jobs (accounts to sweep, queued exports and replays).
      indexName: 'gsi2',
      partitionKey: 'gsi2pk',
      sortKey: 'gsi2sk',
      projection: 'KEYS_ONLY' as const,
      nonKeyAttributes: [] as string[],
    },
  ],
} as const;

export const DELIVERY_QUEUE = {
  logicalName: 'hookgate-delivery',
  /** Longest a delivery handler may run; the queue's visibility must be at least 6x this. */
  consumerTimeoutSeconds: 60,
  visibilityTimeoutSeconds: 360,
  /**
   * A week: a task waits here at most a message delay (15 min) at a time, so only a consumer stopped
   * for that long loses tasks (the queue-stuck alarm fires within minutes). Shorter than the DLQ's, see there.
   */
  retentionSeconds: 7 * 24 * 3600,
  /**
   * A message received this many times without being deleted is poison: it moves to the DLQ. SQS counts
   * every receive, also those of a batch Lambda throttled or a consumer crashed on before it could
   * answer, so a healthy task must have room for those: waiting itself leaves a message at
   * VISIBILITY_WAIT_MAX_RECEIVES receives at most (a longer wait is a fresh message, receive count 0),
   * which leaves 8 for throttles and crashes. The local runtime derives its own count from this one
   * (local/resources.ts).
   */
  maxReceiveCount: 10,
  batchSize: 10,
  /**
   * Seconds the event source mapping gathers messages before it invokes (CDK context
   * `deliverBatchingWindowSeconds` overrides, 0 to 300). At moderate traffic a batch otherwise holds
   * the one or two messages that arrived during the last poll: each costs an invocation, a receive and
   * a delete, and a second of waiting fills it. The local runtime does not wait (its poller hands what
   * it has at once): it changes how tasks are grouped, not what a task does.
   */
  batchingWindowSeconds: 1,
  /**
   * Batches the event source mapping runs at once (CDK context `deliverMaxConcurrency` overrides).
   * Sized for slow endpoints: a batch lasts as long as its slowest record (up to a destination's
   * timeout), so the slots must outnumber the batches a hanging endpoint can hold before its breaker opens.
   */
  maxConcurrency: 100,
  /**
   * Every message carries `MessageGroupId` = the destination id: on a standard queue that makes SQS a
   * fair queue, which de-prioritises a destination whose messages pile up or dwell in flight.
   */
  messageGroup: 'destination_id' as const,
} as const;

/**
 * A message keeps its first enqueue time when SQS moves it to the DLQ, and expires by it, so the DLQ
 * keeps messages longer than the delivery queue: one moved at the end of its week there still has a
 * week to be redriven. 14 days is SQS's longest retention.
 */
export const DELIVERY_DLQ = {
  logicalName: 'hookgate-delivery-dlq',
  retentionSeconds: 14 * 24 * 3600,
} as const;

export const BUCKETS = {
  payloads: { logicalName: 'hookgate-payloads' },
  /** Export files live this long (the bucket's lifecycle rule); their jobs expire with them (TTL). */
  exports: { logicalName: 'hookgate-exports', fileExpiryDays: 7 },
} as const;

/** Environment variable names the handlers read; set by the CDK stack and by the local runtime. */
export const ENV = {
  tableName: 'TABLE_NAME',
  deliveryQueueUrl: 'DELIVERY_QUEUE_URL',
  /** The delivery DLQ: the sweeper only, which takes stranded delivery tasks back from it. */
  deliveryDlqUrl: 'DELIVERY_DLQ_URL',
  payloadBucket: 'PAYLOAD_BUCKET',
  exportBucket: 'EXPORT_BUCKET',
  publicUrl: 'HOOKGATE_PUBLIC_URL',
  allowPrivateDestinations: 'HOOKGATE_ALLOW_PRIVATE_DESTINATIONS',
  retrySchedule: 'HOOKGATE_RETRY_SCHEDULE',
  s3ForcePathStyle: 'HOOKGATE_S3_FORCE_PATH_STYLE',
  version: 'HOOKGATE_VERSION',
  routeCacheSeconds: 'HOOKGATE_ROUTE_CACHE_SECONDS',
  /** Tries under leases one account may have in flight (lambdas/domain/max-in-flight.ts `accountTries`). */
  accountTries: 'HOOKGATE_ACCOUNT_TRIES',
  /** Tries under leases all accounts past their share may have in flight together (`borrowedTries`). */
  borrowedTries: 'HOOKGATE_BORROWED_TRIES',
  /** How long past its window the sweeper leaves an event to DynamoDB's TTL before deleting it itself. */
  ttlLagSeconds: 'HOOKGATE_TTL_LAG_SECONDS',
  /** Consecutive failed tries that open a destination's circuit breaker. */
  breakerThreshold: 'HOOKGATE_BREAKER_THRESHOLD',
  /** How long a newly opened breaker holds a destination's deliveries before the first probe. */
  breakerCooldownSeconds: 'HOOKGATE_BREAKER_COOLDOWN_SECONDS',
  exportFunctionName: 'EXPORT_FUNCTION_NAME',
  /**
   * The KMS key (ARN) accounts' Ed25519 private keys are sealed with (the api function encrypts, the
   * deliver function decrypts), and their subject keys, under SUBJECT_KEY_CONTEXT (the api and ingest functions).
   */
  signingKeysKmsKey: 'HOOKGATE_SIGNING_KEYS_KMS_KEY',
  /** How long a delivery task's first message waits for its event to be written before it is dropped. */
  missingEventGraceSeconds: 'HOOKGATE_MISSING_EVENT_GRACE_SECONDS',
  /** How many destinations one event may reach (lambdas/domain/delivery-plan.ts DEFAULT_MAX_FANOUT). */
  maxFanout: 'HOOKGATE_MAX_FANOUT',
  /** How long a bulk replay's worker holds its job between checkpoints before another run may take it over. */
  replayLeaseSeconds: 'HOOKGATE_REPLAY_LEASE_SECONDS',
  /**
   * How long a try in flight belongs to its worker, in the local runtime only (in AWS: the deliver
   * function's timeout, whatever this says), so tests that kill workers wait out a shorter one (their
   * destinations answer within it).
   */
  deliveryLeaseSeconds: 'HOOKGATE_DELIVERY_LEASE_SECONDS',
  /** Seconds before each resend of an endpoint's verification challenge (lambdas/domain/endpoint-verification.ts). */
  verificationResendSeconds: 'HOOKGATE_VERIFICATION_RESEND_SECONDS',
  /** Milliseconds a try may be in flight before its destination goes under its cap (lambdas/domain/max-in-flight.ts `SLOW_TRY_MS`). */
  slowTryMs: 'HOOKGATE_SLOW_TRY_MS',
  /** The HTTP API custom domains are mapped to (the domain provisioner only). */
  httpApiId: 'HOOKGATE_HTTP_API_ID',
  /** Local runtime and tests only: a JSON file of TXT answers; ignored in AWS Lambda. */
  dnsTxtOverrides: 'HOOKGATE_DNS_TXT_OVERRIDES',
  /** The deployment's stage; names the `service` dimension of the custom metrics. */
  stage: 'HOOKGATE_STAGE',
  /** `closed`: `POST /v1/accounts` is refused and an operator creates accounts (`npm run create-account`). */
  signup: 'HOOKGATE_SIGNUP',
  /** `true`: every http destination, the account's own too, proves its endpoint's ownership before it is sent anything (context `requireEndpointVerification`). */
  requireEndpointVerification: 'HOOKGATE_REQUIRE_ENDPOINT_VERIFICATION',
  /** Most endpoints (destinations) one customer of an account may have. */
  maxEndpointsPerCustomer: 'HOOKGATE_MAX_ENDPOINTS_PER_CUSTOMER',
  /** Most endpoints (destinations) one account may have. */
  maxEndpointsPerAccount: 'HOOKGATE_MAX_ENDPOINTS_PER_ACCOUNT',
  /**
   * The role ARNs (comma-separated) an AWS connection's role trusts: the deliver function's, which
   * delivers, and the api function's, which verifies. Set by the stack; the local runtime names placeholders.
   */
  awsPrincipals: 'HOOKGATE_AWS_PRINCIPALS',
  /**
   * The Hookgate accounts (comma-separated ids; `*`: every one) whose AWS destinations may be delivered
   * with the deliver function's own role, on the deployment's `awsDestinationTargets`. Set by the
   * stack from context `awsOwnRoleAccounts`; empty: none (every AWS destination needs a role).
   */
  ownRoleAccounts: 'HOOKGATE_OWN_ROLE_ACCOUNTS',
  /** Powertools' own: the `service` key of a function's log lines (`hookgate-<handler>`). */
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  /** `hookgate listen`: the WebSocket URL the CLI connects to (wss://…; the API hands it out). */
  listenUrl: 'HOOKGATE_LISTEN_URL',
  /** `hookgate listen`: where the deliver function posts to connections (the WebSocket API's management endpoint). */
  listenEndpoint: 'HOOKGATE_LISTEN_ENDPOINT',
} as const;

/**
 * Custom metrics: written as CloudWatch Embedded Metric Format lines by lambdas/shared/metrics.ts,
 * read by the dashboard and documented in docs/operations.md.
 */
export const METRICS = {
  namespace: 'Hookgate',
  names: {
    /** Per accepted event (ingest, publish, replay); dimension `direction`. */
    ingested: 'Ingested',
    /** Per try of one delivery; dimension `outcome` (success, http_error, network_error, timeout, blocked). */
    deliveryAttempts: 'DeliveryAttempts',
    /** Per successful try. */
    delivered: 'Delivered',
    /** Per failed try (retried or not). */
    deliveryFailed: 'DeliveryFailed',
    /** Per delivery given up after its last try. */
    deadLettered: 'DeadLettered',
    /** Per webhook refused for its signature; dimension `provider`. */
    verificationRejected: 'VerificationRejected',
    /** Milliseconds from the event's receipt to its successful delivery. */
    deliveryLatency: 'DeliveryLatency',
    /** Per destination breaker that opened (consecutive failures) or closed again (a probe succeeded). */
    breakerOpened: 'BreakerOpened',
    breakerRecovered: 'BreakerRecovered',
    /** Per delivery ended without a try (destination deleted or given away, or its event's window ended); dimension `reason`. */
    deliveryEnded: 'DeliveryEnded',
  },
} as const;

/** The `service` dimension of every Hookgate metric: one per stage, so stages sharing an account never mix. */
export function metricsService(stage: string | undefined): string {
  return stage ? `hookgate-${stage}` : 'hookgate';
}

/**
 * The encryption context (with `account_id`) an account's subject key (lambdas/events/subject-index.ts)
 * is sealed under: the only context the functions that hash subjects may decrypt, so none of them can
 * open an Ed25519 private key.
 */
export const SUBJECT_KEY_CONTEXT = { purpose: 'subject_key' } as const;
