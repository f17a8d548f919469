import { CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { buildApp, createApp, type HookgateStacks } from '../../lib/app-builder';
import { optionsFromContext } from '../../lib/app-context';
import { DELIVERY_QUEUE, ENV } from '../../lambdas/shared/resource-definitions';

// The settings a stage is sized with, read from CDK context as `cdk synth` reads it (bin/app.ts):
// each one's default, and what a value given as `-c key=value` (a string) turns into. Templates only.
function synthFrom(context: Record<string, unknown> = {}): { stacks: HookgateStacks; template: Template } {
  const app = createApp({ context: { 'aws:cdk:bundling-stacks': [], stage: 'ctx', ...context } });
  const stacks = buildApp(app, { ...optionsFromContext(app), nag: false });
  return { stacks, template: Template.fromStack(stacks.service) };
}

function logicalId(construct: IConstruct): string {
  const resource = CfnElement.isCfnElement(construct) ? construct : construct.node.defaultChild;
  if (!CfnElement.isCfnElement(resource)) throw new Error(`${construct.node.path} has no CloudFormation resource`);
  return Stack.of(construct).resolve(resource.logicalId) as string;
}

const routeSettings = ({ template }: ReturnType<typeof synthFrom>) =>
  Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0]?.Properties.RouteSettings as Record<string, unknown>;

const reservedConcurrency = ({ stacks, template }: ReturnType<typeof synthFrom>) => {
  const of = (construct: IConstruct) => template.toJSON().Resources[logicalId(construct)].Properties.ReservedConcurrentExecutions as unknown;
  return { ingest: of(stacks.service.ingestFunction.fn), deliver: of(stacks.service.deliverFunction.fn), api: of(stacks.service.apiFunction.fn) };
};

const defaults = synthFrom();

describe('route throttles from context', () => {
  it('default: ingest 1,000/s (burst 500), management 200/s (100), sign-up 1/s (5), the bare root 10/s (10)', () => {
    expect(routeSettings(defaults)).toEqual({
      'POST /ingest/{token}': { ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 500 },
      'ANY /{proxy+}': { ThrottlingRateLimit: 200, ThrottlingBurstLimit: 100 },
      'POST /v1/accounts': { ThrottlingRateLimit: 1, ThrottlingBurstLimit: 5 },
      'ANY /': { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 10 },
    });
  });

  it('each route takes its own rate and burst; a key left out keeps its default', () => {
    const settings = routeSettings(
      synthFrom({ ingestRateLimit: '3000', ingestBurstLimit: '1500', managementRateLimit: '50.5', signupBurstLimit: 2 }),
    );
    expect(settings).toEqual({
      'POST /ingest/{token}': { ThrottlingRateLimit: 3000, ThrottlingBurstLimit: 1500 },
      'ANY /{proxy+}': { ThrottlingRateLimit: 50.5, ThrottlingBurstLimit: 100 },
      'POST /v1/accounts': { ThrottlingRateLimit: 1, ThrottlingBurstLimit: 2 },
      'ANY /': { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 10 },
    });
  });

  it('a budget that would refuse every request, or is no number, fails the synth', () => {
    expect(() => synthFrom({ ingestRateLimit: '0' })).toThrow('ingestRateLimit must be a number above 0, got 0');
    expect(() => synthFrom({ managementBurstLimit: '0' })).toThrow('managementBurstLimit must be a whole number of at least 1, got 0');
    expect(() => synthFrom({ signupBurstLimit: '2.5' })).toThrow('context "signupBurstLimit" must be a whole number');
    expect(() => synthFrom({ ingestRateLimit: 'fast' })).toThrow('context "ingestRateLimit" must be a number');
  });
});

describe('reserved concurrency from context', () => {
  it('default: none reserved for any function', () => {
    expect(reservedConcurrency(defaults)).toEqual({ ingest: undefined, deliver: undefined, api: undefined });
  });

  it('ingest and deliver each get the reservation their key sets, and only they', () => {
    expect(reservedConcurrency(synthFrom({ ingestReservedConcurrency: '50' }))).toEqual({ ingest: 50, deliver: undefined, api: undefined });
    expect(reservedConcurrency(synthFrom({ deliverReservedConcurrency: 150 }))).toEqual({ ingest: undefined, deliver: 150, api: undefined });
  });

  it('deliver reserves no less than its event source runs at once (Lambda would throttle the batches, and throttled receives count toward the DLQ)', () => {
    expect(() => synthFrom({ deliverReservedConcurrency: String(DELIVERY_QUEUE.maxConcurrency - 1) })).toThrow(
      `deliverReservedConcurrency must be at least deliverMaxConcurrency (${DELIVERY_QUEUE.maxConcurrency}), got ${DELIVERY_QUEUE.maxConcurrency - 1}`,
    );
    expect(reservedConcurrency(synthFrom({ deliverMaxConcurrency: '20', deliverReservedConcurrency: '20' })).deliver).toBe(20);
  });

  it('a reservation of 0 (which would stop the function) fails the synth', () => {
    expect(() => synthFrom({ ingestReservedConcurrency: '0' })).toThrow('ingestReservedConcurrency must be a whole number of at least 1, got 0');
  });
});

