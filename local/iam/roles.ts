import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { CfnElement } from 'aws-cdk-lib';
import { ENV } from '../../lambdas/shared/resource-definitions';
import type { PolicyStatement } from './policy';

/** What one local function may do: its role's statements, as the synthesised stack grants them, on the local resources. */
export interface LocalRole {
  readonly roleArn: string;
  readonly statements: readonly PolicyStatement[];
}

/** Every function's role by its local name (`hookgate-api`, …), and the listen API's identity in ARNs. */
export interface LocalIam {
  readonly account: string;
  readonly region: string;
  readonly roles: Readonly<Record<string, LocalRole>>;
  readonly listenApi: { readonly apiId: string; readonly stage: string };
}

/** The two templates of the app, and which of their resources are the ones the runtime emulates. */
export interface SynthesisedStacks {
  readonly stateful: Template;
  readonly service: ServiceTemplate;
  /** Logical ids in the stateful template. */
  readonly statefulIds: { table: string; deliveryQueue: string; deliveryDlq: string; payloadBucket: string; exportBucket: string; signingKeysKey: string };
}

interface Template {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
  Outputs?: Record<string, { Value: unknown }>;
}
export type ServiceTemplate = Template;

/** The names the emulators gave the stateful resources. */
export interface LocalNames {
  readonly account: string;
  readonly region: string;
  readonly tableName: string;
  readonly deliveryQueueUrl: string;
  readonly deliveryDlqUrl: string;
  readonly payloadBucket: string;
  readonly exportBucket: string;
  /** The local KMS key (local/kms.ts) that stands in for the stateful stack's signing keys key. */
  readonly signingKeysKeyArn: string;
}

/** The service of the ARN a reference the runtime does not emulate resolves to: it matches no request. */
const UNRESOLVED = 'local-unresolved';

/** The local listen server's stand-in for the WebSocket API id AWS assigns. */
const LOCAL_LISTEN_API_ID = 'local-listen';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/** What the stack is built from, and what the cache is made by: a change to any of these may change what is cached. */
const STACK_SOURCES = ['lib', 'lambdas/shared', 'lambdas/domain', 'local/iam', 'package.json', 'package-lock.json', 'cdk.json'];

