import { readFileSync } from 'node:fs';
import { CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { VISIBILITY_WAIT_MAX_RECEIVES } from '../../lambdas/domain/queue-wait';
import { STALE_CLAIM_MS } from '../../lambdas/exports/worker';
import { buildApp, createApp, type BuildAppOptions, type HookgateStacks } from '../../lib/app-builder';
import { TRIGGER_PROVIDER_ID } from '../../lib/constructs/deploy-trigger';
import type { HookgateFunction } from '../../lib/constructs/hookgate-function';
import { DELIVERY_QUEUE, ENV, SUBJECT_KEY_CONTEXT } from '../../lambdas/shared/resource-definitions';

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
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

/** The logical id of a CloudFormation element, or of a construct's default child. */
function logicalId(construct: IConstruct): string {
  const resource = CfnElement.isCfnElement(construct) ? construct : construct.node.defaultChild;
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

const functionsOf = (service: HookgateStacks['service']) =>
  ({
    api: service.apiFunction,
    ingest: service.ingestFunction,
    deliver: service.deliverFunction,
    export: service.exportFunction,
    sweeper: service.sweeperFunction,
    domainProvisioner: service.domainProvisionerFunction,
    listen: service.listenFunction,
  }) as const;
const functionsById = () => functionsOf(stacks.service);
type FunctionName = keyof ReturnType<typeof functionsById>;
const FUNCTION_NAMES = ['api', 'ingest', 'deliver', 'export', 'sweeper', 'domainProvisioner', 'listen'] as const satisfies readonly FunctionName[];

/** The `Fn::GetAtt … Arn` of a function, as the template writes it. */
const functionArn = (fn: HookgateFunction) => ({ 'Fn::GetAtt': [logicalId(fn.fn), 'Arn'] });

/** CDK's trigger provider (a raw CfnResource role and function that aws-cdk-lib/triggers adds). */
function triggerProvider() {
  const provider = stacks.service.node.findChild(TRIGGER_PROVIDER_ID);
  const resources = template.toJSON().Resources;
  return {
    role: resources[logicalId(provider.node.findChild('Role'))],
    handler: resources[logicalId(provider.node.findChild('Handler'))],
  };
}

function functionProperties(fn: HookgateFunction): Record<string, unknown> {
  return template.toJSON().Resources[logicalId(fn.fn)].Properties as Record<string, unknown>;
}

function serviceEnvironment(): Record<string, unknown> {
  const { table, deliveryQueue, payloadBucket, exportBucket } = stacks.stateful;
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return {
    [ENV.tableName]: inService(table.tableName),
    [ENV.deliveryQueueUrl]: inService(deliveryQueue.queueUrl),
    [ENV.payloadBucket]: inService(payloadBucket.bucketName),
    [ENV.exportBucket]: inService(exportBucket.bucketName),
    [ENV.publicUrl]: { 'Fn::GetAtt': [logicalId(stacks.service.httpApi), 'ApiEndpoint'] },
    [ENV.version]: version,
    [ENV.stage]: 'test',
  };
}

/** What each function gets on top of the service environment (its log and trace `service` included). */
const ownEnvironment = (): Record<FunctionName, Record<string, unknown>> => ({
  api: {
    [ENV.serviceName]: 'hookgate-api',
    [ENV.exportFunctionName]: { Ref: logicalId(stacks.service.exportFunction.fn) },
    [ENV.signup]: 'open',
    [ENV.listenUrl]: listenStageUrl('wss'),
    // Revoking a key closes the hookgate listen sockets it opened.
    [ENV.listenEndpoint]: listenStageUrl('https'),
    // What an AWS connection's role trusts: the deliver function's role, and the api's (verify).
    // By their fixed names (test/infra/replacement.test.ts), which a replaced stack's roles keep.
    [ENV.awsPrincipals]: {
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':role/hookgate-test-', { Ref: 'AWS::Region' }, '-deliver,arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':role/hookgate-test-', { Ref: 'AWS::Region' }, '-api']],
    },
    // No account may use the deliver role's own grants unless context awsOwnRoleAccounts lists it.
    [ENV.ownRoleAccounts]: '',
    [ENV.signingKeysKmsKey]: inService(stacks.stateful.signingKeysKey.keyArn),
  },
  ingest: { [ENV.serviceName]: 'hookgate-ingest', [ENV.signingKeysKmsKey]: inService(stacks.stateful.signingKeysKey.keyArn) },
  // Its account share: 25% of the mapping's 100 batches; what accounts past it may borrow: the 50 beyond two shares.
  deliver: {
    [ENV.serviceName]: 'hookgate-deliver',
    [ENV.listenEndpoint]: listenStageUrl('https'),
    [ENV.ownRoleAccounts]: '',
    [ENV.accountTries]: '25',
    [ENV.borrowedTries]: '50',
    [ENV.signingKeysKmsKey]: inService(stacks.stateful.signingKeysKey.keyArn),
  },
  listen: { [ENV.serviceName]: 'hookgate-listen' },
  export: { [ENV.serviceName]: 'hookgate-export', [ENV.signingKeysKmsKey]: inService(stacks.stateful.signingKeysKey.keyArn) },
  sweeper: { [ENV.serviceName]: 'hookgate-sweeper', [ENV.deliveryDlqUrl]: inService(stacks.stateful.deliveryDlq.queueUrl) },
  domainProvisioner: { [ENV.serviceName]: 'hookgate-domain-provisioner', [ENV.httpApiId]: { Ref: logicalId(stacks.service.httpApi) } },
});

/** The listen stage's URL as the template writes it: `wss://` for the CLI, `https://` for PostToConnection. */
const listenStageUrl = (scheme: 'wss' | 'https') => ({
  'Fn::Join': ['', [`${scheme}://`, { Ref: logicalId(stacks.service.listenApi) }, '.execute-api.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }, '/live']],
});

/** Another app with other options; bundling skipped, since only the templates are looked at. */
function buildOther(opts: Omit<BuildAppOptions, 'stage' | 'nag'>): HookgateStacks {
  const app = createApp({ context: { 'aws:cdk:bundling-stacks': [] } });
  return buildApp(app, { stage: 'other', nag: false, ...opts });
}

describe('functions', () => {
  it('are the seven Hookgate functions plus the trigger provider', () => {
    const functions = Object.keys(template.findResources('AWS::Lambda::Function')).sort();
    const provider = stacks.service.node.findChild(TRIGGER_PROVIDER_ID).node.findChild('Handler');
    expect(functions).toEqual([...Object.values(functionsById()).map((fn) => logicalId(fn.fn)), logicalId(provider)].sort());
  });

  it.each(FUNCTION_NAMES)('%s: Node 24 on arm64 with active tracing, bundled as ESM', (name) => {
    expect(functionProperties(functionsById()[name])).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      TracingConfig: { Mode: 'Active' },
      Handler: 'index.handler',
      LoggingConfig: { LogGroup: { Ref: expect.any(String) } },
    });
  });

  it.each(FUNCTION_NAMES)("%s: JSON logs; Lambda's own lines at WARN (no START/END/REPORT), the handlers' at INFO", (name) => {
    expect(functionProperties(functionsById()[name]).LoggingConfig).toEqual({
      LogGroup: { Ref: expect.any(String) },
      LogFormat: 'JSON',
      SystemLogLevel: 'WARN',
      ApplicationLogLevel: 'INFO',
    });
  });

  it.each(FUNCTION_NAMES)('%s: no source maps to load (no NODE_OPTIONS)', (name) => {
    const variables = (functionProperties(functionsById()[name]).Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables).not.toHaveProperty('NODE_OPTIONS');
  });

  it('are each deployed from a bundle of their own (CDK reuses one bundle for assets whose options look alike)', () => {
    const codeKeys = FUNCTION_NAMES.map((name) => (functionProperties(functionsById()[name]).Code as { S3Key: unknown }).S3Key);
    expect(new Set(codeKeys.map((key) => JSON.stringify(key))).size).toBe(FUNCTION_NAMES.length);
  });

  it.each(FUNCTION_NAMES)('%s: logs to a log group kept for 30 days', (name) => {
    const logGroupId = (functionProperties(functionsById()[name]).LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
    expect(template.toJSON().Resources[logGroupId]).toMatchObject({
      Type: 'AWS::Logs::LogGroup',
      Properties: { RetentionInDays: 30 },
    });
  });

  it('have roles of their own, without AWS-managed policies; only the trigger provider has one', () => {
    const functionRoles = Object.values(functionsById()).map((fn) => logicalId(fn.role));
    const roles = Object.entries(template.findResources('AWS::IAM::Role'));
    expect(roles).toHaveLength(functionRoles.length + 1);
    for (const [id, role] of roles) {
      if (functionRoles.includes(id)) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
      else expect(role).toBe(triggerProvider().role);
    }
  });

  it('api function: 512 MB, under the 30 s API timeout, with the service environment', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      MemorySize: 512,
      Timeout: 29,
      Environment: { Variables: Match.objectEquals({ ...serviceEnvironment(), ...ownEnvironment().api }) },
    });
  });

  it.each([
    ['api', 512, 29],
    ['ingest', 512, 29],
    ['deliver', 512, DELIVERY_QUEUE.consumerTimeoutSeconds],
    ['export', 1024, 900],
    ['sweeper', 512, 900],
    ['domainProvisioner', 512, 120],
    ['listen', 512, 28],
  ] as const)('%s function: %i MB, %i s, the service environment plus its own', (name, memory, timeout) => {
    const properties = functionProperties(functionsById()[name]);
    expect(properties.MemorySize).toBe(memory);
    expect(properties.Timeout).toBe(timeout);
    expect(properties.Environment).toEqual({ Variables: { ...serviceEnvironment(), ...ownEnvironment()[name] } });
  });

  it('the retry schedule is left to the handlers unless given', () => {
    for (const fn of Object.values(functionsById())) {
      expect(Object.keys((functionProperties(fn).Environment as { Variables: object }).Variables)).not.toContain(
        ENV.retrySchedule,
      );
    }
  });

  it('a given retry schedule reaches every function, and the stuck-queue alarm follows its longest step up to one message delay', () => {
    const other = buildOther({ retrySchedule: ' 0, 60,600 , 7200' });
    const otherTemplate = Template.fromStack(other.service);
    const functions = Object.values(functionsOf(other.service)).map(
      (fn) => otherTemplate.toJSON().Resources[logicalId(fn.fn)].Properties,
    );
    expect(functions).toHaveLength(7);
    for (const fn of functions) {
      expect(fn.Environment.Variables[ENV.retrySchedule]).toBe('0,60,600,7200');
    }
    otherTemplate.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateAgeOfOldestMessage',
      Threshold: 900 + 300, // a 2 h wait hops from message to message, none older than 15 min
    });
    const short = Template.fromStack(buildOther({ retrySchedule: '0,10,60' }).service);
    short.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'ApproximateAgeOfOldestMessage', Threshold: 60 + 300 });
  });

  it('a malformed retry schedule fails the synth', () => {
    expect(() => buildOther({ retrySchedule: '0,30,soon' })).toThrow(/invalid retry schedule/);
  });

  it("the export function times out before the worker's stale-claim age, so a live run is never taken over", () => {
    expect((functionProperties(stacks.service.exportFunction).Timeout as number) * 1000).toBeLessThan(STALE_CLAIM_MS);
  });

  it('the deliver function has no reserved concurrency (the event source caps it)', () => {
    expect(functionProperties(stacks.service.deliverFunction).ReservedConcurrentExecutions).toBeUndefined();
  });
});

