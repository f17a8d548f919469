import { CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { buildApp, createApp, type HookgateStacks } from '../../lib/app-builder';
import { optionsFromContext } from '../../lib/app-context';

// The stage's settings read from CDK context as `cdk synth` reads them (bin/app.ts): each one's
// default, and what a value given as `-c key=value` (a string) turns into. Templates only.
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

describe('context keys', () => {
  it('reach the stacks (a sample)', () => {
    const { stacks, template } = synthFrom({ deliverMaxConcurrency: '300', tracingSampleRate: '0.05', signup: 'closed' });
    expect(Object.values(template.findResources('AWS::Lambda::EventSourceMapping'))[0]?.Properties.ScalingConfig).toEqual({ MaximumConcurrency: 300 });
    expect(Object.values(template.findResources('AWS::XRay::SamplingRule'))[0]?.Properties.SamplingRule.FixedRate).toBe(0.05);
    expect(template.toJSON().Resources[logicalId(stacks.service.apiFunction.fn)].Properties.Environment.Variables.HOOKGATE_SIGNUP).toBe('closed');
    expect(stacks.service.stackName).toBe('Hookgate-ctx-Service');
    expect(() => synthFrom({ signup: 'ajar' })).toThrow('context "signup" must be open or closed, got "ajar"');
  });
});
