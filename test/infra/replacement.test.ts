import { Stage, type CfnResource } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildApp, createApp } from '../../lib/app-builder';
import { stableRoleName } from '../../lib/service-stack';
import { ENV } from '../../lambdas/shared/resource-definitions';

// What customers' AWS connection roles trust must not change when the Service stack is replaced:
// synthesised as `cdk deploy` does (account and region set), templates only.
const AWS_ENV = { account: '123456789012', region: 'eu-west-1' } as const;

/** The app built at the root, or one construct further down (a Stage: every stack's path and name change). */
function synth(where: 'root' | 'stage') {
  const app = createApp({ context: { 'aws:cdk:bundling-stacks': [] } });
  const scope = where === 'root' ? app : new Stage(app, 'Blue', { env: AWS_ENV });
  const { service } = buildApp(scope, { stage: 'prod', env: AWS_ENV, nag: false });
  const resources = Template.fromStack(service).toJSON().Resources as Record<string, { Type: string; Properties: Record<string, unknown> }>;
  const roleNames = Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Role')
    .map((r) => r.Properties.RoleName)
    .filter((name) => name !== undefined);
  const api = Object.values(resources).find((r) => r.Type === 'AWS::Lambda::Function' && (r.Properties.Environment as { Variables: Record<string, unknown> }).Variables[ENV.serviceName] === 'hookgate-api');
  const principals = (api?.Properties.Environment as { Variables: Record<string, unknown> }).Variables[ENV.awsPrincipals];
  return { stackName: service.stackName, path: service.node.path, roleNames, principals };
}

describe('the roles customers trust survive a replaced Service stack', () => {
  const root = synth('root');
  const moved = synth('stage');

  it('two syntheses with different construct paths above the stack (and so another stack name) give the deliver and api roles the same names', () => {
    expect(moved.path).not.toBe(root.path);
    expect(moved.stackName).not.toBe(root.stackName);
    expect(root.roleNames.sort()).toEqual(['hookgate-prod-eu-west-1-api', 'hookgate-prod-eu-west-1-deliver']);
    expect(moved.roleNames.sort()).toEqual(root.roleNames);
  });

  it('the principals the API puts in every trust policy are those roles’ ARNs, literal, the same in both', () => {
    expect(root.principals).toBe('arn:aws:iam::123456789012:role/hookgate-prod-eu-west-1-deliver,arn:aws:iam::123456789012:role/hookgate-prod-eu-west-1-api');
    expect(moved.principals).toBe(root.principals);
  });

  it('names fit IAM’s 64 characters for the longest stage and region, and a name that would not fails the synth', () => {
    expect(stableRoleName('a'.repeat(20), 'ap-southeast-7', 'deliver').length).toBeLessThanOrEqual(64);
    expect(() => stableRoleName('a'.repeat(40), 'eu-west-1', 'deliver')).toThrow(/over IAM's 64/);
  });
});

describe('a Stateful change always changes the Service template (its weak references are read only when it updates)', () => {
  const serviceTemplate = (change?: (stacks: ReturnType<typeof buildApp>) => void, statefulRecreated?: string) => {
    const app = createApp({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stacks = buildApp(app, { stage: 'prod', env: AWS_ENV, nag: false, statefulRecreated });
    change?.(stacks);
    return Template.fromStack(stacks.service).toJSON() as { Outputs: Record<string, { Value: unknown }> };
  };
  const revision = (t: ReturnType<typeof serviceTemplate>) => t.Outputs.StatefulRevision?.Value;

  it('the same Stateful stack gives the same template twice', () => {
    expect(revision(serviceTemplate())).toMatch(/^[0-9a-f]{16}$/);
    expect(serviceTemplate()).toEqual(serviceTemplate());
  });

  it('a Stateful resource that CloudFormation replaces (a new key schema, a queue renamed) changes the Service template', () => {
    const base = serviceTemplate();
    const newKey = serviceTemplate(({ stateful }) => (stateful.table.node.defaultChild as CfnResource).addPropertyOverride('KeySchema.0.AttributeName', 'id'));
    const renamedQueue = serviceTemplate(({ stateful }) => (stateful.deliveryDlq.node.defaultChild as CfnResource).addPropertyOverride('QueueName', 'hookgate-prod-dlq'));
    expect(new Set([revision(base), revision(newKey), revision(renamedQueue)]).size).toBe(3);
  });

  it('statefulRecreated (after the Stateful stack was made anew from the same template) changes it too', () => {
    expect(revision(serviceTemplate(undefined, '2026-12-02'))).not.toEqual(revision(serviceTemplate()));
  });
});