describe('HTTP API', () => {
  /** The HTTP API's own resources of a type (the listen WebSocket API has routes and a stage too). */
  const httpApiResources = (type: string) =>
    Object.entries(template.findResources(type)).filter(([, r]) => JSON.stringify(r.Properties.ApiId) === JSON.stringify({ Ref: logicalId(stacks.service.httpApi) }));

  it('routes ANY /, ANY /{proxy+} and POST /v1/accounts to the api function, POST /ingest/{token} to the ingest function', () => {
    const integrations = httpApiResources('AWS::ApiGatewayV2::Integration');
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

    const routes = httpApiResources('AWS::ApiGatewayV2::Route').map(([, r]) => r);
    expect(Object.fromEntries(routes.map((r) => [r.Properties.RouteKey, r.Properties.Target]))).toEqual({
      'ANY /': target(stacks.service.apiFunction),
      'ANY /{proxy+}': target(stacks.service.apiFunction),
      'POST /v1/accounts': target(stacks.service.apiFunction),
      'POST /ingest/{token}': target(stacks.service.ingestFunction),
    });
    for (const route of routes) expect(route.Properties.AuthorizationType).toBe('NONE');
  });

  it('has a $default stage with throttling and JSON access logs', () => {
    const stages = httpApiResources('AWS::ApiGatewayV2::Stage').map(([, r]) => r);
    expect(stages).toHaveLength(1);
    const stage = stages[0]?.Properties;
    expect(stage).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingBurstLimit: 500, ThrottlingRateLimit: 1000 },
      AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': [expect.any(String), 'Arn'] } },
    });
    const format = JSON.parse(stage.AccessLogSettings.Format as string) as Record<string, string>;
    // The short line docs/operations.md documents: nothing else (no user agent, protocol, sizes).
    expect(format).toEqual({
      requestId: '$context.requestId',
      time: '$context.requestTimeEpoch',
      ip: '$context.identity.sourceIp',
      route: '$context.routeKey',
      status: '$context.status',
      latency: '$context.responseLatency',
      error: '$context.integrationErrorMessage',
    });
    expect(JSON.stringify(format)).not.toContain('$context.path');
  });

  it('gives every route a throttle of its own, so sign-up and management cannot spend ingest’s budget', () => {
    const stage = httpApiResources('AWS::ApiGatewayV2::Stage')[0];
    expect(stage?.[1].Properties.RouteSettings).toEqual({
      'POST /ingest/{token}': { ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 500 },
      'ANY /{proxy+}': { ThrottlingRateLimit: 200, ThrottlingBurstLimit: 100 },
      'ANY /': { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 10 },
      'POST /v1/accounts': { ThrottlingRateLimit: 1, ThrottlingBurstLimit: 5 },
    });
    const routeKeys = httpApiResources('AWS::ApiGatewayV2::Route').map(([, r]) => r).map((r) => r.Properties.RouteKey);
    expect(Object.keys(stage?.[1].Properties.RouteSettings).sort()).toEqual([...routeKeys].sort());
    // Route settings name routes by key: CloudFormation must create the routes first.
    const routeIds = httpApiResources('AWS::ApiGatewayV2::Route').map(([id]) => id);
    expect(stage?.[1].DependsOn).toEqual(expect.arrayContaining(routeIds));
  });

  it('keeps sign-up open unless the signup context closes it', () => {
    const signupOf = (built: HookgateStacks) =>
      Template.fromStack(built.service).toJSON().Resources[logicalId(built.service.apiFunction.fn)].Properties.Environment.Variables[ENV.signup];
    expect(signupOf(stacks)).toBe('open');
    expect(signupOf(buildOther({ signup: 'closed' }))).toBe('closed');
  });

  it('gives the api function the endpoint caps only when the context sets them', () => {
    const variablesOf = (built: HookgateStacks) =>
      Template.fromStack(built.service).toJSON().Resources[logicalId(built.service.apiFunction.fn)].Properties.Environment.Variables;
    expect(variablesOf(stacks)).not.toHaveProperty(ENV.maxEndpointsPerCustomer);
    expect(variablesOf(stacks)).not.toHaveProperty(ENV.maxEndpointsPerAccount);
    const capped = variablesOf(buildOther({ maxEndpointsPerCustomer: 50, maxEndpointsPerAccount: 50_000 }));
    expect(capped).toMatchObject({ [ENV.maxEndpointsPerCustomer]: '50', [ENV.maxEndpointsPerAccount]: '50000' });
    expect(() => buildOther({ maxEndpointsPerCustomer: 0 })).toThrow(
      'maxEndpointsPerCustomer must be a whole number of at least 1, got 0',
    );
  });

  it('outputs the API URL', () => {
    template.hasOutput('ApiUrl', { Value: { 'Fn::GetAtt': [logicalId(stacks.service.httpApi), 'ApiEndpoint'] } });
  });
});

