import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildApp, createApp, type BuildAppOptions } from '../../lib/app-builder';

// API Gateway's access logs, as AWS takes them: synthesised as `cdk deploy` does (the CLI always
// sets an account and a region), templates only (no bundling).

/**
 * The variables API Gateway documents for access log formats (Developer Guide: "Customize HTTP API
 * access logs", "Configure logging for WebSocket APIs"), as of 2026-12. API Gateway V2 refuses a
 * format that names any other, and the stage fails to create. `{property}` stands for a name of the
 * operator's choosing (an authorizer's context key, a JWT claim).
 */
const HTTP_API_VARIABLES = [
  'accountId', 'apiId', 'authorizer.claims.{property}', 'authorizer.error', 'authorizer.principalId', 'authorizer.{property}',
  'awsEndpointRequestId', 'awsEndpointRequestId2', 'customDomain.basePathMatched', 'dataProcessed', 'domainName', 'domainPrefix',
  'error.message', 'error.messageString', 'error.responseType', 'extendedRequestId', 'httpMethod',
  'identity.accountId', 'identity.caller', 'identity.cognitoAuthenticationProvider', 'identity.cognitoAuthenticationType',
  'identity.cognitoIdentityId', 'identity.cognitoIdentityPoolId', 'identity.principalOrgId',
  'identity.clientCert.clientCertPem', 'identity.clientCert.subjectDN', 'identity.clientCert.issuerDN', 'identity.clientCert.serialNumber',
  'identity.clientCert.validity.notBefore', 'identity.clientCert.validity.notAfter',
  'identity.sourceIp', 'identity.user', 'identity.userAgent', 'identity.userArn',
  'integration.error', 'integration.integrationStatus', 'integration.latency', 'integration.requestId', 'integration.status',
  'integrationErrorMessage', 'integrationLatency', 'integrationStatus',
  'path', 'protocol', 'requestId', 'requestTime', 'requestTimeEpoch', 'responseLatency', 'responseLength', 'routeKey', 'stage', 'status',
];
const WEBSOCKET_API_VARIABLES = [
  'apiId', 'authorize.error', 'authorize.latency', 'authorize.status',
  'authorizer.error', 'authorizer.integrationLatency', 'authorizer.integrationStatus', 'authorizer.latency', 'authorizer.requestId',
  'authorizer.status', 'authorizer.principalId', 'authorizer.{property}',
  'authenticate.error', 'authenticate.latency', 'authenticate.status',
  'connectedAt', 'connectionId', 'domainName', 'error.message', 'error.messageString', 'error.responseType', 'error.validationErrorString',
  'eventType', 'extendedRequestId',
  'identity.accountId', 'identity.apiKey', 'identity.apiKeyId', 'identity.caller', 'identity.cognitoAuthenticationProvider',
  'identity.cognitoAuthenticationType', 'identity.cognitoIdentityId', 'identity.cognitoIdentityPoolId', 'identity.sourceIp',
  'identity.user', 'identity.userAgent', 'identity.userArn',
  'integration.error', 'integration.integrationStatus', 'integration.latency', 'integration.requestId', 'integration.status',
  'integrationLatency', 'integrationStatus', 'messageId', 'requestId', 'awsEndpointRequestId', 'requestTime', 'requestTimeEpoch',
  'routeKey', 'stage', 'status',
];

/** Whether `variable` (without `$context.`) is one of `documented`, a `{property}` standing for any one name. */
function isDocumented(variable: string, documented: readonly string[]): boolean {
  return documented.some((entry) => {
    const pattern = entry.split('{property}').map((part) => part.replaceAll('.', '\\.')).join('[A-Za-z0-9_-]+');
    return new RegExp(`^${pattern}$`).test(variable);
  });
}

const ENV = { account: '123456789012', region: 'eu-west-1' } as const;

