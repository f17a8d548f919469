import { readFileSync } from 'node:fs';
import { CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp, createApp, type BuildAppOptions, type HookgateStacks } from '../../lib/app-builder';
import type { HookgateFunction } from '../../lib/constructs/hookgate-function';
import { DELIVERY_QUEUE, ENV } from '../../lib/resource-definitions';

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

let stacks: HookgateStacks;
let template: Template;

// cdk-nag is left to nag.test.ts, so a nag finding does not hide which assertion regressed.
beforeAll(() => {
  const app = createApp();
  stacks = buildApp(app, { stage: 'test', nag: false });
  template = Template.fromStack(stacks.service);
});

/** A token of the stateful stack as it appears in the service template (a cross-stack reference). */
const inService = (token: string): unknown => stacks.service.resolve(token);

function logicalId(construct: IConstruct): string {
  const resource = construct.node.defaultChild;
  if (!CfnElement.isCfnElement(resource)) throw new Error(`${construct.node.path} has no CloudFormation resource`);
  return Stack.of(construct).resolve(resource.logicalId) as string;
}

function statementsOf(fn: HookgateFunction): Statement[] {
  const policyId = logicalId(fn.role.node.findChild('DefaultPolicy'));
  return template.toJSON().Resources[policyId].Properties.PolicyDocument.Statement as Statement[];
}

const actionsOf = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);
const resourcesOf = (s: Statement): unknown[] => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]);
const allows = (fn: HookgateFunction) => statementsOf(fn).filter((s) => s.Effect === 'Allow');

/** Resources of the statements that allow any action of the service (`sqs:`, `s3:` …). */
function resourcesFor(fn: HookgateFunction, prefix: string): unknown[] {
  return allows(fn)
    .filter((s) => actionsOf(s).some((a) => a.startsWith(prefix)))
    .flatMap(resourcesOf);
}

/** Every action pattern the function is allowed for the service, sorted. */
function actionsFor(fn: HookgateFunction, prefix: string): string[] {
  return [...new Set(allows(fn).flatMap(actionsOf).filter((a) => a.startsWith(prefix)))].sort();
}

/** Whether any allowed action pattern (wildcards included, as IAM reads them) covers `action`. */
function canDo(fn: HookgateFunction, action: string): boolean {
  // Action patterns are `service:Name` with `*` as the only special character.
  return allows(fn)
    .flatMap(actionsOf)
    .some((pattern) => new RegExp(`^${pattern.replaceAll('*', '[A-Za-z0-9]*')}$`, 'i').test(action));
}

const functionsById = () =>
  ({
    api: stacks.service.apiFunction,
    ingest: stacks.service.ingestFunction,
    deliver: stacks.service.deliverFunction,
    reconciler: stacks.service.reconcilerFunction,
  }) as const;

function functionProperties(fn: HookgateFunction): Record<string, unknown> {
  return template.toJSON().Resources[logicalId(fn.fn)].Properties as Record<string, unknown>;
}

function serviceEnvironment(): Record<string, unknown> {
  const { table, deliveryQueue, payloadBucket, exportBucket } = stacks.stateful;
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return {
    NODE_OPTIONS: '--enable-source-maps',
    [ENV.tableName]: inService(table.tableName),
    [ENV.deliveryQueueUrl]: inService(deliveryQueue.queueUrl),
    [ENV.payloadBucket]: inService(payloadBucket.bucketName),
    [ENV.exportBucket]: inService(exportBucket.bucketName),
    [ENV.publicUrl]: { 'Fn::GetAtt': [logicalId(stacks.service.httpApi), 'ApiEndpoint'] },
    [ENV.version]: version,
  };
}

/** Another app with other options; bundling skipped, since only the templates are looked at. */
function buildOther(opts: Omit<BuildAppOptions, 'stage' | 'nag'>): HookgateStacks {
  const app = createApp({ context: { 'aws:cdk:bundling-stacks': [] } });
  return buildApp(app, { stage: 'other', nag: false, ...opts });
}

