import { CfnOutput, Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { PAYLOAD_BACKSTOP_EXPIRY_DAYS, PAYLOAD_EXPIRY_RULES } from '../lambdas/domain/retention';
import { BUCKETS, DELIVERY_DLQ, DELIVERY_QUEUE, TABLE } from '../lambdas/shared/resource-definitions';

/**
 * How the table pays for reads and writes. On-demand bills each request; provisioned bills capacity by
 * the hour, kept near `TARGET_UTILIZATION_PERCENT` of what is consumed by auto scaling between `min` and
 * `max` units, for the table and each global index alike (docs/operations.md has when it pays).
 */
export type TableCapacity =
  | { readonly mode: 'on-demand' }
  | {
      readonly mode: 'provisioned';
      readonly minReadCapacity: number;
      readonly maxReadCapacity: number;
      readonly minWriteCapacity: number;
      readonly maxWriteCapacity: number;
    };

/** Auto scaling's target: headroom for a burst while the scaling (minutes behind) catches up. */
const TARGET_UTILIZATION_PERCENT = 70;

export interface StatefulStackProps extends StackProps {
  /** @default on-demand */
  readonly capacity?: TableCapacity;
}

/** What the service stack needs from the stateful one. */
export interface StatefulResources {
  readonly table: dynamodb.ITable;
  readonly deliveryQueue: sqs.IQueue;
  readonly deliveryDlq: sqs.IQueue;
  readonly payloadBucket: s3.IBucket;
  readonly exportBucket: s3.IBucket;
  readonly signingKeysKey: kms.IKey;
}

/** Export files are short-lived: clients download them through a pre-signed URL soon after creation. */
const EXPORT_EXPIRY = Duration.days(BUCKETS.exports.fileExpiryDays);
const ACCESS_LOG_EXPIRY = Duration.days(90);
/**
 * In AWS, TTL deletes events and never their payload objects: each retention class's prefix expires
 * with its events (lambdas/domain/retention.ts, which the key builder uses too, so the two cannot
 * drift). The backstop takes anything else (keys of the older layout) after the longest window.
 * Where rules overlap, S3 applies the shortest expiration, so the backstop never holds a class longer.
 */
const payloadLifecycleRules = (): s3.LifecycleRule[] => [
  ...PAYLOAD_EXPIRY_RULES.map(({ prefix, expirationDays }) => ({ id: prefix.replace(/\/$/, ''), prefix, expiration: Duration.days(expirationDays) })),
  { id: 'backstop', expiration: Duration.days(PAYLOAD_BACKSTOP_EXPIRY_DAYS), abortIncompleteMultipartUploadAfter: Duration.days(1) },
];

/**
 * Everything that holds data and must survive a redeploy of the functions. Construct ids here are
 * part of the CloudFormation logical ids: renaming one replaces (or orphans) the resource.
 */
export class StatefulStack extends Stack implements StatefulResources {
  readonly table: dynamodb.Table;
  readonly deliveryQueue: sqs.Queue;
  readonly deliveryDlq: sqs.Queue;
  readonly payloadBucket: s3.Bucket;
  readonly exportBucket: s3.Bucket;
  readonly accessLogsBucket: s3.Bucket;
  readonly signingKeysKey: kms.Key;

  constructor(scope: Construct, id: string, props?: StatefulStackProps) {
    super(scope, id, props);

    this.table = createTable(this, props?.capacity ?? { mode: 'on-demand' });
    // Accounts' Ed25519 private keys and subject keys are stored encrypted with it: deleting it would make every one unusable.
    this.signingKeysKey = new kms.Key(this, 'SigningKeysKey', {
      description: 'Hookgate: encrypts accounts\' Ed25519 signing keys (the private halves in the table) and subject keys',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    [this.deliveryQueue, this.deliveryDlq] = createDeliveryQueues(this);
    // What the runbooks (docs/operations.md) need: inspecting the DLQ and redriving it.
    new CfnOutput(this, 'DeliveryQueueArn', { value: this.deliveryQueue.queueArn, description: 'Delivery queue (redrive destination)' });
    new CfnOutput(this, 'DeliveryDlqArn', { value: this.deliveryDlq.queueArn, description: 'Delivery DLQ (redrive source)' });
    new CfnOutput(this, 'DeliveryDlqUrl', { value: this.deliveryDlq.queueUrl, description: 'Delivery DLQ URL (to inspect its messages)' });
    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'The table (npm run create-account writes accounts to it)' });

    this.accessLogsBucket = new s3.Bucket(this, 'AccessLogsBucket', {
      ...secureBucketDefaults,
      lifecycleRules: [{ expiration: ACCESS_LOG_EXPIRY }],
    });
    Validations.of(this.accessLogsBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This bucket receives the server access logs of the other buckets; logging it into itself would loop.',
    });

    this.payloadBucket = new s3.Bucket(this, 'PayloadBucket', {
      ...secureBucketDefaults,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'payloads/',
      lifecycleRules: payloadLifecycleRules(),
    });

    this.exportBucket = new s3.Bucket(this, 'ExportBucket', {
      ...secureBucketDefaults,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'exports/',
      lifecycleRules: [{ expiration: EXPORT_EXPIRY, abortIncompleteMultipartUploadAfter: Duration.days(1) }],
    });
  }
}