function synth(opts: Partial<BuildAppOptions> = {}) {
  const app = createApp({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stacks = buildApp(app, { stage: 'test', env: ENV, nag: false, ...opts });
  return { stacks, templates: [stacks.stateful, stacks.service].map((stack) => Template.fromStack(stack).toJSON() as CfnTemplate) };
}

interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  DependsOn?: string | string[];
  DeletionPolicy?: string;
}
interface CfnTemplate {
  Resources: Record<string, CfnResource>;
}

const refOf = (value: unknown): string | undefined => (value as { Ref?: string } | undefined)?.Ref;
const dependsOn = (resource: CfnResource): string[] => [resource.DependsOn ?? []].flat();

interface LoggingStage {
  id: string;
  resource: CfnResource;
  protocol: string | undefined;
  format: string | undefined;
}

/** Every stage that logs, with its API's protocol and its access log format (REST stages as `REST`). */
function loggingStages(template: CfnTemplate): LoggingStage[] {
  return Object.entries(template.Resources).flatMap(([id, resource]): LoggingStage[] => {
    const properties = resource.Properties ?? {};
    if (resource.Type === 'AWS::ApiGatewayV2::Stage') {
      const format = (properties.AccessLogSettings as { Format?: string } | undefined)?.Format;
      const api = template.Resources[refOf(properties.ApiId) ?? ''];
      const protocol = api?.Properties?.ProtocolType as string | undefined;
      return format === undefined ? [] : [{ id, resource, protocol, format }];
    }
    if (resource.Type === 'AWS::ApiGateway::Stage') {
      const methodLogs = ((properties.MethodSettings ?? []) as { LoggingLevel?: string }[]).some((m) => m.LoggingLevel !== undefined && m.LoggingLevel !== 'OFF');
      const format = (properties.AccessLogSetting as { Format?: string } | undefined)?.Format;
      return format === undefined && !methodLogs ? [] : [{ id, resource, protocol: 'REST', format }];
    }
    return [];
  });
}

/**
 * The stages whose logging needs the account's CloudWatch Logs role (WebSocket and REST stages; HTTP
 * APIs deliver access logs without it) while no stack of the app sets that role before the stage is
 * created: an `AWS::ApiGateway::Account` in the stage's stack that the stage depends on. The operator's
 * word that the account has one (`existing`) is the only other way.
 */
function stagesMissingTheAccountRole(templates: CfnTemplate[], operatorSaysItExists: boolean): string[] {
  if (operatorSaysItExists) return [];
  return templates.flatMap((template) => {
    const accounts = Object.entries(template.Resources).filter(([, r]) => r.Type === 'AWS::ApiGateway::Account' && r.Properties?.CloudWatchRoleArn !== undefined);
    return loggingStages(template)
      .filter((stage) => stage.protocol !== 'HTTP')
      .filter((stage) => !accounts.some(([accountId]) => dependsOn(stage.resource).includes(accountId)))
      .map((stage) => `${stage.id} (${stage.protocol})`);
  });
}

describe('access logs that need the account-level API Gateway CloudWatch Logs role', () => {
  it('by default: no stage depends on an account setting the stacks do not create, and the HTTP API still logs', () => {
    const { templates } = synth();
    expect(stagesMissingTheAccountRole(templates, false)).toEqual([]);
    const stages = templates.flatMap(loggingStages);
    expect(stages.map((s) => s.protocol)).toEqual(['HTTP']);
    expect(templates.some((t) => Object.values(t.Resources).some((r) => r.Type === 'AWS::ApiGateway::Account'))).toBe(false);
  });

  it('the check finds a WebSocket stage that logs without the role (the listen stage with the operator’s word taken away)', () => {
    const { templates } = synth({ apiGatewayCloudWatchRole: 'existing' });
    expect(stagesMissingTheAccountRole(templates, false)).toEqual([expect.stringMatching(/^ListenStage.* \(WEBSOCKET\)$/)]);
    expect(stagesMissingTheAccountRole(templates, true)).toEqual([]);
  });

  it('create: the stack sets the role (retained, with the account resource) before the listen stage, which then logs', () => {
    const { templates, stacks } = synth({ apiGatewayCloudWatchRole: 'create' });
    expect(stagesMissingTheAccountRole(templates, false)).toEqual([]);
    expect(templates.flatMap(loggingStages).map((s) => s.protocol).sort()).toEqual(['HTTP', 'WEBSOCKET']);
    const service = templates[1] as CfnTemplate;
    const [accountId, account] = Object.entries(service.Resources).find(([, r]) => r.Type === 'AWS::ApiGateway::Account') ?? [];
    expect(accountId).toBeDefined();
    expect(account?.DeletionPolicy).toBe('Retain');
    const roleId = (account?.Properties?.CloudWatchRoleArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const role = service.Resources[roleId] as CfnResource;
    expect(role.DeletionPolicy).toBe('Retain');
    expect(JSON.stringify(role.Properties?.AssumeRolePolicyDocument)).toContain('apigateway.amazonaws.com');
    // Its permissions are in place (and retained) before API Gateway is told to use it.
    const policyId = Object.entries(service.Resources).find(([, r]) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties?.Roles) === JSON.stringify([{ Ref: roleId }]))?.[0];
    expect(policyId).toBeDefined();
    expect(service.Resources[policyId as string]?.DeletionPolicy).toBe('Retain');
    expect(dependsOn(account as CfnResource)).toContain(policyId);
    expect(JSON.stringify(service.Resources[policyId as string]?.Properties?.PolicyDocument)).toContain(`arn:aws:logs:${ENV.region}:${ENV.account}:log-group:*`);
    expect(stacks.service.apiGatewayAccount).toBeDefined();
  });
});

describe('access log formats use only the variables API Gateway documents for their API type', () => {
  it('the lists themselves tell the two types apart (the variable the listen stage used to have is HTTP-only)', () => {
    expect(isDocumented('integrationErrorMessage', HTTP_API_VARIABLES)).toBe(true);
    expect(isDocumented('integrationErrorMessage', WEBSOCKET_API_VARIABLES)).toBe(false);
    expect(isDocumented('integration.error', WEBSOCKET_API_VARIABLES)).toBe(true);
    expect(isDocumented('authorizer.tenant', HTTP_API_VARIABLES)).toBe(true);
    expect(isDocumented('connectionId', HTTP_API_VARIABLES)).toBe(false);
  });

  for (const mode of ['existing', 'create'] as const) {
    it(`every variable of both formats (apiGatewayCloudWatchRole=${mode})`, () => {
      const { templates } = synth({ apiGatewayCloudWatchRole: mode });
      const stages = templates.flatMap(loggingStages);
      expect(stages.map((s) => s.protocol).sort()).toEqual(['HTTP', 'WEBSOCKET']);
      for (const stage of stages) {
        const documented = stage.protocol === 'WEBSOCKET' ? WEBSOCKET_API_VARIABLES : HTTP_API_VARIABLES;
        const variables = [...(stage.format ?? '').matchAll(/\$context\.([A-Za-z0-9_.-]+)/g)].map((m) => m[1] as string);
        expect(variables.length).toBeGreaterThan(0);
        expect(variables.filter((v) => !isDocumented(v, documented)), `${stage.protocol} stage ${stage.id}`).toEqual([]);
      }
    });
  }
});
