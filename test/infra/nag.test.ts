import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildApp, createApp, type BuildAppOptions, type HookgateStacks } from '../../lib/app-builder';

// cdk-nag 3 is a policy validation plugin: findings land in <outdir>/validation-report.json, and
// app.synth() throws when any finding of severity "error" is not acknowledged.
const reportSchema = z.object({
  pluginReports: z.array(
    z.object({
      pluginName: z.string(),
      violations: z.array(
        z.object({
          ruleName: z.string(),
          severity: z.string(),
          violatingConstructs: z.array(z.object({ constructPath: z.string() })),
        }),
      ),
    }),
  ),
});

type Finding = { rule: string; severity: string; path: string };

const outdirs: string[] = [];
afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Synthesises the app with the checks on. The first synth bundles the functions as `cdk deploy` does;
 * the variants skip it, since no rule reads a bundle and seven bundles are ~12 s of esbuild's CPU.
 */
function synthAndReport(
  customize?: (stacks: HookgateStacks) => void,
  opts: Partial<BuildAppOptions> = {},
  { bundle = false }: { bundle?: boolean } = {},
): { error: unknown; findings: Finding[] } {
  const outdir = mkdtempSync(join(tmpdir(), 'hookgate-nag-'));
  outdirs.push(outdir);
  const app = createApp({ outdir, ...(!bundle && { context: { 'aws:cdk:bundling-stacks': [] } }) });
  const stacks = buildApp(app, { stage: 'test', ...opts });
  customize?.(stacks);
  let error: unknown;
  try {
    app.synth();
  } catch (e) {
    error = e;
  }
  const report = reportSchema.parse(JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')));
  const findings = report.pluginReports
    .filter((r) => r.pluginName === 'AwsSolutions')
    .flatMap((r) => r.violations)
    .flatMap((v) => v.violatingConstructs.map((c) => ({ rule: v.ruleName, severity: v.severity, path: c.constructPath })));
  return { error, findings };
}

describe('cdk-nag version', () => {
  it('is pinned to the installed version while lib/nag.ts imports a module outside its public API', () => {
    const nagSource = readFileSync(new URL('../../lib/nag.ts', import.meta.url), 'utf8');
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { devDependencies: Record<string, string> };
    const installed = (JSON.parse(readFileSync(new URL('../../node_modules/cdk-nag/package.json', import.meta.url), 'utf8')) as { version: string }).version;
    expect(nagSource).toMatch(/from 'cdk-nag\/lib\//);
    expect(pkg.devDependencies['cdk-nag']).toBe(installed);
  });
});

describe('cdk-nag AwsSolutions', () => {
  let result: ReturnType<typeof synthAndReport>;
  beforeAll(() => {
    result = synthAndReport(undefined, {}, { bundle: true });
  });

  it('synthesizes the app with no unacknowledged finding', () => {
    expect(result.error).toBeUndefined();
    expect(result.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(result.findings).toEqual([]);
  });

  it('stays clean with the table on provisioned capacity (auto scaling targets and policies)', () => {
    const provisioned = synthAndReport(undefined, { billingMode: 'provisioned' });
    expect(provisioned.error).toBeUndefined();
    expect(provisioned.findings).toEqual([]);
  });

  it('stays clean with every scaling setting given (route throttles, reserved concurrency)', () => {
    const sized = synthAndReport(undefined, {
      ingestRateLimit: 3000,
      ingestBurstLimit: 1500,
      managementRateLimit: 400,
      managementBurstLimit: 200,
      signupRateLimit: 2,
      signupBurstLimit: 10,
      ingestReservedConcurrency: 100,
      deliverMaxConcurrency: 150,
      deliverReservedConcurrency: 150,
    });
    expect(sized.error).toBeUndefined();
    expect(sized.findings).toEqual([]);
  });

  it('stays clean with AWS destination targets listed (their bucket objects acknowledged one by one)', () => {
    const targeted = synthAndReport(undefined, {
      awsDestinationTargets: ['arn:aws:sqs:eu-west-1:123456789012:orders', 'arn:aws:s3:::events-archive', 'arn:aws:lambda:eu-west-1:123456789012:function:consume'],
    });
    expect(targeted.error).toBeUndefined();
    expect(targeted.findings).toEqual([]);
  });

  it('stays clean with the account’s API Gateway CloudWatch Logs role created by the stack, synthesised as cdk deploy does (a region set)', () => {
    const created = synthAndReport(undefined, { apiGatewayCloudWatchRole: 'create', env: { account: '123456789012', region: 'eu-west-1' } });
    expect(created.error).toBeUndefined();
    expect(created.findings).toEqual([]);
  });

  it('is really wired in: a non-compliant resource fails synthesis', () => {
    const broken = synthAndReport(({ stateful, service }) => {
      new s3.Bucket(stateful, 'UnloggedBucket', { enforceSSL: true });
      // A literal wildcard ARN must not be swallowed by the grant-wildcard patterns.
      service.apiFunction.role.addToPolicy(
        new iam.PolicyStatement({
          actions: ['dynamodb:GetItem'],
          resources: ['arn:aws:dynamodb:eu-west-1:123456789012:table/*'],
        }),
      );
    });
    expect(broken.error).toBeDefined();
    expect(broken.findings).toEqual(
      expect.arrayContaining([
        { rule: 'AwsSolutions-S1', severity: 'error', path: 'Hookgate-test-Stateful/UnloggedBucket/Resource' },
        {
          rule: 'AwsSolutions-IAM5[Resource::arn:aws:dynamodb:eu-west-1:123456789012:table/*]',
          severity: 'error',
          path: 'Hookgate-test-Service/ApiFunction/Role/DefaultPolicy/Resource',
        },
      ]),
    );
    expect(broken.findings).toHaveLength(2);
  });
});
