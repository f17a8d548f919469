import type { App } from 'aws-cdk-lib';
import type { BuildAppOptions } from './app-builder';

/**
 * The deployment's options from CDK context (cdk.json, or `-c key=value`, which arrives as a string).
 * Here rather than in bin/app.ts so the infra tests build from context exactly as `cdk synth` does.
 */
export function optionsFromContext(app: App): BuildAppOptions {
  const context = contextReader(app);
  return {
    stage: context.string('stage') ?? 'dev',
    // e.g. -c retrySchedule=0,60,600,3600,21600
    retrySchedule: context.string('retrySchedule'),
    alarmEmail: context.string('alarmEmail'),
    // e.g. -c logRetentionDays=90
    logRetentionDays: context.wholeNumber('logRetentionDays'),
    // e.g. -c deliverMaxConcurrency=200 (batches of 10 the deliver function runs at once)
    deliverMaxConcurrency: context.wholeNumber('deliverMaxConcurrency'),
    // e.g. -c deliverBatchingWindowSeconds=0 (every message invokes at once: lowest latency, most invocations)
    deliverBatchingWindowSeconds: context.wholeNumber('deliverBatchingWindowSeconds'),
    // e.g. -c deliverAccountSharePercent=50 (one account's slow tries may hold half the deliver batches)
    deliverAccountSharePercent: context.wholeNumber('deliverAccountSharePercent'),
    // -c signup=closed: no open sign-up; accounts come from `npm run create-account`
    signup: context.oneOf('signup', ['open', 'closed'] as const),
    // -c requireEndpointVerification=true: the account's own http destinations prove their endpoint's ownership too, not only customers'
    requireEndpointVerification: context.flag('requireEndpointVerification'),
    // e.g. -c maxEndpointsPerCustomer=50 -c maxEndpointsPerAccount=50000
    maxEndpointsPerCustomer: context.wholeNumber('maxEndpointsPerCustomer'),
    maxEndpointsPerAccount: context.wholeNumber('maxEndpointsPerAccount'),
    // -c billingMode=provisioned: the table and its indexes on auto-scaled provisioned capacity,
    // e.g. with -c minWriteCapacity=20 -c maxWriteCapacity=2000
    billingMode: context.oneOf('billingMode', ['on-demand', 'provisioned'] as const),
    minReadCapacity: context.wholeNumber('minReadCapacity'),
    maxReadCapacity: context.wholeNumber('maxReadCapacity'),
    minWriteCapacity: context.wholeNumber('minWriteCapacity'),
    maxWriteCapacity: context.wholeNumber('maxWriteCapacity'),
    // e.g. -c tracingSampleRate=0.05 (X-Ray traces 5% of requests)
    tracingSampleRate: context.number('tracingSampleRate'),
    // Per-route budgets (requests a second, burst), e.g. -c ingestRateLimit=3000 -c ingestBurstLimit=1500
    ingestRateLimit: context.number('ingestRateLimit'),
    ingestBurstLimit: context.wholeNumber('ingestBurstLimit'),
    managementRateLimit: context.number('managementRateLimit'),
    managementBurstLimit: context.wholeNumber('managementBurstLimit'),
    signupRateLimit: context.number('signupRateLimit'),
    signupBurstLimit: context.wholeNumber('signupBurstLimit'),
    // Unset: no reservation. e.g. -c ingestReservedConcurrency=100 -c deliverReservedConcurrency=150
    ingestReservedConcurrency: context.wholeNumber('ingestReservedConcurrency'),
    deliverReservedConcurrency: context.wholeNumber('deliverReservedConcurrency'),
    // The targets AWS destinations may reach in this account: a JSON array in cdk.json, or
    // -c awsDestinationTargets=arn:aws:sqs:eu-west-1:123456789012:orders,arn:aws:s3:::events-archive
    awsDestinationTargets: context.list('awsDestinationTargets'),
    // The Hookgate accounts (ids) whose AWS destinations may use those grants without a role; `*`: all.
    // e.g. -c awsOwnRoleAccounts=0193a5b2-0000-7000-8000-00000000000a
    awsOwnRoleAccounts: context.list('awsOwnRoleAccounts'),
    // The listen WebSocket stage's access log needs API Gateway's account CloudWatch Logs role:
    // -c apiGatewayCloudWatchRole=existing (the account has one) or =create (this stack sets it).
    apiGatewayCloudWatchRole: context.oneOf('apiGatewayCloudWatchRole', ['none', 'existing', 'create'] as const),
    // After the Stateful stack was destroyed and made again from the same template: -c statefulRecreated=2026-12-02
    statefulRecreated: context.string('statefulRecreated'),
  };
}

function contextReader(app: App) {
  const read = (key: string): unknown => app.node.tryGetContext(key);
  return {
    /** A value that must be a string when given. */
    string(key: string): string | undefined {
      const value = read(key);
      if (value === undefined) return undefined;
      if (typeof value !== 'string') throw new Error(`context "${key}" must be a string`);
      return value;
    },
    /** A value that must be a whole number when given. */
    wholeNumber(key: string): number | undefined {
      const value = read(key);
      if (value === undefined) return undefined;
      const parsed = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
      if (typeof parsed !== 'number' || !Number.isInteger(parsed)) throw new Error(`context "${key}" must be a whole number`);
      return parsed;
    },
    /** A value that must be a number when given (`-c key=0.05`). */
    number(key: string): number | undefined {
      const value = read(key);
      if (value === undefined) return undefined;
      const parsed = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof parsed !== 'number' || Number.isNaN(parsed)) throw new Error(`context "${key}" must be a number`);
      return parsed;
    },
    /** A list of strings: an array, or one comma-separated string (`-c key=a,b`). */
    list(key: string): string[] | undefined {
      const value = read(key);
      if (value === undefined) return undefined;
      const items = typeof value === 'string' ? value.split(',').map((item) => item.trim()).filter(Boolean) : value;
      if (!Array.isArray(items) || !items.every((item) => typeof item === 'string')) throw new Error(`context "${key}" must be a list of strings`);
      return items;
    },
    /** true or false: a JSON boolean in cdk.json, or `-c key=true`. */
    flag(key: string): boolean | undefined {
      const value = read(key);
      if (value === undefined || typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      throw new Error(`context "${key}" must be true or false, got ${JSON.stringify(value)}`);
    },
    oneOf<const T extends string>(key: string, allowed: readonly T[]): T | undefined {
      const value = this.string(key);
      if (value === undefined || (allowed as readonly string[]).includes(value)) return value as T | undefined;
      throw new Error(`context "${key}" must be ${allowed.join(' or ')}, got "${value}"`);
    },
  };
}
