import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

// `cdk deploy` synthesises through the CLI, which always sets a region (CDK_DEFAULT_REGION): ARNs built
// with formatArn then hold the region and partition as literals, and a cdk-nag acknowledgement written
// for `<AWS::Region>` no longer matches. The other infra tests build the app in process, with no region;
// these run the CLI exactly as a user does, one environment each.

const run = promisify(execFile);
const REPO_ROOT = new URL('../../', import.meta.url).pathname;
const CDK = join(REPO_ROOT, 'node_modules/aws-cdk/bin/cdk');

interface CliEnvironment {
  readonly name: string;
  /** AWS_REGION as the CLI reads it; none: the CLI's own default. */
  readonly region?: string;
  readonly account?: string;
  readonly context?: Readonly<Record<string, string>>;
  /** The region and partition every literal ARN of the templates must name. */
  readonly expect: { readonly region: string; readonly partition: string; readonly stage: string };
}

// Each CLI synth is ~10 s of CPU: the context keys ride along with the partitions rather than taking a synth each.
const ENVIRONMENTS: readonly CliEnvironment[] = [
  { name: 'the CLI default (no region, no account)', expect: { region: 'us-east-1', partition: 'aws', stage: 'dev' } },
  {
    name: 'eu-west-1 with an account, -c billingMode=provisioned',
    region: 'eu-west-1',
    account: '123456789012',
    context: { billingMode: 'provisioned' },
    expect: { region: 'eu-west-1', partition: 'aws', stage: 'dev' },
  },
  { name: 'a China region, -c stage=prod', region: 'cn-north-1', account: '123456789012', context: { stage: 'prod' }, expect: { region: 'cn-north-1', partition: 'aws-cn', stage: 'prod' } },
  { name: 'a GovCloud region, -c signup=closed', region: 'us-gov-west-1', context: { signup: 'closed' }, expect: { region: 'us-gov-west-1', partition: 'aws-us-gov', stage: 'dev' } },
];

const reportSchema = z.object({
  pluginReports: z.array(z.object({ pluginName: z.string(), violations: z.array(z.object({ ruleName: z.string() })) })),
});

/** Every region name AWS has used, as `<area>[-gov|-iso…]-<direction>-<n>`. */
const REGION_NAME = /\b(?:us|eu|ap|sa|ca|me|af|il|mx|cn)(?:-gov|-iso[a-z]?)?-(?:north|south|east|west|central|northeast|southeast|northwest|southwest)-\d\b/g;
const ARN = /arn:(aws[a-z-]*):([a-z0-9-]+):([a-z0-9-]*):/g;

const outdirs: string[] = [];
afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

/** The environment the CLI runs with: none of the developer's credentials, profiles or region. */
function cliEnv(environment: CliEnvironment): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(AWS_|CDK_)/.test(key)) env[key] = value;
  }
  const nowhere = join(tmpdir(), 'hookgate-no-aws-config');
  Object.assign(env, {
    AWS_CONFIG_FILE: nowhere,
    AWS_SHARED_CREDENTIALS_FILE: nowhere,
    // No instance metadata lookups (each would wait for a time-out here) and no telemetry.
    AWS_EC2_METADATA_DISABLED: 'true',
    CDK_DISABLE_CLI_TELEMETRY: 'true',
  });
  if (environment.region) env.AWS_REGION = environment.region;
  if (environment.account) env.CDK_DEFAULT_ACCOUNT = environment.account;
  return env;
}

async function cliSynth(environment: CliEnvironment, bundle: boolean): Promise<string> {
  const outdir = mkdtempSync(join(tmpdir(), 'hookgate-cli-synth-'));
  outdirs.push(outdir);
  const env = cliEnv(environment);
  // The schema validation (vitest.config.ts) runs where the functions are bundled too: as cdk deploy, once.
  if (!bundle) env.CDK_VALIDATION = 'false';
  const context = Object.entries(environment.context ?? {}).flatMap(([key, value]) => ['-c', `${key}=${value}`]);
  // Bundling does not depend on the region: one environment bundles as `cdk deploy` does, the others name
  // the stateful stack alone, which leaves the functions' assets unbundled and every template written.
  const selection = bundle ? [] : ['--exclusively', `Hookgate-${environment.expect.stage}-Stateful`];
  await run(process.execPath, [CDK, 'synth', '--quiet', '--no-notices', '-o', outdir, ...context, ...selection], {
    cwd: REPO_ROOT,
    env,
    maxBuffer: 16 * 1024 * 1024,
  });
  return outdir;
}

describe('cdk synth through the CLI, as cdk deploy runs it', () => {
  it.each(ENVIRONMENTS.map((environment, i) => ({ environment, bundle: i === 0 })))('$environment.name', async ({ environment, bundle }) => {
    const outdir = await cliSynth(environment, bundle).catch((error: { stderr?: string }) => {
      throw new Error(`cdk synth failed:\n${error.stderr ?? String(error)}`);
    });
    const report = reportSchema.parse(JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')));
    // Where every check ran (cdk-nag and CloudFormation's schemas), no plugin found anything.
    const findings = report.pluginReports.filter((r) => bundle || r.pluginName === 'AwsSolutions').flatMap((r) => r.violations.map((v) => `${r.pluginName}: ${v.ruleName}`));
    expect(findings).toEqual([]);

    const templates = readdirSync(outdir).filter((file) => file.endsWith('.template.json'));
    expect(templates.sort()).toEqual([`Hookgate-${environment.expect.stage}-Service.template.json`, `Hookgate-${environment.expect.stage}-Stateful.template.json`]);
    const text = templates.map((file) => readFileSync(join(outdir, file), 'utf8')).join('\n');
    const arns = [...text.matchAll(ARN)].map(([, partition, , region]) => ({ partition, region }));
    // The region is a literal wherever formatArn wrote an ARN: at least the listen stage's connections.
    expect(arns.filter((arn) => arn.region === environment.expect.region).length).toBeGreaterThan(0);
    for (const arn of arns) {
      expect(arn.partition).toBe(environment.expect.partition);
      if (arn.region) expect(arn.region).toBe(environment.expect.region);
    }
    const otherRegions = [...new Set([...text.matchAll(REGION_NAME)].map(([name]) => name))].filter((name) => name !== environment.expect.region);
    expect(otherRegions).toEqual([]);
    if (environment.account) expect(text).toContain(`:${environment.account}:`);
  });
});
