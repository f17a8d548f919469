import { MAX_RETENTION_DAYS } from '../../lambdas/domain/plans';
import { TTL_MARGIN_DAYS } from '../../lambdas/domain/retention';
import { payloadKey } from '../../lambdas/adapters/payloads';
import { CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp, createApp, PROVISIONED_CAPACITY_DEFAULTS, type BuildAppOptions } from '../../lib/app-builder';
import { DELIVERY_DLQ, DELIVERY_QUEUE, TABLE } from '../../lambdas/shared/resource-definitions';
import type { StatefulStack } from '../../lib/stateful-stack';

let stack: StatefulStack;
let template: Template;

// cdk-nag is left to nag.test.ts, so a nag finding does not hide which assertion regressed.
beforeAll(() => {
  const app = createApp();
  stack = buildApp(app, { stage: 'test', nag: false }).stateful;
  template = Template.fromStack(stack);
});

function logicalId(construct: IConstruct): string {
  const resource = construct.node.defaultChild;
  if (!CfnElement.isCfnElement(resource)) throw new Error(`${construct.node.path} has no CloudFormation resource`);
  return Stack.of(construct).resolve(resource.logicalId) as string;
}

const arnOf = (construct: IConstruct) => ({ 'Fn::GetAtt': [logicalId(construct), 'Arn'] });

describe('table', () => {
  it('is a single on-demand table keyed by pk/sk strings, with PITR, TTL and deletion protection', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        KeySchema: [
          { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
        ],
        AttributeDefinitions: Match.arrayWith([
          { AttributeName: TABLE.partitionKey, AttributeType: 'S' },
          { AttributeName: TABLE.sortKey, AttributeType: 'S' },
        ]),
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
        DeletionProtectionEnabled: true,
      }),
    });
  });

  it('has exactly the global indexes of the definitions, with their keys and projections', () => {
    const expected = TABLE.globalIndexes.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection:
        index.projection === 'INCLUDE'
          ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.nonKeyAttributes] }
          : { ProjectionType: index.projection },
    }));
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: Match.exact(expected),
    });
    expect(TABLE.globalIndexes.map((i) => i.indexName)).toEqual(['gsi1', 'gsi2']);
  });
});