describe('the other context keys', () => {
  it('reach the stacks as bin/app.ts passed them before (a sample)', () => {
    const { stacks, template } = synthFrom({ deliverMaxConcurrency: '300', tracingSampleRate: '0.05', signup: 'closed' });
    expect(Object.values(template.findResources('AWS::Lambda::EventSourceMapping'))[0]?.Properties.ScalingConfig).toEqual({ MaximumConcurrency: 300 });
    expect(Object.values(template.findResources('AWS::XRay::SamplingRule'))[0]?.Properties.SamplingRule.FixedRate).toBe(0.05);
    expect(template.toJSON().Resources[logicalId(stacks.service.apiFunction.fn)].Properties.Environment.Variables.HOOKGATE_SIGNUP).toBe('closed');
    expect(stacks.service.stackName).toBe('Hookgate-ctx-Service');
    expect(() => synthFrom({ signup: 'ajar' })).toThrow('context "signup" must be open or closed, got "ajar"');
  });

  it('apiGatewayCloudWatchRole: none by default (no WebSocket access log, no account setting), create adds the account setting, anything else fails', () => {
    const accounts = (t: Template) => Object.keys(t.findResources('AWS::ApiGateway::Account')).length;
    const listenLogs = (t: Template) => Object.values(t.findResources('AWS::ApiGatewayV2::Stage', { Properties: { StageName: 'live' } }))[0]?.Properties.AccessLogSettings;
    expect([accounts(defaults.template), listenLogs(defaults.template)]).toEqual([0, undefined]);
    const existing = synthFrom({ apiGatewayCloudWatchRole: 'existing' }).template;
    expect([accounts(existing), listenLogs(existing) !== undefined]).toEqual([0, true]);
    const created = synthFrom({ apiGatewayCloudWatchRole: 'create' }).template;
    expect([accounts(created), listenLogs(created) !== undefined]).toEqual([1, true]);
    expect(() => synthFrom({ apiGatewayCloudWatchRole: 'yes' })).toThrow('context "apiGatewayCloudWatchRole" must be none or existing or create, got "yes"');
  });
});

describe('sign-up from context', () => {
  const signupOutput = ({ template }: ReturnType<typeof synthFrom>) => template.toJSON().Outputs.Signup as { Value: unknown };

  it('open by default, and the Signup output says what that lets strangers do and how to close it', () => {
    const { Value } = signupOutput(defaults);
    expect(Value).toMatch(/^open — anyone who can reach the API can create an account/);
    expect(Value).toContain('-c signup=closed');
    expect(Value).toContain('npm run create-account');
  });

  it('-c signup=closed: the output is closed', () => {
    expect(signupOutput(synthFrom({ signup: 'closed' })).Value).toBe('closed');
  });
});

describe('AWS destination targets from context', () => {
  it('takes a JSON list (cdk.json) or a comma-separated string (-c)', () => {
    const actions = (context: Record<string, unknown>) =>
      (synthFrom(context).stacks.service.awsDestinationsPolicy?.document.toJSON() as { Statement: Array<{ Action: string; Resource: unknown }> } | undefined)?.Statement.map((s) => s.Action);
    expect(actions({})).toBeUndefined();
    expect(actions({ awsDestinationTargets: ['arn:aws:sqs:eu-west-1:123456789012:q', 'arn:aws:s3:::b-1'] })).toEqual(['sqs:SendMessage', 's3:PutObject']);
    expect(actions({ awsDestinationTargets: 'arn:aws:sqs:eu-west-1:123456789012:q, arn:aws:s3:::b-1' })).toEqual(['sqs:SendMessage', 's3:PutObject']);
    expect(() => synthFrom({ awsDestinationTargets: 42 })).toThrow('context "awsDestinationTargets" must be a list of strings');
  });

  it('the accounts that may use them without a role: a JSON list or a comma-separated string, to the api and deliver functions', () => {
    const listed = (context: Record<string, unknown>) => {
      const { service } = synthFrom(context).stacks;
      const variables = (fn: typeof service.apiFunction.fn) => (Template.fromStack(service).toJSON().Resources[service.getLogicalId(fn.node.defaultChild as CfnElement)].Properties.Environment.Variables as Record<string, string>)[ENV.ownRoleAccounts];
      return [variables(service.apiFunction.fn), variables(service.deliverFunction.fn)];
    };
    expect(listed({})).toEqual(['', '']);
    expect(listed({ awsOwnRoleAccounts: ['acct-1', 'acct-2'] })).toEqual(['acct-1,acct-2', 'acct-1,acct-2']);
    expect(listed({ awsOwnRoleAccounts: 'acct-1, *' })).toEqual(['acct-1,*', 'acct-1,*']);
  });
});

describe('endpoint verification from context', () => {
  const required = (context: Record<string, unknown>) => {
    const { stacks, template } = synthFrom(context);
    return (template.toJSON().Resources[logicalId(stacks.service.apiFunction.fn)].Properties.Environment.Variables as Record<string, string>)[ENV.requireEndpointVerification];
  };

  it('off by default (customers’ endpoints only); a JSON boolean or -c requireEndpointVerification=true makes it the rule for the api function', () => {
    expect(required({})).toBeUndefined();
    expect(required({ requireEndpointVerification: true })).toBe('true');
    expect(required({ requireEndpointVerification: 'true' })).toBe('true');
    expect(required({ requireEndpointVerification: 'false' })).toBeUndefined();
    expect(() => synthFrom({ requireEndpointVerification: 'yes' })).toThrow('context "requireEndpointVerification" must be true or false, got "yes"');
  });
});
