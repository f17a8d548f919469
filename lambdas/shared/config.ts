import * as z from 'zod/mini';
import { DELIVERY_QUEUE, ENV } from './resource-definitions';
import { parseRetrySchedule } from '../domain/backoff';
import { DEFAULT_BREAKER } from '../domain/breaker';
import { MISSING_EVENT_GRACE_SECONDS } from '../domain/delivery-phases';
import { parseVerificationResend } from '../domain/endpoint-verification';
import { DEFAULT_MAX_FANOUT } from '../domain/delivery-plan';
import { accountTries, borrowedTries, SLOW_TRY_MS } from '../domain/max-in-flight';
import { DEFAULT_ENDPOINT_CAPS } from '../domain/endpoint-caps';

const numberOr = (raw: string | undefined, fallback: number) => (raw === undefined || raw === '' ? fallback : Number(raw));

const configSchema = z.object({
  tableName: z.string().check(z.minLength(1)),
  deliveryQueueUrl: z.string().check(z.minLength(1)),
  /** Set on the sweeper alone (and locally): where stranded delivery tasks are taken back from. */
  deliveryDlqUrl: z.optional(z.string().check(z.minLength(1))),
  payloadBucket: z.string().check(z.minLength(1)),
  exportBucket: z.string().check(z.minLength(1)),
  publicUrl: z.optional(z.url()),
  allowPrivateDestinations: z.boolean(),
  s3ForcePathStyle: z.boolean(),
  /** The SQS endpoint the SDK is pointed at (the local runtime's emulator); null in AWS. */
  sqsEndpoint: z.nullable(z.string()),
  version: z.string(),
  retrySchedule: z.array(z.number()),
  routeCacheSeconds: z.number().check(z.gte(0)),
  accountTries: z.number().check(z.gte(1)),
  borrowedTries: z.number().check(z.gte(0)),
  ttlLagSeconds: z.number().check(z.gte(0)),
  breaker: z.object({
    threshold: z.int().check(z.gte(1)),
    cooldownSeconds: z.number().check(z.gte(1)),
    maxCooldownSeconds: z.number(),
    successStampSeconds: z.number(),
  }),
  exportFunctionName: z.optional(z.string()),
  /** Set on the functions that make or use Ed25519 keys or hash subjects (ENV.signingKeysKmsKey). */
  signingKeysKmsKey: z.optional(z.string()),
  replayLeaseSeconds: z.number().check(z.gte(1)),
  deliveryLeaseMs: z.number().check(z.gte(1000)),
  verificationResendSeconds: z.array(z.number()),
  missingEventGraceSeconds: z.number().check(z.gte(0)),
  /** How long a try may be in flight before its destination goes under its cap (`SLOW_TRY_MS`). */
  slowTryMs: z.number().check(z.gte(1)),
  maxFanout: z.int().check(z.gte(1)),
  httpApiId: z.optional(z.string()),
  dnsTxtOverridesFile: z.optional(z.string()),
  signupOpen: z.boolean(),
  /** Every http destination proves its endpoint's ownership, not only customers' (ENV.requireEndpointVerification). */
  requireEndpointVerification: z.boolean(),
  /** What an AWS connection's role trusts (ENV.awsPrincipals); empty: connections cannot be created. */
  awsPrincipals: z.array(z.string()),
  /** Who may deliver with the deliver role itself (ENV.ownRoleAccounts). */
  ownRoleAccounts: z.array(z.string()),
  endpointCaps: z.object({ perCustomer: z.int().check(z.gte(1)), perAccount: z.int().check(z.gte(1)) }),
  /** `hookgate listen`'s WebSocket URL and management endpoint; absent: the deployment has no listen. */
  listenUrl: z.optional(z.string()),
  listenEndpoint: z.optional(z.string()),
});

/**
 * The deliver function's timeout; in the local runtime (its SQS emulator set), HOOKGATE_DELIVERY_LEASE_SECONDS
 * where a test sets a shorter one. AWS ignores the setting: there the lease is what a Lambda timeout
 * enforces, and the local runtime enforces none, so a try longer than a shortened lease could be sent twice.
 */
export const deliveryLeaseSeconds = (env: NodeJS.ProcessEnv): number =>
  env.AWS_ENDPOINT_URL_SQS ? numberOr(env[ENV.deliveryLeaseSeconds], DELIVERY_QUEUE.consumerTimeoutSeconds) : DELIVERY_QUEUE.consumerTimeoutSeconds;