describe('functions', () => {
  it('run Node 24 on arm64 with active tracing, bundled as ESM', () => {
    template.allResourcesProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      TracingConfig: { Mode: 'Active' },
      Handler: 'index.handler',
      LoggingConfig: { LogGroup: { Ref: Match.anyValue() } },
    });
  });

  it('log to a log group kept for 30 days', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    expect(Object.keys(functions).length).toBeGreaterThan(0);
    for (const fn of Object.values(functions)) {
      const logGroupId: string = fn.Properties.LoggingConfig.LogGroup.Ref;
      expect(template.toJSON().Resources[logGroupId]).toMatchObject({
        Type: 'AWS::Logs::LogGroup',
        Properties: { RetentionInDays: 30 },
      });
    }
  });

  it('have roles of their own, without AWS-managed policies', () => {
    for (const role of Object.values(template.findResources('AWS::IAM::Role'))) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });

  it('api function: 512 MB, under the 30 s API timeout, with the service environment', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      MemorySize: 512,
      Timeout: 29,
      Environment: { Variables: Match.objectEquals(serviceEnvironment()) },
    });
  });

  it.each([
    ['api', 512, 29, {}],
    ['ingest', 512, 29, {}],
    ['deliver', 512, DELIVERY_QUEUE.consumerTimeoutSeconds, {}],
    ['reconciler', 512, 300, { [ENV.reconcileGraceSeconds]: '120' }],
  ] as const)('%s function: %i MB, %i s, the service environment plus %o', (name, memory, timeout, extra) => {
    const properties = functionProperties(functionsById()[name]);
    expect(properties.MemorySize).toBe(memory);
    expect(properties.Timeout).toBe(timeout);
    expect(properties.Environment).toEqual({ Variables: { ...serviceEnvironment(), ...extra } });
  });

  it('the retry schedule is left to the handlers unless given', () => {
    for (const fn of Object.values(functionsById())) {
      expect(Object.keys((functionProperties(fn).Environment as { Variables: object }).Variables)).not.toContain(
        ENV.retrySchedule,
      );
    }
  });

  it('a given retry schedule reaches every function, and the stuck-queue alarm follows its longest step', () => {
    const other = buildOther({ retrySchedule: ' 0, 60,600 , 7200' });
    const otherTemplate = Template.fromStack(other.service);
    const functions = Object.values(otherTemplate.findResources('AWS::Lambda::Function'));
    expect(functions).toHaveLength(4);
    for (const fn of functions) {
      expect(fn.Properties.Environment.Variables[ENV.retrySchedule]).toBe('0,60,600,7200');
    }
    otherTemplate.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateAgeOfOldestMessage',
      Threshold: 7200 + 300,
    });
  });

  it('a malformed retry schedule fails the synth', () => {
    expect(() => buildOther({ retrySchedule: '0,30,soon' })).toThrow(/invalid retry schedule/);
  });

  it('the deliver function has no reserved concurrency (the event source caps it)', () => {
    expect(functionProperties(stacks.service.deliverFunction).ReservedConcurrentExecutions).toBeUndefined();
  });
});

describe('HTTP API', () => {
  it('routes ANY / and ANY /{proxy+} to the api function, POST /ingest/{token} to the ingest function', () => {
    const integrations = Object.entries(template.findResources('AWS::ApiGatewayV2::Integration'));
    expect(integrations).toHaveLength(2);
    const integrationOf = (fn: HookgateFunction): string => {
      const found = integrations.filter(
        ([, i]) => JSON.stringify(i.Properties.IntegrationUri) === JSON.stringify({ 'Fn::GetAtt': [logicalId(fn.fn), 'Arn'] }),
      );
      expect(found).toHaveLength(1);
      expect(found[0]?.[1].Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
      return found[0]?.[0] ?? '';
    };
    const target = (fn: HookgateFunction) => ({ 'Fn::Join': ['', ['integrations/', { Ref: integrationOf(fn) }]] });

    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route'));
    expect(Object.fromEntries(routes.map((r) => [r.Properties.RouteKey, r.Properties.Target]))).toEqual({
      'ANY /': target(stacks.service.apiFunction),
      'ANY /{proxy+}': target(stacks.service.apiFunction),
      'POST /ingest/{token}': target(stacks.service.ingestFunction),
    });
    for (const route of routes) expect(route.Properties.AuthorizationType).toBe('NONE');
  });

  it('has a $default stage with throttling and JSON access logs', () => {
    const stages = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
    expect(stages).toHaveLength(1);
    const stage = stages[0]?.Properties;
    expect(stage).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingBurstLimit: 500, ThrottlingRateLimit: 1000 },
      AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': [expect.any(String), 'Arn'] } },
    });
    const format = JSON.parse(stage.AccessLogSettings.Format as string) as Record<string, string>;
    expect(format).toMatchObject({ requestId: '$context.requestId', status: '$context.status' });
    expect(JSON.stringify(format)).not.toContain('$context.path');
  });

  it('outputs the API URL', () => {
    template.hasOutput('ApiUrl', { Value: { 'Fn::GetAtt': [logicalId(stacks.service.httpApi), 'ApiEndpoint'] } });
  });
});