describe('tracing', () => {
  const rulesOf = (built: HookgateStacks) => Object.values(Template.fromStack(built.service).findResources('AWS::XRay::SamplingRule'));

  it("one sampling rule for the stage's functions: 1% of invocations, no reservoir, ahead of X-Ray's default rule", () => {
    const rules = rulesOf(stacks);
    expect(rules).toHaveLength(1);
    expect(rules[0]?.Properties.SamplingRule).toEqual({
      RuleName: 'hookgate-test',
      Priority: 9000,
      FixedRate: 0.01,
      ReservoirSize: 0,
      ServiceName: 'Hookgate-test-Service-*',
      ServiceType: '*',
      Host: '*',
      HTTPMethod: '*',
      URLPath: '*',
      ResourceARN: '*',
      Version: 1,
    });
  });

  it('the rule matches the names CloudFormation gives the functions (derived from the stack name)', () => {
    expect(stacks.service.stackName).toBe('Hookgate-test-Service');
    for (const name of FUNCTION_NAMES) expect(functionProperties(functionsById()[name]).FunctionName).toBeUndefined();
  });

  it('the tracingSampleRate context sets the rate; one outside 0..1 fails the synth', () => {
    expect(rulesOf(buildOther({ tracingSampleRate: 0.2 }))[0]?.Properties.SamplingRule.FixedRate).toBe(0.2);
    expect(() => buildOther({ tracingSampleRate: 1.5 })).toThrow(/tracingSampleRate/);
  });
});