function filesUnder(path: string): string[] {
  const full = join(REPO_ROOT, path);
  if (!statSync(full).isDirectory()) return [full];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

function sourceHash(): string {
  const hash = createHash('sha256');
  for (const file of STACK_SOURCES.flatMap(filesUnder)) hash.update(file.slice(REPO_ROOT.length)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 20);
}

export interface SynthOptions {
  /** The deployment's AWS destination targets (context awsDestinationTargets), which the deliver role is granted. */
  readonly awsDestinationTargets?: readonly string[];
  /** Changes the synthesised service template before its roles are read, as an edit to the deployed stack would: a test drops a grant this way. */
  readonly editServiceTemplate?: (template: ServiceTemplate) => void;
  /**
   * Whether the deliver role may also send to the queues and buckets a developer makes on the
   * emulators (emulatorTargetStatements). Default true, what `npm start` does; false leaves the stack's
   * grants alone, as a deployment that lists no `awsDestinationTargets` has them.
   */
  readonly emulatorTargets?: boolean;
}

/**
 * Synthesises the app as `cdk deploy` would (one region, no bundling: the roles do not depend on the
 * code's bundles). ~3 s, so the result is kept under node_modules/.cache, keyed by the stack's sources,
 * and made in a child process: one that reads the sources from disk as they are now, never a module a
 * long-running process (a test runner) loaded before they changed.
 */
export async function synthesiseStacks(opts: SynthOptions = {}): Promise<SynthesisedStacks> {
  const stacks = await cachedSynthesis(opts.awsDestinationTargets ?? []);
  opts.editServiceTemplate?.(stacks.service);
  return stacks;
}

async function cachedSynthesis(targets: readonly string[]): Promise<SynthesisedStacks> {
  const cacheFile = join(REPO_ROOT, 'node_modules/.cache/hookgate-iam', `${sourceHash()}-${createHash('sha256').update(targets.join(',')).digest('hex').slice(0, 8)}.json`);
  try {
    return JSON.parse(readFileSync(cacheFile, 'utf8')) as SynthesisedStacks;
  } catch {
    // Not synthesised yet for these sources.
  }
  const { stdout } = await run(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./synth-main.ts', import.meta.url)), JSON.stringify(targets)], {
    cwd: REPO_ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  mkdirSync(join(cacheFile, '..'), { recursive: true });
  // Written aside and renamed: test files start gateways in parallel, and none may read half a file.
  const partial = `${cacheFile}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(partial, stdout);
  renameSync(partial, cacheFile);
  return JSON.parse(stdout) as SynthesisedStacks;
}

/** The synthesis itself, in this process: local/iam/synth-main.ts, the child process, runs it. */
export async function synthesiseInProcess(awsDestinationTargets: readonly string[]): Promise<SynthesisedStacks> {
  const { buildApp, createApp } = await import('../../lib/app-builder');
  const app = createApp({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stacks = buildApp(app, { stage: 'local', nag: false, env: { region: 'us-east-1' }, awsDestinationTargets, awsOwnRoleAccounts: ['*'] });
  const assembly = app.synth();
  const { stateful } = stacks;
  const id = (construct: { node: { defaultChild?: unknown } }) => stateful.getLogicalId(construct.node.defaultChild as CfnElement);
  return {
    stateful: assembly.getStackByName(stateful.stackName).template as Template,
    service: assembly.getStackByName(stacks.service.stackName).template as Template,
    statefulIds: {
      table: id(stateful.table),
      deliveryQueue: id(stateful.deliveryQueue),
      deliveryDlq: id(stateful.deliveryDlq),
      payloadBucket: id(stateful.payloadBucket),
      exportBucket: id(stateful.exportBucket),
      signingKeysKey: id(stateful.signingKeysKey),
    },
  };
}

const queueName = (url: string): string => new URL(url).pathname.split('/').filter(Boolean).at(-1) ?? url;

/** The function whose role sends to AWS destinations. */
const DELIVER_FUNCTION = 'hookgate-deliver';

/**
 * The local stand-in for a deployment's `awsDestinationTargets`, which must name each queue and bucket
 * and so cannot list the ones a developer creates on the emulators after `npm start`: the deliver role
 * may send to every queue and put into every bucket of the local account (what the emulators hold),
 * the one action each target type calls, as the context would grant it. The gateway's own queues and
 * buckets are not among them (NotResource): on those the role has exactly the stack's grants, so
 * local IAM still refuses what a deployment refuses. A queue of another account (a real SQS URL) is not
 * local either, and still answers AccessDenied.
 */
function emulatorTargetStatements(names: LocalNames): PolicyStatement[] {
  const local = { StringEquals: { 'aws:ResourceAccount': names.account } };
  const ownQueues = [names.deliveryQueueUrl, names.deliveryDlqUrl].map((url) => `arn:aws:sqs:*:${names.account}:${queueName(url)}`);
  const ownBuckets = [names.payloadBucket, names.exportBucket].map((bucket) => `arn:aws:s3:::${bucket}/*`);
  return [
    { Effect: 'Allow', Action: 'sqs:SendMessage', NotResource: ownQueues, Condition: local },
    { Effect: 'Allow', Action: 's3:PutObject', NotResource: ownBuckets, Condition: local },
  ];
}

/**
 * Resolves the intrinsic functions of the service template's policies to the local resources: each
 * stateful resource to what the emulators named it, each function and role to its local name, the
 * pseudo parameters to the local account and region. A reference to anything else resolves to an ARN
 * that matches nothing, so a grant on it grants nothing here. `emulatorTargets` adds
 * emulatorTargetStatements to the deliver role.
 */
export function localIam(stacks: SynthesisedStacks, names: LocalNames, opts: { emulatorTargets?: boolean } = {}): LocalIam {
  const { account, region } = names;
  const ids = stacks.statefulIds;
  const statefulAttributes: Record<string, Record<string, string>> = {
    [ids.table]: { Ref: names.tableName, Arn: `arn:aws:dynamodb:${region}:${account}:table/${names.tableName}` },
    [ids.deliveryQueue]: { Ref: names.deliveryQueueUrl, Arn: `arn:aws:sqs:${region}:${account}:${queueName(names.deliveryQueueUrl)}`, QueueName: queueName(names.deliveryQueueUrl) },
    [ids.deliveryDlq]: { Ref: names.deliveryDlqUrl, Arn: `arn:aws:sqs:${region}:${account}:${queueName(names.deliveryDlqUrl)}`, QueueName: queueName(names.deliveryDlqUrl) },
    [ids.payloadBucket]: { Ref: names.payloadBucket, Arn: `arn:aws:s3:::${names.payloadBucket}` },
    [ids.exportBucket]: { Ref: names.exportBucket, Arn: `arn:aws:s3:::${names.exportBucket}` },
    [ids.signingKeysKey]: { Ref: names.signingKeysKeyArn.split('/').at(-1) ?? names.signingKeysKeyArn, Arn: names.signingKeysKeyArn },
  };
  const service = stacks.service.Resources;
  const functions = Object.entries(service).filter(([, r]) => r.Type === 'AWS::Lambda::Function');
  const functionName = (logicalId: string): string | undefined => {
    const variables = (service[logicalId]?.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables;
    const name = variables?.[ENV.serviceName];
    return typeof name === 'string' ? name : undefined;
  };
  const roleOf = (fn: { Properties?: Record<string, unknown> }): string | undefined => (fn.Properties?.Role as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];
  const roleFunction = new Map(functions.flatMap(([logicalId, fn]) => {
    const role = roleOf(fn);
    const name = functionName(logicalId);
    return role && name ? [[role, name] as const] : [];
  }));
  const serviceAttributes = (logicalId: string): Record<string, string> | undefined => {
    const resource = service[logicalId];
    if (!resource) return undefined;
    if (resource.Type === 'AWS::Lambda::Function') {
      const name = functionName(logicalId) ?? logicalId;
      return { Ref: name, Arn: `arn:aws:lambda:${region}:${account}:function:${name}` };
    }
    if (resource.Type === 'AWS::IAM::Role') return { Arn: `arn:aws:iam::${account}:role/hookgate-local-${(roleFunction.get(logicalId) ?? logicalId).replace(/^hookgate-/, '')}` };
    if (resource.Type === 'AWS::ApiGatewayV2::Api' && resource.Properties?.ProtocolType === 'WEBSOCKET') return { Ref: LOCAL_LISTEN_API_ID };
    return undefined;
  };
  const pseudo: Record<string, string> = { 'AWS::Partition': 'aws', 'AWS::Region': region, 'AWS::AccountId': account, 'AWS::URLSuffix': 'amazonaws.com' };
  const nothing = (what: string) => `arn:aws:${UNRESOLVED}:::${what}`;

  const resolve = (value: unknown, template: Template, attributes: (logicalId: string) => Record<string, string> | undefined): unknown => {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
    if (Array.isArray(value)) return value.map((item) => resolve(item, template, attributes));
    if (typeof value !== 'object' || value === null) return value;
    const entries = Object.entries(value);
    const [key, arg] = entries[0] ?? [];
    if (entries.length === 1 && key === 'Ref') return pseudo[arg as string] ?? attributes(arg as string)?.Ref ?? nothing(`ref/${String(arg)}`);
    if (entries.length === 1 && key === 'Fn::GetAtt') {
      const [logicalId, attribute] = arg as [string, string];
      return attributes(logicalId)?.[attribute] ?? nothing(`${logicalId}.${attribute}`);
    }
    if (entries.length === 1 && key === 'Fn::Join') {
      const [separator, parts] = arg as [string, unknown[]];
      return parts.map((part) => resolve(part, template, attributes)).join(separator);
    }
    if (entries.length === 1 && key === 'Fn::GetStackOutput') {
      // The stack's weak cross-stack references: the stateful stack's output, resolved in its own template.
      const output = stacks.stateful.Outputs?.[(arg as { OutputName: string }).OutputName];
      return output ? resolve(output.Value, stacks.stateful, (logicalId) => statefulAttributes[logicalId]) : nothing(JSON.stringify(arg));
    }
    if (key?.startsWith('Fn::')) throw new Error(`local IAM cannot resolve ${key} in a policy`);
    return Object.fromEntries(entries.map(([k, v]) => [k, resolve(v, template, attributes)]));
  };
  const resolveService = (value: unknown) => resolve(value, stacks.service, serviceAttributes);

  const statementsOf = (document: unknown): PolicyStatement[] => {
    const statements = (resolveService(document) as { Statement?: PolicyStatement[] }).Statement ?? [];
    // An ARN that matches nothing grants nothing in an Allow's Resource, but would deny nothing in a
    // Deny, match everything in a NotResource and pass a negated condition: refuse to guess there.
    for (const statement of statements) {
      const failsOpen = statement.Effect === 'Deny' ? statement : { NotAction: statement.NotAction, NotResource: statement.NotResource, Condition: statement.Condition };
      if (JSON.stringify(failsOpen).includes(UNRESOLVED)) throw new Error(`local IAM cannot resolve a reference in ${JSON.stringify(statement)}`);
    }
    return statements;
  };
  const roles: Record<string, LocalRole> = {};
  for (const [roleId, name] of roleFunction) {
    const role = service[roleId];
    const inline = ((role?.Properties?.Policies ?? []) as { PolicyDocument: unknown }[]).flatMap((policy) => statementsOf(policy.PolicyDocument));
    const attached = Object.values(service)
      .filter((r) => r.Type === 'AWS::IAM::Policy' && ((r.Properties?.Roles ?? []) as { Ref?: string }[]).some((ref) => ref.Ref === roleId))
      .flatMap((policy) => statementsOf(policy.Properties?.PolicyDocument));
    const added = opts.emulatorTargets && name === DELIVER_FUNCTION ? emulatorTargetStatements(names) : [];
    roles[name] = { roleArn: serviceAttributes(roleId)?.Arn ?? nothing(roleId), statements: [...inline, ...attached, ...added] };
  }
  if (opts.emulatorTargets && !roles[DELIVER_FUNCTION]) throw new Error(`local IAM: the service template has no ${DELIVER_FUNCTION} role to grant the emulators' queues and buckets`);
  const stage = Object.values(service).find((r) => r.Type === 'AWS::ApiGatewayV2::Stage' && (r.Properties?.ApiId as { Ref?: string } | undefined)?.Ref !== undefined && serviceAttributes((r.Properties?.ApiId as { Ref: string }).Ref)?.Ref === LOCAL_LISTEN_API_ID);
  const stageName = stage?.Properties?.StageName;
  if (typeof stageName !== 'string') throw new Error('local IAM: the service template has no WebSocket stage');
  return { account, region, roles, listenApi: { apiId: LOCAL_LISTEN_API_ID, stage: stageName } };
}