export type Config = z.infer<typeof configSchema>;

let cached: Config | undefined;

/** Parsed once per process, on first use, so a misconfigured function fails loudly on its first call. */
export function config(): Config {
  cached ??= configSchema.parse({
    tableName: process.env[ENV.tableName],
    deliveryQueueUrl: process.env[ENV.deliveryQueueUrl],
    deliveryDlqUrl: process.env[ENV.deliveryDlqUrl] || undefined,
    payloadBucket: process.env[ENV.payloadBucket],
    exportBucket: process.env[ENV.exportBucket],
    publicUrl: process.env[ENV.publicUrl] || undefined,
    allowPrivateDestinations: process.env[ENV.allowPrivateDestinations] === 'true',
    s3ForcePathStyle: process.env[ENV.s3ForcePathStyle] === 'true',
    sqsEndpoint: process.env.AWS_ENDPOINT_URL_SQS || null,
    version: process.env[ENV.version] || '0.0.0',
    retrySchedule: parseRetrySchedule(process.env[ENV.retrySchedule]),
    routeCacheSeconds: numberOr(process.env[ENV.routeCacheSeconds], 5),
    accountTries: numberOr(process.env[ENV.accountTries], accountTries(DELIVERY_QUEUE.maxConcurrency)),
    borrowedTries: numberOr(process.env[ENV.borrowedTries], borrowedTries(DELIVERY_QUEUE.maxConcurrency, accountTries(DELIVERY_QUEUE.maxConcurrency))),
    // DynamoDB deletes expired items typically within two days.
    ttlLagSeconds: numberOr(process.env[ENV.ttlLagSeconds], 2 * 86_400),
    breaker: {
      ...DEFAULT_BREAKER,
      threshold: numberOr(process.env[ENV.breakerThreshold], DEFAULT_BREAKER.threshold),
      cooldownSeconds: numberOr(process.env[ENV.breakerCooldownSeconds], DEFAULT_BREAKER.cooldownSeconds),
      maxCooldownSeconds: Math.max(DEFAULT_BREAKER.maxCooldownSeconds, numberOr(process.env[ENV.breakerCooldownSeconds], 0)),
    },
    exportFunctionName: process.env[ENV.exportFunctionName] || undefined,
    signingKeysKmsKey: process.env[ENV.signingKeysKmsKey] || undefined,
    replayLeaseSeconds: numberOr(process.env[ENV.replayLeaseSeconds], 120),
    deliveryLeaseMs: deliveryLeaseSeconds(process.env) * 1000,
    verificationResendSeconds: [...parseVerificationResend(process.env[ENV.verificationResendSeconds])],
    missingEventGraceSeconds: numberOr(process.env[ENV.missingEventGraceSeconds], MISSING_EVENT_GRACE_SECONDS),
    slowTryMs: numberOr(process.env[ENV.slowTryMs], SLOW_TRY_MS),
    maxFanout: numberOr(process.env[ENV.maxFanout], DEFAULT_MAX_FANOUT),
    httpApiId: process.env[ENV.httpApiId] || undefined,
    dnsTxtOverridesFile: process.env[ENV.dnsTxtOverrides] || undefined,
    signupOpen: process.env[ENV.signup] !== 'closed',
    requireEndpointVerification: process.env[ENV.requireEndpointVerification] === 'true',
    awsPrincipals: (process.env[ENV.awsPrincipals] ?? '').split(',').map((arn) => arn.trim()).filter(Boolean),
    ownRoleAccounts: (process.env[ENV.ownRoleAccounts] ?? '').split(',').map((id) => id.trim()).filter(Boolean),
    endpointCaps: {
      perCustomer: numberOr(process.env[ENV.maxEndpointsPerCustomer], DEFAULT_ENDPOINT_CAPS.perCustomer),
      perAccount: numberOr(process.env[ENV.maxEndpointsPerAccount], DEFAULT_ENDPOINT_CAPS.perAccount),
    },
    listenUrl: process.env[ENV.listenUrl] || undefined,
    listenEndpoint: process.env[ENV.listenEndpoint] || undefined,
  });
  return cached;
}

/** For tests that change the environment between cases. */
export function resetConfigForTests(): void {
  cached = undefined;
}