const secureBucketDefaults = {
  blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
  encryption: s3.BucketEncryption.S3_MANAGED,
  enforceSSL: true,
  objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
  removalPolicy: RemovalPolicy.RETAIN,
} satisfies s3.BucketProps;

function createTable(scope: Construct, capacity: TableCapacity): dynamodb.Table {
  const provisioned = capacity.mode === 'provisioned' ? checkedCapacity(capacity) : undefined;
  // Auto scaling owns the capacity after the first deploy; these are only where it starts.
  const startingCapacity = provisioned && { readCapacity: provisioned.minReadCapacity, writeCapacity: provisioned.minWriteCapacity };
  const table = new dynamodb.Table(scope, 'Table', {
    partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: TABLE.sortKey, type: dynamodb.AttributeType.STRING },
    ...(startingCapacity ? { billingMode: dynamodb.BillingMode.PROVISIONED, ...startingCapacity } : { billingMode: dynamodb.BillingMode.PAY_PER_REQUEST }),
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    timeToLiveAttribute: TABLE.ttlAttribute,
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });

  for (const index of TABLE.globalIndexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.indexName,
      partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
      ...(index.projection === 'INCLUDE'
        ? { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...index.nonKeyAttributes] }
        : { projectionType: dynamodb.ProjectionType.KEYS_ONLY }),
      ...startingCapacity,
    });
  }
  if (provisioned) autoScale(table, provisioned);
  return table;
}

/** Reads and writes of the table and of every index scale on their own, each toward the same target. */
function autoScale(table: dynamodb.Table, capacity: Extract<TableCapacity, { mode: 'provisioned' }>): void {
  const reads = { minCapacity: capacity.minReadCapacity, maxCapacity: capacity.maxReadCapacity };
  const writes = { minCapacity: capacity.minWriteCapacity, maxCapacity: capacity.maxWriteCapacity };
  const target = { targetUtilizationPercent: TARGET_UTILIZATION_PERCENT };
  table.autoScaleReadCapacity(reads).scaleOnUtilization(target);
  table.autoScaleWriteCapacity(writes).scaleOnUtilization(target);
  for (const { indexName } of TABLE.globalIndexes) {
    table.autoScaleGlobalSecondaryIndexReadCapacity(indexName, reads).scaleOnUtilization(target);
    table.autoScaleGlobalSecondaryIndexWriteCapacity(indexName, writes).scaleOnUtilization(target);
  }
}

/** Refused at synth rather than by Application Auto Scaling half-way through a deploy. */
function checkedCapacity<T extends Extract<TableCapacity, { mode: 'provisioned' }>>(capacity: T): T {
  for (const kind of ['Read', 'Write'] as const) {
    const min = capacity[`min${kind}Capacity`];
    const max = capacity[`max${kind}Capacity`];
    if (!Number.isInteger(min) || min < 1) throw new Error(`min${kind}Capacity must be a whole number of at least 1, got ${min}`);
    if (!Number.isInteger(max) || max < min) throw new Error(`max${kind}Capacity must be a whole number of at least min${kind}Capacity (${min}), got ${max}`);
  }
  return capacity;
}

const SQS_MAX_RETENTION_SECONDS = 14 * 24 * 3600;

function createDeliveryQueues(scope: Construct): [queue: sqs.Queue, dlq: sqs.Queue] {
  if (DELIVERY_QUEUE.visibilityTimeoutSeconds < 6 * DELIVERY_QUEUE.consumerTimeoutSeconds) {
    throw new Error('DELIVERY_QUEUE.visibilityTimeoutSeconds must be at least 6x consumerTimeoutSeconds');
  }
  if (!(DELIVERY_QUEUE.retentionSeconds < DELIVERY_DLQ.retentionSeconds && DELIVERY_DLQ.retentionSeconds <= SQS_MAX_RETENTION_SECONDS)) {
    throw new Error('DELIVERY_DLQ.retentionSeconds must be above DELIVERY_QUEUE.retentionSeconds and at most 14 days');
  }

  const dlq = new sqs.Queue(scope, 'DeliveryDlq', {
    retentionPeriod: Duration.seconds(DELIVERY_DLQ.retentionSeconds),
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  });

  const queue = new sqs.Queue(scope, 'DeliveryQueue', {
    visibilityTimeout: Duration.seconds(DELIVERY_QUEUE.visibilityTimeoutSeconds),
    retentionPeriod: Duration.seconds(DELIVERY_QUEUE.retentionSeconds),
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    deadLetterQueue: { queue: dlq, maxReceiveCount: DELIVERY_QUEUE.maxReceiveCount },
  });

  return [queue, dlq];
}