describe('AWS destination targets (context awsDestinationTargets)', () => {
  const TARGETS = [
    'arn:aws:sqs:eu-west-1:123456789012:orders',
    'arn:aws:sqs:eu-west-1:123456789012:orders.fifo',
    'arn:aws:sns:eu-west-1:123456789012:orders',
    'arn:aws:events:eu-west-1:123456789012:event-bus/orders',
    'arn:aws:kinesis:eu-west-1:123456789012:stream/orders',
    'arn:aws:lambda:eu-west-1:123456789012:function:consume',
    'arn:aws:s3:::events-archive',
  ];
  const policyOf = (built: HookgateStacks) => {
    const policy = built.service.awsDestinationsPolicy;
    if (!policy) return undefined;
    const resource = Template.fromStack(built.service).toJSON().Resources[logicalId(policy)];
    return resource.Properties as { PolicyDocument: { Statement: Statement[] }; Roles: unknown[] };
  };

  it('none listed: the deliver function may call no AWS destination', () => {
    expect(stacks.service.awsDestinationsPolicy).toBeUndefined();
    expect(actionsFor(stacks.service.deliverFunction, 'sns:')).toEqual([]);
    expect(actionsFor(stacks.service.deliverFunction, 'sqs:')).not.toContain('sqs:SendMessage*');
  });

  it('each listed target: exactly the one action its type calls, on exactly that ARN, for the deliver role only', () => {
    const built = buildOther({ awsDestinationTargets: TARGETS });
    const policy = policyOf(built);
    expect(policy?.PolicyDocument.Statement).toEqual([
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: ['arn:aws:sqs:eu-west-1:123456789012:orders', 'arn:aws:sqs:eu-west-1:123456789012:orders.fifo'] },
      { Effect: 'Allow', Action: 'sns:Publish', Resource: 'arn:aws:sns:eu-west-1:123456789012:orders' },
      { Effect: 'Allow', Action: 'events:PutEvents', Resource: 'arn:aws:events:eu-west-1:123456789012:event-bus/orders' },
      { Effect: 'Allow', Action: 'kinesis:PutRecord', Resource: 'arn:aws:kinesis:eu-west-1:123456789012:stream/orders' },
      { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: 'arn:aws:lambda:eu-west-1:123456789012:function:consume' },
      { Effect: 'Allow', Action: 's3:PutObject', Resource: 'arn:aws:s3:::events-archive/*' },
    ]);
    expect(policy?.Roles).toEqual([{ Ref: logicalId(built.service.deliverFunction.role) }]);
  });

  it('tells the api and deliver functions which accounts may use those grants without a role (context awsOwnRoleAccounts; none by default)', () => {
    const ownRoleAccounts = (built: HookgateStacks) =>
      [built.service.apiFunction.fn, built.service.deliverFunction.fn].map(
        (fn) => Template.fromStack(built.service).toJSON().Resources[logicalId(fn)].Properties.Environment.Variables[ENV.ownRoleAccounts],
      );
    expect(ownRoleAccounts(stacks)).toEqual(['', '']);
    const listed = buildOther({ awsDestinationTargets: TARGETS, awsOwnRoleAccounts: ['0193a5b2-0000-7000-8000-00000000000a', 'acct-2'] });
    expect(ownRoleAccounts(listed)).toEqual(['0193a5b2-0000-7000-8000-00000000000a,acct-2', '0193a5b2-0000-7000-8000-00000000000a,acct-2']);
  });

  it('assumes customers’ roles (deliver, and api for a connection’s verify) only with a hookgate- external id, and no role of its own account', () => {
    const resource = Template.fromStack(stacks.service).toJSON().Resources[logicalId(stacks.service.assumeRolesPolicy)];
    expect(resource.Properties.PolicyDocument.Statement).toEqual([
      {
        Effect: 'Allow',
        Action: 'sts:AssumeRole',
        Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::*:role/*']] },
        Condition: { StringLike: { 'sts:ExternalId': 'hookgate-*' }, StringNotEquals: { 'aws:ResourceAccount': { Ref: 'AWS::AccountId' } } },
      },
    ]);
    expect(resource.Properties.Roles).toEqual([{ Ref: logicalId(stacks.service.deliverFunction.role) }, { Ref: logicalId(stacks.service.apiFunction.role) }]);
    for (const name of FUNCTION_NAMES.filter((n) => n !== 'deliver' && n !== 'api')) expect(actionsFor(functionsOf(stacks.service)[name], 'sts:'), name).toEqual([]);
  });

  it.each([
    'arn:aws:sqs:eu-west-1:123456789012:*',
    'arn:aws:iam::123456789012:role/admin',
    'https://sqs.eu-west-1.amazonaws.com/123456789012/orders',
    'arn:aws:s3:::Bucket',
    // Refused as a destination's config by the API too: the stack grants nothing the API would refuse.
    `arn:aws:sns:eu-west-1:123456789012:${'t'.repeat(252)}`,
    'arn:aws:lambda:eu-west-1:123456789012:function:consume:$PROD',
    'arn:aws:s3:::xn--bucket',
  ])(
    'refuses %s at synth',
    (target) => expect(() => buildOther({ awsDestinationTargets: [target] })).toThrow(/awsDestinationTargets: ".*" is not the ARN of/),
  );
});

describe('signing keys KMS key', () => {
  /** The KMS actions a function may take without a condition, and those it may take only under one. */
  const kmsUses = (fn: HookgateFunction) => {
    const statements = allows(fn).filter((st) => actionsOf(st).some((a) => a.startsWith('kms:')));
    const actions = (conditioned: boolean) => [...new Set(statements.filter((st) => (st.Condition !== undefined) === conditioned).flatMap(actionsOf))].sort();
    return { any: actions(false), conditioned: actions(true), conditions: statements.flatMap((st) => (st.Condition ? [st.Condition] : [])) };
  };
  const subjectKeysOnly = { StringEquals: { 'kms:EncryptionContext:purpose': SUBJECT_KEY_CONTEXT.purpose } };

  it('the api function (makes and rotates keys) may only encrypt with it, the deliver function (signs) only decrypt; who hashes subjects or ordering keys (api, ingest, the job worker) only under the subject keys’ context', () => {
    const uses = Object.fromEntries(FUNCTION_NAMES.map((name) => [name, kmsUses(functionsById()[name])]));
    const none = { any: [], conditioned: [], conditions: [] };
    const subjectKeys = { conditioned: ['kms:Decrypt', 'kms:Encrypt'], conditions: [subjectKeysOnly] };
    expect(uses).toEqual({
      api: { any: ['kms:Encrypt'], ...subjectKeys },
      ingest: { any: [], ...subjectKeys },
      deliver: { any: ['kms:Decrypt'], conditioned: [], conditions: [] },
      export: { any: [], ...subjectKeys },
      sweeper: none,
      domainProvisioner: none,
      listen: none,
    });
    const keyArn = JSON.stringify(inService(stacks.stateful.signingKeysKey.keyArn));
    for (const name of ['api', 'ingest', 'deliver', 'export'] as const) expect([...new Set(resourcesFor(functionsById()[name], 'kms:').map((arn) => JSON.stringify(arn)))]).toEqual([keyArn]);
    expect(canDo(functionsById().deliver, 'kms:Encrypt')).toBe(false);
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
      MaximumBatchingWindowInSeconds: DELIVERY_QUEUE.batchingWindowSeconds,
      ScalingConfig: { MaximumConcurrency: DELIVERY_QUEUE.maxConcurrency },
    });
    expect(DELIVERY_QUEUE.batchSize).toBe(10);
  });

  it('runs as many batches at once as the deliverMaxConcurrency context says, within what SQS mappings accept', () => {
    const mapping = (stacks: HookgateStacks) =>
      Object.values(Template.fromStack(stacks.service).findResources('AWS::Lambda::EventSourceMapping'))[0]?.Properties;
    expect(mapping(buildOther({ deliverMaxConcurrency: 400 }))?.ScalingConfig).toEqual({ MaximumConcurrency: 400 });
    expect(() => buildOther({ deliverMaxConcurrency: 1 })).toThrow(/deliverMaxConcurrency must be a whole number from 2 to 1000/);
    expect(() => buildOther({ deliverMaxConcurrency: 5000 })).toThrow(/deliverMaxConcurrency/);
  });

  it('gathers a batch for as long as the deliverBatchingWindowSeconds context says, within what SQS mappings accept', () => {
    const mapping = (stacks: HookgateStacks) =>
      Object.values(Template.fromStack(stacks.service).findResources('AWS::Lambda::EventSourceMapping'))[0]?.Properties;
    expect(DELIVERY_QUEUE.batchingWindowSeconds).toBe(1);
    expect(mapping(buildOther({ deliverBatchingWindowSeconds: 0 }))?.MaximumBatchingWindowInSeconds).toBe(0);
    expect(mapping(buildOther({ deliverBatchingWindowSeconds: 20 }))?.MaximumBatchingWindowInSeconds).toBe(20);
    expect(() => buildOther({ deliverBatchingWindowSeconds: 301 })).toThrow('deliverBatchingWindowSeconds must be a whole number from 0 to 300, got 301');
  });

  it("gives each account the deliverAccountSharePercent context's share of the deliver batches, and lets accounts borrow the batches beyond two shares", () => {
    const tries = (stacks: HookgateStacks) => {
      const variables = Template.fromStack(stacks.service).toJSON().Resources[logicalId(stacks.service.deliverFunction.fn)].Properties.Environment.Variables;
      return [variables[ENV.accountTries], variables[ENV.borrowedTries]];
    };
    expect(tries(buildOther({ deliverMaxConcurrency: 400, deliverAccountSharePercent: 50 }))).toEqual(['200', '0']);
    expect(tries(buildOther({ deliverMaxConcurrency: 400, deliverAccountSharePercent: 10 }))).toEqual(['40', '320']);
    expect(tries(buildOther({ deliverMaxConcurrency: 2, deliverAccountSharePercent: 1 }))).toEqual(['1', '0']);
    expect(() => buildOther({ deliverAccountSharePercent: 0 })).toThrow('deliverAccountSharePercent must be a whole number from 1 to 100, got 0');
  });

  it('keeps the redrive count above what waiting alone can reach, so only poison reaches the DLQ', () => {
    expect(DELIVERY_QUEUE.maxReceiveCount).toBeGreaterThan(VISIBILITY_WAIT_MAX_RECEIVES + 1);
    Template.fromStack(stacks.stateful).hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { maxReceiveCount: DELIVERY_QUEUE.maxReceiveCount },
    });
  });
});

