import { readFileSync } from 'node:fs';
import { CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp, createApp, type BuildAppOptions, type HookgateStacks } from '../../lib/app-builder';
import { API_5XX_RATE_PERCENT, API_MIN_5XX, FUNCTION_ERROR_RATE_PERCENT, FUNCTION_MIN_ERRORS, HELD_PER_DESTINATION_THRESHOLD } from '../../lib/constructs/alarms';
import { ENV, METRICS, metricsService } from '../../lambdas/shared/resource-definitions';

// The dashboard, the alarms and the stack configuration. Templates only: bundling is skipped.
const build = (opts: Partial<Omit<BuildAppOptions, 'nag'>> = {}): HookgateStacks =>
  buildApp(createApp({ context: { 'aws:cdk:bundling-stacks': [] } }), { stage: 'test', nag: false, ...opts });

let stacks: HookgateStacks;
let template: Template;
beforeAll(() => {
  stacks = build();
  template = Template.fromStack(stacks.service);
});

function logicalId(construct: IConstruct): string {
  const resource = CfnElement.isCfnElement(construct) ? construct : construct.node.defaultChild;
  if (!CfnElement.isCfnElement(resource)) throw new Error(`${construct.node.path} has no CloudFormation resource`);
  return Stack.of(construct).resolve(resource.logicalId) as string;
}

/** The seven functions, by the name their alarms and dashboard lines use. */
const functions = () =>
  ({
    api: stacks.service.apiFunction,
    ingest: stacks.service.ingestFunction,
    deliver: stacks.service.deliverFunction,
    export: stacks.service.exportFunction,
    sweeper: stacks.service.sweeperFunction,
    'domain-provisioner': stacks.service.domainProvisionerFunction,
    listen: stacks.service.listenFunction,
  }) as const;
const FUNCTION_NAMES = ['api', 'ingest', 'deliver', 'export', 'sweeper', 'domain-provisioner', 'listen'] as const;

interface AlarmProperties {
  AlarmName: unknown;
  AlarmDescription: string;
  AlarmActions: unknown[];
  OKActions: unknown[];
  Threshold: number;
  ComparisonOperator: string;
  EvaluationPeriods: number;
  TreatMissingData: string;
  Metrics?: Array<{ Id: string; Expression?: string; ReturnData?: boolean; MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions: unknown[] }; Period: number; Stat: string } }>;
  Namespace?: string;
  MetricName?: string;
  Dimensions?: unknown[];
  Period?: number;
  Statistic?: string;
}

const alarmProperties = (construct: IConstruct): AlarmProperties =>
  template.toJSON().Resources[logicalId(construct)].Properties as AlarmProperties;

/** `<stack>-<suffix>`, as CloudFormation gets it. */
const alarmName = (suffix: string) => `Hookgate-test-Service-${suffix}`;