describe('delivery worker', () => {
  it('consumes the delivery queue in batches of 10, reporting failures per item, without waiting to fill a batch', () => {
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
    expect(mappings).toHaveLength(1);
    expect(mappings[0]?.Properties).toMatchObject({
      FunctionName: { Ref: logicalId(stacks.service.deliverFunction.fn) },
      EventSourceArn: inService(stacks.stateful.deliveryQueue.queueArn),
      BatchSize: DELIVERY_QUEUE.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      MaximumBatchingWindowInSeconds: 0,
      ScalingConfig: { MaximumConcurrency: 50 },
    });
    expect(DELIVERY_QUEUE.batchSize).toBe(10);
  });
});

describe('reconciler', () => {
  it('runs every minute from an EventBridge schedule', () => {
    const rules = Object.entries(template.findResources('AWS::Events::Rule'));
    expect(rules).toHaveLength(1);
    const [ruleId, rule] = rules[0] ?? [];
    expect(rule?.Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [{ Arn: { 'Fn::GetAtt': [logicalId(stacks.service.reconcilerFunction.fn), 'Arn'] } }],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [logicalId(stacks.service.reconcilerFunction.fn), 'Arn'] },
      Principal: 'events.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [ruleId, 'Arn'] },
    });
  });

  it('is not retried asynchronously: the next run supersedes a failed one', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: logicalId(stacks.service.reconcilerFunction.fn) },
      MaximumRetryAttempts: 0,
    });
  });
});

describe('alarms', () => {
  const topicRef = () => ({ Ref: logicalId(stacks.service.alarms.topic) });

  it('DLQ: at least one visible message within one minute, missing data is fine', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: inService(stacks.stateful.deliveryDlq.queueName) }],
      Statistic: 'Maximum',
      Period: 60,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      TreatMissingData: 'notBreaching',
      AlarmActions: [topicRef()],
      OKActions: [topicRef()],
    });
  });

  it('delivery queue: oldest message older than the longest retry wait (1 h) plus 5 min', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: inService(stacks.stateful.deliveryQueue.queueName) }],
      Statistic: 'Maximum',
      Period: 60,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 3900,
      TreatMissingData: 'notBreaching',
      AlarmActions: [topicRef()],
      OKActions: [topicRef()],
    });
  });

  it('are the only two alarms, and every alarm notifies the topic', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(2);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([topicRef()]);
  });

  it('topic: encrypted with a rotating customer-managed key that CloudWatch may use', () => {
    const keyId = logicalId(stacks.service.alarms.key);
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] } });
    const key = template.toJSON().Resources[keyId];
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.Properties.KeyPolicy.Statement).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      }),
    );
  });

  it('topic policy: TLS only, and CloudWatch may publish for these two alarms only', () => {
    const alarmArns = [stacks.service.alarms.dlqNotEmpty, stacks.service.alarms.queueStuck].map((a) => ({
      'Fn::GetAtt': [logicalId(a), 'Arn'],
    }));
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [topicRef()],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 'sns:Publish',
            Principal: '*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
          Match.objectLike({
            Effect: 'Allow',
            Action: 'sns:Publish',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Condition: {
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              ArnEquals: { 'aws:SourceArn': alarmArns },
            },
          }),
        ]),
      },
    });
  });

  it('subscribes an email address only when given one', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    const other = Template.fromStack(buildOther({ alarmEmail: 'ops@example.com' }).service);
    other.resourceCountIs('AWS::SNS::Subscription', 1);
    other.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
  });
});

