import { readFileSync } from 'node:fs';
import { CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp, createApp, type HookgateStacks } from '../../lib/app-builder';
import { ENV } from '../../lib/resource-definitions';

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

function apiStatements(): Statement[] {
  const policyId = logicalId(stacks.service.apiFunction.role.node.findChild('DefaultPolicy'));
  return template.toJSON().Resources[policyId].Properties.PolicyDocument.Statement as Statement[];
}

const actionsOf = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);
const resourcesOf = (s: Statement): unknown[] => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]);

function resourcesFor(prefix: string): unknown[] {
  return apiStatements()
    .filter((s) => s.Effect === 'Allow' && actionsOf(s).some((a) => a.startsWith(prefix)))
    .flatMap(resourcesOf);
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
    const { table, deliveryQueue, payloadBucket, exportBucket } = stacks.stateful;
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    template.hasResourceProperties('AWS::Lambda::Function', {
      MemorySize: 512,
      Timeout: 29,
      Environment: {
        Variables: Match.objectEquals({
          NODE_OPTIONS: '--enable-source-maps',
          [ENV.tableName]: inService(table.tableName),
          [ENV.deliveryQueueUrl]: inService(deliveryQueue.queueUrl),
          [ENV.payloadBucket]: inService(payloadBucket.bucketName),
          [ENV.exportBucket]: inService(exportBucket.bucketName),
          [ENV.publicUrl]: { 'Fn::GetAtt': [logicalId(stacks.service.httpApi), 'ApiEndpoint'] },
          [ENV.version]: version,
        }),
      },
    });
  });
});

describe('HTTP API', () => {
  it('routes ANY / and ANY /{proxy+} to the api function', () => {
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
    const [integrationId, integration] = Object.entries(integrations)[0] ?? [];
    expect(Object.keys(integrations)).toHaveLength(1);
    expect(integration?.Properties).toMatchObject({
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
      IntegrationUri: { 'Fn::GetAtt': [logicalId(stacks.service.apiFunction.fn), 'Arn'] },
    });

    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route'));
    expect(routes.map((r) => r.Properties.RouteKey).sort()).toEqual(['ANY /', 'ANY /{proxy+}']);
    for (const route of routes) {
      expect(route.Properties.Target).toEqual({ 'Fn::Join': ['', ['integrations/', { Ref: integrationId }]] });
    }
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

describe('api function permissions', () => {
  it('DynamoDB actions only on the table and its indexes', () => {
    const tableArn = inService(stacks.stateful.table.tableArn);
    expect(resourcesFor('dynamodb:')).toEqual([tableArn, { 'Fn::Join': ['', [tableArn, '/index/*']] }]);
  });

  it('no queue or bucket access until a feature needs it', () => {
    expect(resourcesFor('sqs:')).toEqual([]);
    expect(resourcesFor('s3:')).toEqual([]);
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