describe('schedules', () => {
  /** The one EventBridge rule that targets `fn`, with its logical id. */
  function scheduleOf(fn: HookgateFunction): [string, { Properties: Record<string, unknown> }] {
    const rules = Object.entries(template.findResources('AWS::Events::Rule')).filter(([, rule]) =>
      (rule.Properties.Targets as Array<{ Arn: unknown }>).some((t) => JSON.stringify(t.Arn) === JSON.stringify(functionArn(fn))),
    );
    expect(rules).toHaveLength(1);
    return rules[0] as [string, { Properties: Record<string, unknown> }];
  }

  it('are the export, sweeper and domain provisioner rules only', () => {
    template.resourceCountIs('AWS::Events::Rule', 3);
  });

  it.each([
    ['export', 'rate(1 minute)'],
    ['sweeper', 'rate(1 hour)'],
    ['domainProvisioner', 'rate(5 minutes)'],
  ] as const)('%s: runs on %s, the rule being its only target and allowed to invoke it', (name, expression) => {
    const fn = functionsById()[name];
    const [ruleId, rule] = scheduleOf(fn);
    expect(rule.Properties).toMatchObject({ ScheduleExpression: expression, State: 'ENABLED' });
    expect(rule.Properties.Targets).toEqual([{ Arn: functionArn(fn), Id: expect.any(String) }]);
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: functionArn(fn),
      Principal: 'events.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [ruleId, 'Arn'] },
    });
  });

  it.each(['export', 'domainProvisioner'] as const)('%s: not retried asynchronously, the next scheduled run supersedes a failed one', (name) => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: logicalId(functionsById()[name].fn) },
      MaximumRetryAttempts: 0,
    });
  });

  it("sweeper: keeps Lambda's default async retries (its next run is an hour away; a sweep resumes from its checkpoint)", () => {
    const configs = Object.values(template.findResources('AWS::Lambda::EventInvokeConfig'));
    expect(configs).toHaveLength(2);
    for (const config of configs) expect(config.Properties.FunctionName).not.toEqual({ Ref: logicalId(stacks.service.sweeperFunction.fn) });
  });
});