describe('alarms', () => {
  const topicRef = () => ({ Ref: logicalId(stacks.service.alarms.topic) });

  it('are DLQ depth, oldest message age, in-flight count, breakers opening, the API 5xx rate, and per function its error rate and throttles', () => {
    const names = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties.AlarmName as string);
    expect(names.sort()).toEqual(
      [
        'delivery-dlq-not-empty',
        'delivery-queue-stuck',
        'delivery-in-flight-near-cap',
        'destination-breaker-opened',
        'destination-holding-deliveries',
        'api-5xx',
        ...FUNCTION_NAMES.flatMap((name) => [`${name}-errors`, `${name}-throttles`]),
      ]
        .map(alarmName)
        .sort(),
    );
    expect(stacks.service.alarms.all).toHaveLength(names.length);
  });

  it('every alarm notifies the topic when it fires and when it recovers, and says what it means', () => {
    for (const alarm of stacks.service.alarms.all) {
      const properties = alarmProperties(alarm);
      expect(properties.AlarmActions).toEqual([topicRef()]);
      expect(properties.OKActions).toEqual([topicRef()]);
      expect(properties.TreatMissingData).toBe('notBreaching');
      expect(properties.AlarmDescription).toContain('docs/operations.md');
    }
  });

  it.each(FUNCTION_NAMES)('%s: errors / invocations above 5%% over 5 minutes (at least 2 errors), as a math expression', (name) => {
    const properties = alarmProperties(stacks.service.alarms.functionErrors[name] as IConstruct);
    const fnRef = { Ref: logicalId(functions()[name].fn) };
    expect(properties).toMatchObject({
      AlarmName: alarmName(`${name}-errors`),
      Threshold: FUNCTION_ERROR_RATE_PERCENT,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
    });
    expect(FUNCTION_ERROR_RATE_PERCENT).toBe(5);
    const metrics = properties.Metrics ?? [];
    const expression = metrics.find((m) => m.Expression !== undefined);
    expect(expression?.Expression).toBe(`IF(errors >= ${FUNCTION_MIN_ERRORS}, 100 * errors / invocations, 0)`);
    expect(expression?.ReturnData ?? true).toBe(true);
    const stat = (id: string) => metrics.find((m) => m.Id === id)?.MetricStat;
    for (const [id, metricName] of [
      ['errors', 'Errors'],
      ['invocations', 'Invocations'],
    ] as const) {
      expect(stat(id)).toEqual({
        Metric: { Namespace: 'AWS/Lambda', MetricName: metricName, Dimensions: [{ Name: 'FunctionName', Value: fnRef }] },
        Period: 300,
        Stat: 'Sum',
      });
    }
  });

  it.each(FUNCTION_NAMES)('%s: any throttle within 5 minutes', (name) => {
    expect(alarmProperties(stacks.service.alarms.functionThrottles[name] as IConstruct)).toMatchObject({
      AlarmName: alarmName(`${name}-throttles`),
      Namespace: 'AWS/Lambda',
      MetricName: 'Throttles',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId(functions()[name].fn) } }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
    });
  });

  it('HTTP API: 5xx / requests above 5% over 5 minutes (at least 5 of them), as a math expression', () => {
    const properties = alarmProperties(stacks.service.alarms.api5xx);
    expect(properties).toMatchObject({
      AlarmName: alarmName('api-5xx'),
      Threshold: API_5XX_RATE_PERCENT,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
    });
    expect(API_5XX_RATE_PERCENT).toBe(5);
    const metrics = properties.Metrics ?? [];
    expect(metrics.find((m) => m.Expression !== undefined)?.Expression).toBe(
      `IF(serverErrors >= ${API_MIN_5XX}, 100 * serverErrors / requests, 0)`,
    );
    const apiRef = { Ref: logicalId(stacks.service.httpApi) };
    const stat = (id: string) => metrics.find((m) => m.Id === id)?.MetricStat;
    expect(stat('serverErrors')).toEqual({
      Metric: { Namespace: 'AWS/ApiGateway', MetricName: '5xx', Dimensions: [{ Name: 'ApiId', Value: apiRef }] },
      Period: 300,
      Stat: 'Sum',
    });
    expect(stat('requests')).toEqual({
      Metric: { Namespace: 'AWS/ApiGateway', MetricName: 'Count', Dimensions: [{ Name: 'ApiId', Value: apiRef }] },
      Period: 300,
      Stat: 'Sum',
    });
  });

  it('one destination parking over 1,000 deliveries in 5 minutes: a Contributor Insights rule counts the deliver logs\' parks per destination, the alarm its busiest', () => {
    const rules = Object.values(template.findResources('AWS::CloudWatch::InsightRule'));
    expect(rules).toHaveLength(1);
    const rule = rules[0]!.Properties as { RuleName: string; RuleState: string; RuleBody: unknown };
    expect(rule).toMatchObject({ RuleName: alarmName('held-by-destination'), RuleState: 'ENABLED' });
    const body = JSON.stringify(rule.RuleBody);
    expect(body).toContain(logicalId(stacks.service.deliverFunction.logGroup));
    expect(body).toContain('delivery parked');
    expect(body).toContain('$.destination_id');
    const properties = alarmProperties(stacks.service.alarms.destinationHolding);
    expect(properties).toMatchObject({ AlarmName: alarmName('destination-holding-deliveries'), Threshold: HELD_PER_DESTINATION_THRESHOLD, ComparisonOperator: 'GreaterThanThreshold' });
    expect(JSON.stringify(properties.Metrics)).toContain(`INSIGHT_RULE_METRIC(\\"${alarmName('held-by-destination')}\\", \\"MaxContributorValue\\")`);
  });

  it('each alarm has a runbook in docs/operations.md', () => {
    const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const headings = [...doc.matchAll(/^###\s+`([^`]+)`/gm)].map((m) => m[1]);
    for (const alarm of stacks.service.alarms.all) {
      const suffix = String(alarmProperties(alarm).AlarmName).replace('Hookgate-test-Service-', '');
      const runbook = suffix.replace(new RegExp(`^(${FUNCTION_NAMES.join('|')})-(errors|throttles)$`), '<function>-$2');
      expect(headings, suffix).toContain(runbook);
    }
  });
});