describe('table capacity', () => {
  // Bundling skipped: only the stateful template is looked at.
  const otherApp = () => createApp({ context: { 'aws:cdk:bundling-stacks': [] } });
  const provisioned = (opts: Partial<BuildAppOptions> = {}) =>
    Template.fromStack(buildApp(otherApp(), { stage: 'steady', nag: false, billingMode: 'provisioned', ...opts }).stateful);
  const tableId = () => logicalId(stack.table);
  /** Scalable targets as `<resource>/<read|write>`: `table` or the index name, with min and max. */
  function targetsOf(t: Template): Record<string, { min: number; max: number }> {
    const targets = Object.values(t.findResources('AWS::ApplicationAutoScaling::ScalableTarget'));
    return Object.fromEntries(
      targets.map(({ Properties: p }) => {
        const joined = JSON.stringify(p.ResourceId);
        const index = /\/index\/([^"/]+)/.exec(joined)?.[1] ?? 'table';
        const kind = /ReadCapacityUnits$/.test(p.ScalableDimension as string) ? 'read' : 'write';
        expect(p.ScalableDimension).toBe(`dynamodb:${index === 'table' ? 'table' : 'index'}:${kind === 'read' ? 'Read' : 'Write'}CapacityUnits`);
        return [`${index}/${kind}`, { min: p.MinCapacity as number, max: p.MaxCapacity as number }];
      }),
    );
  }

  it('is on-demand by default: no provisioned throughput, no auto scaling', () => {
    const properties = template.toJSON().Resources[tableId()].Properties;
    expect(properties.BillingMode).toBe('PAY_PER_REQUEST');
    expect(properties.ProvisionedThroughput).toBeUndefined();
    for (const index of properties.GlobalSecondaryIndexes) expect(index.ProvisionedThroughput).toBeUndefined();
    template.resourceCountIs('AWS::ApplicationAutoScaling::ScalableTarget', 0);
    template.resourceCountIs('AWS::ApplicationAutoScaling::ScalingPolicy', 0);
  });

  it('billingMode provisioned: the table and every index start at the minimum, and read and write each scale between the defaults', () => {
    const t = provisioned();
    const properties = Object.values(t.findResources('AWS::DynamoDB::Table'))[0]?.Properties;
    // CDK leaves BillingMode out for provisioned: CloudFormation's default.
    expect(properties.BillingMode ?? 'PROVISIONED').toBe('PROVISIONED');
    const start = { ReadCapacityUnits: PROVISIONED_CAPACITY_DEFAULTS.minReadCapacity, WriteCapacityUnits: PROVISIONED_CAPACITY_DEFAULTS.minWriteCapacity };
    expect(properties.ProvisionedThroughput).toEqual(start);
    expect(properties.GlobalSecondaryIndexes.map((i: { ProvisionedThroughput: unknown }) => i.ProvisionedThroughput)).toEqual(TABLE.globalIndexes.map(() => start));
    const reads = { min: PROVISIONED_CAPACITY_DEFAULTS.minReadCapacity, max: PROVISIONED_CAPACITY_DEFAULTS.maxReadCapacity };
    const writes = { min: PROVISIONED_CAPACITY_DEFAULTS.minWriteCapacity, max: PROVISIONED_CAPACITY_DEFAULTS.maxWriteCapacity };
    expect(targetsOf(t)).toEqual(
      Object.fromEntries(['table', ...TABLE.globalIndexes.map((i) => i.indexName)].flatMap((name) => [[`${name}/read`, reads], [`${name}/write`, writes]])),
    );
  });

  it('every scalable target has one target-tracking policy at 70% utilisation of its own kind', () => {
    const t = provisioned();
    const targets = Object.entries(t.findResources('AWS::ApplicationAutoScaling::ScalableTarget'));
    const policies = Object.values(t.findResources('AWS::ApplicationAutoScaling::ScalingPolicy'));
    expect(targets).toHaveLength(2 * (1 + TABLE.globalIndexes.length));
    expect(policies).toHaveLength(targets.length);
    for (const [id, target] of targets) {
      const mine = policies.filter((p) => JSON.stringify(p.Properties.ScalingTargetId) === JSON.stringify({ Ref: id }));
      expect(mine).toHaveLength(1);
      const kind = /Read/.test(target.Properties.ScalableDimension as string) ? 'Read' : 'Write';
      expect(mine[0]?.Properties).toMatchObject({
        PolicyType: 'TargetTrackingScaling',
        TargetTrackingScalingPolicyConfiguration: {
          TargetValue: 70,
          PredefinedMetricSpecification: { PredefinedMetricType: `DynamoDB${kind}CapacityUtilization` },
        },
      });
    }
  });

  it('the min and max context keys set the bounds; bad bounds, or bounds without provisioned, fail the synth', () => {
    expect(targetsOf(provisioned({ minWriteCapacity: 20, maxWriteCapacity: 2000, minReadCapacity: 2, maxReadCapacity: 50 }))).toMatchObject({
      'table/write': { min: 20, max: 2000 },
      'gsi2/write': { min: 20, max: 2000 },
      'gsi1/read': { min: 2, max: 50 },
    });
    expect(() => provisioned({ minWriteCapacity: 100, maxWriteCapacity: 50 })).toThrow(/maxWriteCapacity/);
    expect(() => provisioned({ minReadCapacity: 0 })).toThrow(/minReadCapacity/);
    expect(() => buildApp(otherApp(), { stage: 'odd', nag: false, maxWriteCapacity: 10 })).toThrow(/only apply with billingMode provisioned/);
  });
});

describe('delivery queues', () => {
  it('has the delivery queue and its DLQ only', () => {
    template.resourceCountIs('AWS::SQS::Queue', 2);
  });

  it('sets visibility and retention from the definitions and redrives to the DLQ', () => {
    expect(template.toJSON().Resources[logicalId(stack.deliveryQueue)].Properties).toEqual(
      expect.objectContaining({
        VisibilityTimeout: DELIVERY_QUEUE.visibilityTimeoutSeconds,
        MessageRetentionPeriod: DELIVERY_QUEUE.retentionSeconds,
        RedrivePolicy: {
          deadLetterTargetArn: arnOf(stack.deliveryDlq),
          maxReceiveCount: DELIVERY_QUEUE.maxReceiveCount,
        },
      }),
    );
    expect(DELIVERY_QUEUE.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(6 * DELIVERY_QUEUE.consumerTimeoutSeconds);
  });

  it('keeps DLQ messages for the defined retention, with no redrive of its own', () => {
    const dlq = template.toJSON().Resources[logicalId(stack.deliveryDlq)].Properties;
    expect(dlq.MessageRetentionPeriod).toBe(DELIVERY_DLQ.retentionSeconds);
    expect(dlq.RedrivePolicy).toBeUndefined();
  });

  it('the DLQ keeps messages longer than the delivery queue (a moved message keeps its first enqueue time), at most SQS’s 14 days', () => {
    const retention = (queue: IConstruct) => template.toJSON().Resources[logicalId(queue)].Properties.MessageRetentionPeriod as number;
    expect(retention(stack.deliveryDlq)).toBeGreaterThan(retention(stack.deliveryQueue));
    expect(retention(stack.deliveryDlq)).toBeLessThanOrEqual(14 * 24 * 3600);
    expect(retention(stack.deliveryQueue)).toBe(7 * 24 * 3600);
  });

  it('redrives only after 10 receives or more: SQS counts throttled and crashed receives too', () => {
    const policy = template.toJSON().Resources[logicalId(stack.deliveryQueue)].Properties.RedrivePolicy as { maxReceiveCount: number };
    expect(policy.maxReceiveCount).toBeGreaterThanOrEqual(10);
  });

  it.each([
    ['delivery queue', () => stack.deliveryQueue],
    ['DLQ', () => stack.deliveryDlq],
  ])('%s uses SQS-managed encryption and denies non-TLS access', (_name, queue) => {
    expect(template.toJSON().Resources[logicalId(queue())].Properties.SqsManagedSseEnabled).toBe(true);
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: logicalId(queue()) }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 'sqs:*',
            Principal: { AWS: '*' },
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });
});

describe('signing keys KMS key', () => {
  it('is the stack’s only KMS key: symmetric, rotated yearly, kept when the stack is deleted (the table’s keys are sealed with it)', () => {
    template.resourceCountIs('AWS::KMS::Key', 1);
    const key = template.toJSON().Resources[logicalId(stack.signingKeysKey)];
    expect(key).toMatchObject({ Type: 'AWS::KMS::Key', DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain', Properties: { EnableKeyRotation: true } });
    expect(key.Properties.KeySpec ?? 'SYMMETRIC_DEFAULT').toBe('SYMMETRIC_DEFAULT');
  });
});

describe('buckets', () => {
  const buckets = [
    ['payloads', () => stack.payloadBucket],
    ['exports', () => stack.exportBucket],
    ['access logs', () => stack.accessLogsBucket],
  ] as const;

  it('has the payload, export and access log buckets only', () => {
    template.resourceCountIs('AWS::S3::Bucket', 3);
  });

  it.each(buckets)('%s: public access blocked, S3-managed encryption, retained', (_name, bucket) => {
    const resource = template.toJSON().Resources[logicalId(bucket())];
    expect(resource.DeletionPolicy).toBe('Retain');
    expect(resource.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(resource.Properties.BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
    });
  });

  it.each(buckets)('%s: bucket policy denies non-TLS access to the bucket and its objects', (_name, bucket) => {
    const arn = arnOf(bucket());
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: logicalId(bucket()) },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Principal: { AWS: '*' },
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            Resource: [arn, { 'Fn::Join': ['', [arn, '/*']] }],
          }),
        ]),
      },
    });
  });

  it.each([
    ['payloads', () => stack.payloadBucket],
    ['exports', () => stack.exportBucket],
  ] as const)('%s: server access logs go to the access log bucket', (_name, bucket) => {
    expect(template.toJSON().Resources[logicalId(bucket())].Properties.LoggingConfiguration).toEqual({
      DestinationBucketName: { Ref: logicalId(stack.accessLogsBucket) },
      LogFilePrefix: expect.any(String),
    });
  });

  it('expires export files after 7 days', () => {
    const rules = template.toJSON().Resources[logicalId(stack.exportBucket)].Properties.LifecycleConfiguration.Rules;
    expect(rules).toContainEqual(expect.objectContaining({ ExpirationInDays: 7, Status: 'Enabled' }));
  });

  it('expires payloads with their events: one rule per retention class (class + TTL margin), and a backstop after the longest window', () => {
    const rules = template.toJSON().Resources[logicalId(stack.payloadBucket)].Properties.LifecycleConfiguration.Rules;
    // Written out rather than derived from the domain's ladder, so a change to the ladder shows up here.
    expect(rules).toEqual([
      { Id: 'payloads/r1', Prefix: 'payloads/r1/', ExpirationInDays: 8, Status: 'Enabled' },
      { Id: 'payloads/r7', Prefix: 'payloads/r7/', ExpirationInDays: 14, Status: 'Enabled' },
      { Id: 'payloads/r30', Prefix: 'payloads/r30/', ExpirationInDays: 37, Status: 'Enabled' },
      { Id: 'payloads/r90', Prefix: 'payloads/r90/', ExpirationInDays: 97, Status: 'Enabled' },
      { Id: 'payloads/r365', Prefix: 'payloads/r365/', ExpirationInDays: 372, Status: 'Enabled' },
      { Id: 'payloads/r3650', Prefix: 'payloads/r3650/', ExpirationInDays: 3657, Status: 'Enabled' },
      { Id: 'backstop', ExpirationInDays: 3657, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' },
    ]);
    expect(MAX_RETENTION_DAYS + TTL_MARGIN_DAYS).toBe(3657);
  });

  it('every window an account can have falls in a class whose rule keeps the object at least as long as its body item', () => {
    const rules = template.toJSON().Resources[logicalId(stack.payloadBucket)].Properties.LifecycleConfiguration.Rules as Array<{
      Prefix?: string;
      ExpirationInDays: number;
    }>;
    for (let days = 1; days <= MAX_RETENTION_DAYS; days++) {
      const key = payloadKey('acct', 'evt', days);
      // S3 applies the shortest expiration of the rules that match.
      const expiry = Math.min(...rules.filter((rule) => key.startsWith(rule.Prefix ?? '')).map((rule) => rule.ExpirationInDays));
      expect(expiry).toBeGreaterThanOrEqual(days + TTL_MARGIN_DAYS);
    }
  });
});