describe('sweeper deploy-time run', () => {
  const triggers = () => Object.entries(template.findResources('Custom::Trigger'));

  it('one trigger starts the current version of the sweeper, asynchronously, on every change of it', () => {
    expect(triggers()).toHaveLength(1);
    const [, trigger] = triggers()[0] ?? [];
    const sweeperId = logicalId(stacks.service.sweeperFunction.fn);
    const versionId = logicalId(stacks.service.sweeperFunction.fn.currentVersion);
    expect(trigger?.Properties).toMatchObject({
      HandlerArn: { Ref: versionId },
      InvocationType: 'Event',
      ExecuteOnHandlerChange: true,
    });
    expect(template.toJSON().Resources[versionId]).toMatchObject({
      Type: 'AWS::Lambda::Version',
      Properties: { FunctionName: { Ref: sweeperId } },
    });
  });

  it('runs after the sweeper, its role, its grants and its log group are deployed', () => {
    const [, trigger] = triggers()[0] ?? [];
    const sweeper = stacks.service.sweeperFunction;
    expect(trigger?.DependsOn).toEqual(
      expect.arrayContaining([
        logicalId(sweeper.fn),
        logicalId(sweeper.role),
        logicalId(sweeper.role.node.findChild('DefaultPolicy')),
        logicalId(sweeper.logGroup),
      ]),
    );
  });

  it("CDK's provider may only invoke the sweeper (any version) and write its own logs", () => {
    const { role, handler } = triggerProvider();
    expect(handler.Properties.Role).toEqual({ 'Fn::GetAtt': [logicalId(stacks.service.node.findChild(TRIGGER_PROVIDER_ID).node.findChild('Role')), 'Arn'] });
    expect(role.Properties.ManagedPolicyArns).toEqual([
      { 'Fn::Sub': 'arn:${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole' },
    ]);
    const statements = (role.Properties.Policies as Array<{ PolicyDocument: { Statement: Statement[] } }>).flatMap(
      (p) => p.PolicyDocument.Statement,
    );
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: ['lambda:InvokeFunction'],
        Resource: [{ 'Fn::Join': ['', [functionArn(stacks.service.sweeperFunction), ':*']] }],
      },
    ]);
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

  it('delivery queue: in flight near the 120,000 SQS stops at', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesNotVisible',
      Statistic: 'Maximum',
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 100_000,
      AlarmActions: [topicRef()],
    });
  });

  it('a destination breaker opened (the custom metric, any within 5 minutes)', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'Hookgate',
      MetricName: 'BreakerOpened',
      Dimensions: [{ Name: 'service', Value: 'hookgate-test' }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      TreatMissingData: 'notBreaching',
      AlarmActions: [topicRef()],
    });
  });

  it('delivery queue: oldest message older than the longest wait one message holds (15 min, as the 1 h step hops) plus 5 min', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: inService(stacks.stateful.deliveryQueue.queueName) }],
      Statistic: 'Maximum',
      Period: 60,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 1200,
      TreatMissingData: 'notBreaching',
      AlarmActions: [topicRef()],
      OKActions: [topicRef()],
    });
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

  it('topic policy: TLS only, and CloudWatch may publish for these alarms only', () => {
    const alarmArns = stacks.service.alarms.all.map((a) => ({
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
  const exportBucketArn = () => inService(stacks.stateful.exportBucket.bucketArn);
  const exportObjectsArn = () => ({ 'Fn::Join': ['', [exportBucketArn(), '/*']] });
  const SEND = ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'];
  const CONSUME = ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage'];

  /**
   * What each function's code calls, and so all it may do, on the table and on the two buckets' objects
   * (read off the handlers' bundles: the lib-dynamodb commands of lambdas/store/table.ts and the
   * payload and export-file calls each one reaches). Exact: an action no code calls is a finding.
   */
  const ITEM = ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'];
  const CALLS: Record<FunctionName, { dynamodb: string[]; payloads: string[]; exports: string[] }> = {
    // Event reads and lists (batch gets of status items); events are written item by item, body first.
    api: { dynamodb: [...ITEM, 'BatchGetItem'], payloads: ['GetObject', 'PutObject', 'DeleteObject'], exports: ['GetObject'] },
    // The destinations its routes name, and the routes a routing change names, in consistent batch gets.
    ingest: { dynamodb: [...ITEM, 'BatchGetItem'], payloads: ['PutObject', 'DeleteObject'], exports: [] },
    // A task reads its body, delivery and status items in one consistent batch get, whatever the fan-out.
    deliver: { dynamodb: [...ITEM, 'BatchGetItem'], payloads: ['GetObject'], exports: [] },
    export: { dynamodb: [...ITEM, 'BatchGetItem'], payloads: ['GetObject', 'PutObject', 'DeleteObject'], exports: ['PutObject'] },
    // Deletes, and moves of payload objects to a new window's class (copy, then delete the old key).
    sweeper: { dynamodb: [...ITEM, 'BatchWriteItem', 'BatchGetItem'], payloads: ['GetObject', 'PutObject', 'DeleteObject'], exports: [] },
    domainProvisioner: { dynamodb: ITEM, payloads: [], exports: [] },
    // API key and session lookups, connection items and answers.
    listen: { dynamodb: ITEM, payloads: [], exports: [] },
  };
  const qualified = (service: string, actions: string[]) => actions.map((action) => `${service}:${action}`).sort();
  /** The actions of the statements that name `resource`. */
  const actionsOn = (fn: HookgateFunction, resource: unknown): string[] =>
    [
      ...new Set(
        allows(fn)
          .filter((s) => resourcesOf(s).some((r) => JSON.stringify(r) === JSON.stringify(resource)))
          .flatMap(actionsOf),
      ),
    ].sort();

  it.each(FUNCTION_NAMES)('%s: DynamoDB actions only on the table and its indexes', (name) => {
    expect(resourcesFor(functionsById()[name], 'dynamodb:')).toEqual([tableArn(), { 'Fn::Join': ['', [tableArn(), '/index/*']] }]);
  });

  it.each(FUNCTION_NAMES)('%s: exactly the DynamoDB and S3 actions its code calls, S3 on objects only', (name) => {
    const fn = functionsById()[name];
    const calls = CALLS[name];
    expect(actionsFor(fn, 'dynamodb:')).toEqual(qualified('dynamodb', calls.dynamodb));
    expect(actionsOn(fn, objectsArn()).filter((a) => a.startsWith('s3:'))).toEqual(qualified('s3', calls.payloads));
    expect(actionsOn(fn, exportObjectsArn()).filter((a) => a.startsWith('s3:'))).toEqual(qualified('s3', calls.exports));
    expect(actionsFor(fn, 's3:')).toEqual([...new Set(qualified('s3', [...calls.payloads, ...calls.exports]))].sort());
    const objectArns = [calls.payloads.length > 0 && objectsArn(), calls.exports.length > 0 && exportObjectsArn()].filter(Boolean);
    expect(resourcesFor(fn, 's3:')).toEqual(expect.arrayContaining(objectArns));
    for (const resource of resourcesFor(fn, 's3:')) expect(objectArns).toContainEqual(resource);
  });

  it.each(FUNCTION_NAMES)('%s: no scans, transactions, streams, listings, versions or deletes of what is not an object', (name) => {
    const fn = functionsById()[name];
    for (const action of ['dynamodb:Scan', 'dynamodb:TransactWriteItems', 'dynamodb:GetRecords', 'dynamodb:DescribeTable', 'dynamodb:DeleteTable']) {
      expect(canDo(fn, action), action).toBe(false);
    }
    for (const action of ['s3:ListBucket', 's3:DeleteObjectVersion', 's3:PutObjectAcl', 's3:DeleteBucket', 's3:PutLifecycleConfiguration']) {
      expect(canDo(fn, action), action).toBe(false);
    }
  });

  it.each([
    ['api', 'logs|xray|dynamodb|sqs|s3|lambda|kms'],
    ['ingest', 'logs|xray|dynamodb|sqs|s3|kms'],
    ['deliver', 'logs|xray|dynamodb|sqs|s3|kms'],
    ['export', 'logs|xray|dynamodb|sqs|s3|kms'],
    ['sweeper', 'logs|xray|dynamodb|sqs|s3'],
    ['domainProvisioner', 'logs|xray|dynamodb'],
    ['listen', 'logs|xray|dynamodb'],
  ] as const)('%s: nothing beyond the services %s (in its default policy)', (name, services) => {
    for (const action of allows(functionsById()[name]).flatMap(actionsOf)) {
      expect(action).toMatch(new RegExp(`^(${services}):`));
    }
  });

  it('api: sends to the delivery queue (replay)', () => {
    const fn = stacks.service.apiFunction;
    expect(actionsFor(fn, 'sqs:')).toEqual(SEND);
    expect(resourcesFor(fn, 'sqs:')).toEqual([queueArn()]);
  });

  it("api: lambda:InvokeFunction on the export function's unqualified ARN only", () => {
    const fn = stacks.service.apiFunction;
    expect(actionsFor(fn, 'lambda:')).toEqual(['lambda:InvokeFunction']);
    expect(resourcesFor(fn, 'lambda:')).toEqual([functionArn(stacks.service.exportFunction)]);
  });

  it('export: for bulk replays sends to the delivery queue', () => {
    const fn = stacks.service.exportFunction;
    expect(actionsFor(fn, 'sqs:')).toEqual(SEND);
    expect(resourcesFor(fn, 'sqs:')).toEqual([queueArn()]);
  });

  it('sweeper: sends to the delivery queue (notices, and tasks it takes back), reads and deletes the DLQ’s messages, nothing more', () => {
    const fn = stacks.service.sweeperFunction;
    const dlqArn = inService(stacks.stateful.deliveryDlq.queueArn);
    expect(actionsFor(fn, 'sqs:')).toEqual([...SEND, 'sqs:DeleteMessage', 'sqs:ReceiveMessage'].sort());
    expect(resourcesFor(fn, 'sqs:')).toEqual(expect.arrayContaining([queueArn(), dlqArn]));
    expect(actionsOn(fn, queueArn()).filter((a) => a.startsWith('sqs:'))).toEqual(SEND);
    expect(actionsOn(fn, dlqArn)).toEqual(['sqs:DeleteMessage', 'sqs:ReceiveMessage']);
  });

  it('ingest: sends to the delivery queue; never receives', () => {
    const fn = stacks.service.ingestFunction;
    expect(actionsFor(fn, 'sqs:')).toEqual(SEND);
    expect(resourcesFor(fn, 'sqs:')).toEqual([queueArn()]);
    expect(canDo(fn, 'sqs:ReceiveMessage')).toBe(false);
  });

  it('deliver: consumes the delivery queue (ChangeMessageVisibility for short waits) and sends to it (longer waits)', () => {
    const fn = stacks.service.deliverFunction;
    expect(actionsFor(fn, 'sqs:')).toEqual([...new Set([...CONSUME, ...SEND])].sort());
    expect(resourcesFor(fn, 'sqs:')).toEqual([queueArn()]);
  });

  it('no function but the sweeper (which reads and deletes, see above) may touch the DLQ: only the redrive policy moves messages to it', () => {
    const { deliveryDlq } = stacks.stateful;
    const forbidden = [deliveryDlq.queueArn, deliveryDlq.queueUrl, deliveryDlq.queueName].map((token) =>
      JSON.stringify(inService(token)),
    );
    const sweeperPolicy = logicalId(stacks.service.sweeperFunction.role.node.findChild('DefaultPolicy'));
    for (const [id, policy] of Object.entries(template.findResources('AWS::IAM::Policy'))) {
      if (id === sweeperPolicy) continue;
      const document = JSON.stringify(policy.Properties.PolicyDocument);
      for (const reference of forbidden) expect(document).not.toContain(reference);
    }
  });

  it('only the export function (put) and the api (get) reach the export bucket', () => {
    const reference = JSON.stringify(exportBucketArn());
    const reaching = Object.entries(template.findResources('AWS::IAM::Policy'))
      .filter(([, policy]) => JSON.stringify(policy.Properties.PolicyDocument).includes(reference))
      .map(([id]) => id)
      .sort();
    const policyOf = (fn: HookgateFunction) => logicalId(fn.role.node.findChild('DefaultPolicy'));
    expect(reaching).toEqual([policyOf(stacks.service.apiFunction), policyOf(stacks.service.exportFunction)].sort());
  });

  it('only the api may invoke the export function, besides its own schedule', () => {
    const exportFunction = stacks.service.exportFunction;
    const reference = JSON.stringify({ Ref: logicalId(exportFunction.fn) }).slice(1, -1);
    const arnReference = JSON.stringify(functionArn(exportFunction)).slice(1, -1);
    const mentionsExport = (value: unknown) => {
      const text = JSON.stringify(value);
      return text.includes(reference) || text.includes(arnReference);
    };
    for (const name of FUNCTION_NAMES) {
      if (name !== 'api') expect(canDo(functionsById()[name], 'lambda:InvokeFunction')).toBe(false);
    }
    // Identity policies: customer-managed and role-inline (the trigger provider's) alike.
    const statements = [
      ...Object.values(template.findResources('AWS::IAM::Policy')).map((p) => p.Properties.PolicyDocument),
      ...Object.values(template.findResources('AWS::IAM::Role')).flatMap((r) =>
        ((r.Properties.Policies ?? []) as Array<{ PolicyDocument: unknown }>).map((p) => p.PolicyDocument),
      ),
    ].flatMap((document) => (document as { Statement: Statement[] }).Statement);
    const invokingExport = statements.filter((s) => mentionsExport(s.Resource));
    expect(invokingExport).toEqual([
      { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: functionArn(exportFunction) },
    ]);
    expect(allows(stacks.service.apiFunction)).toContainEqual(invokingExport[0]);
    // Resource policy: the schedule's permission, nothing else.
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).filter((p) =>
      mentionsExport(p.Properties.FunctionName),
    );
    expect(permissions).toEqual([
      expect.objectContaining({
        Properties: expect.objectContaining({
          Principal: 'events.amazonaws.com',
          SourceArn: { 'Fn::GetAtt': [logicalId(stacks.service.exportSchedule), 'Arn'] },
        }),
      }),
    ]);
  });

  it('the only statements on Resource "*" are X-Ray and the provisioner’s DNS-validated certificate requests (both acknowledged AwsSolutions-IAM5[Resource::*])', () => {
    const tlsPolicyId = logicalId(stacks.service.tlsProvisioningPolicy);
    for (const [id, policy] of Object.entries(template.findResources('AWS::IAM::Policy'))) {
      for (const statement of policy.Properties.PolicyDocument.Statement as Array<Statement & { Condition?: unknown }>) {
        if (!resourcesOf(statement).includes('*')) continue;
        if (id === tlsPolicyId) {
          expect(statement).toEqual({
            Effect: 'Allow',
            Action: 'acm:RequestCertificate',
            Resource: '*',
            Condition: { StringEquals: { 'acm:ValidationMethod': 'DNS' } },
          });
        } else {
          expect(actionsOf(statement).sort()).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
        }
      }
    }
  });
});

describe('custom-domain provisioner', () => {
  const join = (...parts: unknown[]) => ({ 'Fn::Join': ['', parts] });
  const apigateway = (path: string) =>
    join('arn:', { Ref: 'AWS::Partition' }, ':apigateway:', { Ref: 'AWS::Region' }, `::${path}`);
  const tlsPolicy = () => template.toJSON().Resources[logicalId(stacks.service.tlsProvisioningPolicy)];
  const provisioner = () => stacks.service.domainProvisionerFunction;

  it('gets the HTTP API id to map custom domains to', () => {
    expect((functionProperties(provisioner()).Environment as { Variables: Record<string, unknown> }).Variables[ENV.httpApiId]).toEqual({
      Ref: logicalId(stacks.service.httpApi),
    });
  });

  it('ACM and API Gateway rights sit in one policy of its own, attached to the provisioner role only', () => {
    expect(tlsPolicy().Properties.Roles).toEqual([{ Ref: logicalId(provisioner().role) }]);
    expect(tlsPolicy().Properties.PolicyDocument.Statement).toEqual([
      {
        Effect: 'Allow',
        Action: 'acm:RequestCertificate',
        Resource: '*',
        Condition: { StringEquals: { 'acm:ValidationMethod': 'DNS' } },
      },
      {
        Effect: 'Allow',
        Action: ['acm:DeleteCertificate', 'acm:DescribeCertificate'],
        Resource: join('arn:', { Ref: 'AWS::Partition' }, ':acm:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':certificate/*'),
      },
      { Effect: 'Allow', Action: 'apigateway:POST', Resource: [apigateway('/domainnames'), apigateway('/domainnames/*/apimappings')] },
      { Effect: 'Allow', Action: ['apigateway:DELETE', 'apigateway:GET'], Resource: apigateway('/domainnames/*') },
    ]);
  });

  it('no other policy grants ACM or API Gateway actions (the api function included)', () => {
    const tlsPolicyId = logicalId(stacks.service.tlsProvisioningPolicy);
    const others = [
      ...Object.entries(template.findResources('AWS::IAM::Policy'))
        .filter(([id]) => id !== tlsPolicyId)
        .map(([, p]) => p.Properties.PolicyDocument),
      ...Object.values(template.findResources('AWS::IAM::Role')).flatMap((r) =>
        ((r.Properties.Policies ?? []) as Array<{ PolicyDocument: unknown }>).map((p) => p.PolicyDocument),
      ),
    ];
    for (const document of others) {
      for (const statement of (document as { Statement: Statement[] }).Statement) {
        for (const action of actionsOf(statement)) expect(action).not.toMatch(/^(acm|apigateway):/);
      }
    }
  });

  it('may delete certificates and custom domain names (a deleted custom domain), never the API itself, and may change nothing', () => {
    const statements = tlsPolicy().Properties.PolicyDocument.Statement as Statement[];
    const actions = statements.flatMap(actionsOf);
    for (const forbidden of ['acm:ImportCertificate', 'acm:*', 'apigateway:PATCH', 'apigateway:PUT', 'apigateway:*']) {
      expect(actions).not.toContain(forbidden);
    }
    const deletes = statements.filter((s) => actionsOf(s).includes('apigateway:DELETE'));
    expect(deletes.flatMap(resourcesOf)).toEqual([apigateway('/domainnames/*')]);
  });

  it('the table through the usual grant (its default policy), nothing else there', () => {
    const fn = provisioner();
    expect(actionsFor(fn, 'sqs:')).toEqual([]);
    expect(actionsFor(fn, 's3:')).toEqual([]);
    expect(actionsFor(fn, 'lambda:')).toEqual([]);
  });

  it('its IAM5 acknowledgements are recorded on its own policy, each with a reason', () => {
    const recorded = stacks.service.tlsProvisioningPolicy.node.metadata
      .filter((m) => m.type === 'aws:cdk:acknowledged-rules')
      .map((m) => m.data as Record<string, string>);
    // Recorded under CDK's own namespace prefix (`Annotation::…`); the rule ids follow it.
    const ids = recorded.flatMap((r) => Object.keys(r)).map((id) => id.replace(/^\w+::(?=AwsSolutions-)/, '')).sort();
    expect(ids).toEqual(
      [
        'AwsSolutions-IAM5[Resource::*]',
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:acm:<AWS::Region>:<AWS::AccountId>:certificate/*]',
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:apigateway:<AWS::Region>::/domainnames/*/apimappings]',
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:apigateway:<AWS::Region>::/domainnames/*]',
      ].sort(),
    );
    for (const reason of recorded.flatMap((r) => Object.values(r))) expect(reason.length).toBeGreaterThan(40);
  });
});

describe('hookgate listen', () => {
  const apiId = () => ({ Ref: logicalId(stacks.service.listenApi) });

  it('a WebSocket API routed by the body’s action: $connect, $disconnect, $default and response, each to the listen function', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'WEBSOCKET', RouteSelectionExpression: '$request.body.action' });
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).filter((r) => JSON.stringify(r.Properties.ApiId) === JSON.stringify(apiId()));
    expect(routes.map((r) => r.Properties.RouteKey).sort()).toEqual(['$connect', '$default', '$disconnect', 'response']);
    const integrations = Object.values(template.findResources('AWS::ApiGatewayV2::Integration')).filter((i) => JSON.stringify(i.Properties.ApiId) === JSON.stringify(apiId()));
    expect(integrations).toHaveLength(1);
    expect(JSON.stringify(integrations[0]?.Properties.IntegrationUri)).toContain(logicalId(stacks.service.listenFunction.fn));
  });

  it('its stage `live`: deployed on change, throttled; no access log unless the account has API Gateway’s CloudWatch Logs role (test/infra/api-gateway-logging.test.ts)', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      ApiId: apiId(),
      StageName: 'live',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingBurstLimit: 50, ThrottlingRateLimit: 100 },
      AccessLogSettings: Match.absent(),
    });
  });

  it('with -c apiGatewayCloudWatchRole=existing the stage logs one JSON line per connect, message and disconnect', () => {
    const logging = createApp({ context: { 'aws:cdk:bundling-stacks': [] } });
    const service = Template.fromStack(buildApp(logging, { stage: 'test', nag: false, apiGatewayCloudWatchRole: 'existing' }).service);
    const [stage] = Object.values(service.findResources('AWS::ApiGatewayV2::Stage', { Properties: { StageName: 'live' } }));
    expect(stage?.Properties.AccessLogSettings.DestinationArn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^ListenApiAccessLogs/), 'Arn'] });
    expect(JSON.parse(stage?.Properties.AccessLogSettings.Format as string)).toEqual({
      requestId: '$context.requestId',
      time: '$context.requestTimeEpoch',
      ip: '$context.identity.sourceIp',
      route: '$context.routeKey',
      event: '$context.eventType',
      connection: '$context.connectionId',
      status: '$context.status',
      error: '$context.integration.error',
    });
  });

  it('the deliver function alone may post to and close its connections: execute-api:ManageConnections on POST and DELETE @connections of the live stage, in a policy of its own', () => {
    const policy = template.toJSON().Resources[logicalId(stacks.service.listenConnectionsPolicy)].Properties;
    expect(policy.Roles).toEqual([{ Ref: logicalId(stacks.service.deliverFunction.role) }]);
    const connections = (method: string) => ({
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':execute-api:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':', apiId(), `/live/${method}/@connections/*`]],
    });
    expect(policy.PolicyDocument.Statement).toEqual([
      { Effect: 'Allow', Action: 'execute-api:ManageConnections', Resource: [connections('DELETE'), connections('POST')] },
    ]);
    // The api function closes a revoked key's sockets (DELETE only); nobody else names execute-api.
    const policies = template.findResources('AWS::IAM::Policy');
    const [closeId, close] = Object.entries(policies).find(([id]) => id.startsWith('ListenCloseConnectionsPolicy')) ?? [];
    expect(close?.Properties.Roles).toEqual([{ Ref: logicalId(stacks.service.apiFunction.role) }]);
    expect(close?.Properties.PolicyDocument.Statement).toEqual([{ Effect: 'Allow', Action: 'execute-api:ManageConnections', Resource: connections('DELETE') }]);
    const others = Object.entries(policies).filter(([id]) => id !== logicalId(stacks.service.listenConnectionsPolicy) && id !== closeId);
    expect(JSON.stringify(others)).not.toContain('execute-api');
  });

  it('the CLI finds the URL through the API (the api function’s environment) and in the stack outputs', () => {
    template.hasOutput('ListenUrl', { Value: listenStageUrl('wss') });
  });
});