describe('function permissions', () => {
  const tableArn = () => inService(stacks.stateful.table.tableArn);
  const queueArn = () => inService(stacks.stateful.deliveryQueue.queueArn);
  const bucketArn = () => inService(stacks.stateful.payloadBucket.bucketArn);
  const objectsArn = () => ({ 'Fn::Join': ['', [bucketArn(), '/*']] });
  const SEND = ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'];
  const CONSUME = ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage'];
  const READ = ['s3:GetBucket*', 's3:GetObject*', 's3:List*'];
  const PUT = ['s3:Abort*', 's3:PutObject', 's3:PutObjectLegalHold', 's3:PutObjectRetention', 's3:PutObjectTagging', 's3:PutObjectVersionTagging'];

  it.each(['api', 'ingest', 'deliver', 'reconciler'] as const)('%s: DynamoDB actions only on the table and its indexes', (name) => {
    expect(resourcesFor(functionsById()[name], 'dynamodb:')).toEqual([tableArn(), { 'Fn::Join': ['', [tableArn(), '/index/*']] }]);
  });

  it.each(['api', 'ingest', 'deliver', 'reconciler'] as const)('%s: nothing beyond logs, X-Ray, DynamoDB, SQS and S3', (name) => {
    for (const action of allows(functionsById()[name]).flatMap(actionsOf)) {
      expect(action).toMatch(/^(logs|xray|dynamodb|sqs|s3):/);
    }
  });

  it('api: sends to the delivery queue (replay), reads and puts payload objects (event detail, replay copies)', () => {
    const fn = stacks.service.apiFunction;
    expect(actionsFor(fn, 'sqs:')).toEqual(SEND);
    expect(resourcesFor(fn, 'sqs:')).toEqual([queueArn()]);
    expect(actionsFor(fn, 's3:')).toEqual([...READ, ...PUT].sort());
    expect(resourcesFor(fn, 's3:')).toEqual([bucketArn(), objectsArn(), objectsArn()]);
    expect(canDo(fn, 's3:GetObject') && canDo(fn, 's3:PutObject')).toBe(true);
    expect(canDo(fn, 's3:DeleteObject')).toBe(false);
  });

  it('ingest: sends to the delivery queue and puts payload objects; never reads one back or receives', () => {
    const fn = stacks.service.ingestFunction;
    expect(actionsFor(fn, 'sqs:')).toEqual(SEND);
    expect(resourcesFor(fn, 'sqs:')).toEqual([queueArn()]);
    expect(actionsFor(fn, 's3:')).toEqual(PUT);
    expect(resourcesFor(fn, 's3:')).toEqual([objectsArn()]);
    expect(canDo(fn, 's3:GetObject')).toBe(false);
    expect(canDo(fn, 'sqs:ReceiveMessage')).toBe(false);
  });

  it('deliver: consumes the delivery queue (with ChangeMessageVisibility) and reads payloads; sends and puts nothing', () => {
    const fn = stacks.service.deliverFunction;
    expect(actionsFor(fn, 'sqs:')).toEqual(CONSUME);
    expect(resourcesFor(fn, 'sqs:')).toEqual([queueArn()]);
    expect(actionsFor(fn, 's3:')).toEqual(READ);
    expect(resourcesFor(fn, 's3:')).toEqual([bucketArn(), objectsArn()]);
    expect(canDo(fn, 'sqs:SendMessage')).toBe(false);
    expect(canDo(fn, 'sqs:SendMessageBatch')).toBe(false);
    expect(canDo(fn, 's3:PutObject')).toBe(false);
  });

  it('reconciler: sends to the delivery queue; no S3 at all', () => {
    const fn = stacks.service.reconcilerFunction;
    expect(actionsFor(fn, 'sqs:')).toEqual(SEND);
    expect(resourcesFor(fn, 'sqs:')).toEqual([queueArn()]);
    expect(actionsFor(fn, 's3:')).toEqual([]);
  });

  it('no function may touch the DLQ or the export bucket: only the redrive policy moves messages to the DLQ', () => {
    const { deliveryDlq, exportBucket } = stacks.stateful;
    const forbidden = [deliveryDlq.queueArn, deliveryDlq.queueUrl, deliveryDlq.queueName, exportBucket.bucketArn].map(
      (token) => JSON.stringify(inService(token)),
    );
    for (const policy of Object.values(template.findResources('AWS::IAM::Policy'))) {
      const document = JSON.stringify(policy.Properties.PolicyDocument);
      for (const reference of forbidden) expect(document).not.toContain(reference);
    }
  });

  it('the only statement on Resource "*" is X-Ray (the acknowledged AwsSolutions-IAM5[Resource::*])', () => {
    for (const policy of Object.values(template.findResources('AWS::IAM::Policy'))) {
      for (const statement of policy.Properties.PolicyDocument.Statement as Statement[]) {
        if (resourcesOf(statement).includes('*')) {
          expect(actionsOf(statement).sort()).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
        }
      }
    }
  });
});