/** The dashboard body with every CloudFormation reference in it replaced by `"<ref>"`, parsed. */
function dashboardBody(from: Template = template): { widgets: Array<{ type: string; properties: Record<string, unknown> }> } {
  const dashboards = Object.values(from.findResources('AWS::CloudWatch::Dashboard'));
  expect(dashboards).toHaveLength(1);
  const body = dashboards[0]?.Properties.DashboardBody as string | { 'Fn::Join': [string, unknown[]] };
  const text = typeof body === 'string' ? body : body['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : '<ref>')).join('');
  return JSON.parse(text) as ReturnType<typeof dashboardBody>;
}

/** Every metric line of the dashboard's graphs: `[namespace, name, dim, value, …, options]` or `[{expression}]`. */
function graphMetrics(): unknown[][] {
  return dashboardBody()
    .widgets.filter((w) => w.type === 'metric')
    .flatMap((w) => (w.properties.metrics as unknown[][] | undefined) ?? []);
}

function widget(title: string) {
  const found = dashboardBody().widgets.find((w) => w.properties.title === title);
  if (!found) throw new Error(`no widget "${title}"`);
  return found;
}

describe('dashboard', () => {
  const service = metricsService('test');

  it('is one dashboard per stage and region', () => {
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboard?.Properties.DashboardName).toEqual({ 'Fn::Join': ['', ['Hookgate-test-', { Ref: 'AWS::Region' }]] });
    template.hasOutput('DashboardUrl', {});
  });

  it('reads the custom metrics under the service dimension the functions write', () => {
    expect(service).toBe('hookgate-test');
    const env = template.toJSON().Resources[logicalId(stacks.service.deliverFunction.fn)].Properties.Environment.Variables;
    expect(metricsService(env[ENV.stage] as string)).toBe(service);
  });

  it.each([
    ['Events ingested (per minute)', METRICS.names.ingested, ['direction', 'inbound']],
    ['Events ingested (per minute)', METRICS.names.ingested, ['direction', 'outbound']],
    ['Deliveries (per minute)', METRICS.names.delivered, []],
    ['Deliveries (per minute)', METRICS.names.deliveryFailed, []],
    ['Deliveries (per minute)', METRICS.names.deadLettered, []],
  ] as const)('%s: %s %j, summed per minute', (title, metricName, dimension) => {
    const metrics = widget(title).properties.metrics as unknown[][];
    expect(metrics).toContainEqual([
      METRICS.namespace,
      metricName,
      ...(dimension.length ? dimension : []),
      'service',
      service,
      expect.objectContaining({ stat: 'Sum', period: 60 }),
    ]);
  });

  it('delivery latency: p50 and p99', () => {
    const metrics = widget('Delivery latency, received to delivered (ms)').properties.metrics as unknown[][];
    for (const stat of ['p50', 'p99']) {
      expect(metrics).toContainEqual([METRICS.namespace, METRICS.names.deliveryLatency, 'service', service, expect.objectContaining({ stat })]);
    }
  });

  it.each([
    ['Delivery attempts by outcome (per minute)', METRICS.names.deliveryAttempts, 'outcome'],
    ['Verification rejects by provider (per minute)', METRICS.names.verificationRejected, 'provider'],
  ] as const)('%s: one line per value of the dimension', (title, metricName, dimension) => {
    const metrics = widget(title).properties.metrics as Array<[{ expression: string }]>;
    expect(metrics).toHaveLength(1);
    expect(metrics[0]?.[0].expression).toBe(
      `SEARCH('{Hookgate,${dimension},service} service="${service}" MetricName="${metricName}"', 'Sum', 60)`,
    );
  });

  it('the delivery queue (depth, oldest message age with the alarm threshold) and the DLQ depth', () => {
    const sqs = graphMetrics().filter((m) => m[0] === 'AWS/SQS').map((m) => m[1]);
    expect(sqs).toEqual(
      expect.arrayContaining(['ApproximateNumberOfMessagesVisible', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateAgeOfOldestMessage']),
    );
    expect(sqs.filter((name) => name === 'ApproximateNumberOfMessagesVisible')).toHaveLength(2); // queue and DLQ
    const annotations = (w: string) => (widget(w).properties.annotations as { horizontal: Array<{ value: number }> }).horizontal;
    // Longest wait one message holds (15 min: longer waits hop to a new message) plus 5 min.
    expect(annotations('Delivery queue: oldest message age (s)')).toEqual([expect.objectContaining({ value: 1200 })]);
    expect(annotations('Delivery queue depth')).toEqual([expect.objectContaining({ value: 100_000 })]);
    expect(annotations('DLQ depth')).toEqual([expect.objectContaining({ value: 1 })]);
  });

  it.each(['Errors', 'Throttles', 'Duration', 'Invocations'])('Lambda %s: one line per function', (metricName) => {
    const lines = graphMetrics().filter((m) => m[0] === 'AWS/Lambda' && m[1] === metricName);
    expect(lines.map((m) => (m.at(-1) as { label: string }).label).sort()).toEqual([...FUNCTION_NAMES].sort());
  });

  it('HTTP API: requests, 4xx, 5xx, latency p50/p99 and integration latency', () => {
    const api = graphMetrics()
      .filter((m) => m[0] === 'AWS/ApiGateway')
      .map((m) => `${String(m[1])} ${(m.at(-1) as { stat: string }).stat}`);
    expect(api.sort()).toEqual(['4xx Sum', '5xx Sum', 'Count Sum', 'IntegrationLatency p99', 'Latency p50', 'Latency p99'].sort());
  });

  it('shows the state of every alarm', () => {
    const status = dashboardBody().widgets.find((w) => w.type === 'alarm');
    expect((status?.properties.alarms as unknown[]).length).toBe(stacks.service.alarms.all.length);
  });
});

describe('configuration through CDK context', () => {
  const logGroups = (t: Template) =>
    Object.values(t.findResources('AWS::Logs::LogGroup')).map((g) => g.Properties.RetentionInDays as number);

  it('logs are kept 30 days by default: every function and the HTTP API’s access log (the WebSocket stage keeps none by default)', () => {
    expect(logGroups(template)).toHaveLength(8);
    expect(new Set(logGroups(template))).toEqual(new Set([30]));
  });

  it('logRetentionDays changes all of them, the WebSocket stage’s access log included when it keeps one', () => {
    const other = Template.fromStack(build({ stage: 'other', logRetentionDays: 90, apiGatewayCloudWatchRole: 'existing' }).service);
    expect(logGroups(other)).toHaveLength(9);
    expect(new Set(logGroups(other))).toEqual(new Set([90]));
  });

  it('a retention CloudWatch Logs does not offer, or none at all, fails the synth', () => {
    expect(() => build({ stage: 'other', logRetentionDays: 42 })).toThrow(/logRetentionDays must be one of 1, 3, 5/);
    expect(() => build({ stage: 'other', logRetentionDays: 9999 })).toThrow(/logRetentionDays/);
  });

  it('the stage names the metrics dimension and the dashboard', () => {
    const other = Template.fromStack(build({ stage: 'prod' }).service);
    for (const fn of Object.values(other.findResources('AWS::Lambda::Function'))) {
      const variables = (fn.Properties.Environment?.Variables ?? {}) as Record<string, unknown>;
      if (ENV.serviceName in variables) expect(variables[ENV.stage]).toBe('prod');
    }
    const otherMetrics = dashboardBody(other).widgets.flatMap((w) => (w.properties.metrics as unknown[][] | undefined) ?? []);
    const searches = otherMetrics.flatMap((m) => m.filter((part): part is { expression: string } => typeof part === 'object' && part !== null && 'expression' in part));
    expect(searches.length).toBeGreaterThan(0);
    for (const search of searches) expect(search.expression).toContain('service="hookgate-prod"');
    const customLines = otherMetrics.filter((m) => m[0] === METRICS.namespace);
    expect(customLines.length).toBeGreaterThan(0);
    for (const line of customLines) expect(line).toContain('hookgate-prod');
  });
});

describe('docs/operations.md’s pre-flight figures are the stack’s', () => {
  const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
  const preflight = doc.split('\n## Pre-flight')[1]?.split('\n## ')[0] ?? '';
  const mappingConcurrency = (from: Template) => Object.values(from.findResources('AWS::Lambda::EventSourceMapping'))[0]?.Properties.ScalingConfig.MaximumConcurrency as number;

  it('the deliver mapping’s default maximum concurrency, no reservation, and the quota checked', () => {
    expect(preflight).toContain(`up to ${mappingConcurrency(template)} (\`deliverMaxConcurrency\`)`);
    for (const fn of Object.values(functions())) expect(template.toJSON().Resources[logicalId(fn.fn)].Properties.ReservedConcurrentExecutions).toBeUndefined();
    expect(preflight).toContain('aws service-quotas get-service-quota --service-code lambda --quota-code L-B99A9384');
  });

  it('the stop-gap it advises for a 10-execution account deploys: the least maximum concurrency a mapping takes', () => {
    expect(preflight).toContain('-c deliverMaxConcurrency=2');
    expect(mappingConcurrency(Template.fromStack(build({ deliverMaxConcurrency: 2 }).service))).toBe(2);
    expect(() => build({ deliverMaxConcurrency: 1 })).toThrow('deliverMaxConcurrency must be a whole number from 2 to 1000, got 1');
  });
});

describe('what the runbooks read from the stacks', () => {
  it('the stateful stack outputs the delivery queue and DLQ (redrive source and destination, DLQ URL)', () => {
    const stateful = Template.fromStack(stacks.stateful);
    const ref = (construct: IConstruct) => ({ Ref: logicalId(construct) });
    const arn = (construct: IConstruct) => ({ 'Fn::GetAtt': [logicalId(construct), 'Arn'] });
    stateful.hasOutput('DeliveryQueueArn', { Value: arn(stacks.stateful.deliveryQueue) });
    stateful.hasOutput('DeliveryDlqArn', { Value: arn(stacks.stateful.deliveryDlq) });
    stateful.hasOutput('DeliveryDlqUrl', { Value: ref(stacks.stateful.deliveryDlq) });
  });

  it('the service stack outputs the API URL, the alarm topic and the dashboard URL', () => {
    for (const output of ['ApiUrl', 'AlarmTopicArn', 'DashboardUrl']) template.hasOutput(output, {});
  });
});
