import * as z from 'zod/mini';
import { beforeFunctionCalls, runningFunction, type SdkClient } from './sdk-hooks';

/**
 * Throttles as faults: the local runtime answers a share of the functions' AWS calls the way a
 * throttled service does (DynamoDB's ProvisionedThroughputExceededException, everyone else's
 * ThrottlingException), so that what AWS does under load can be tried on a laptop. The answer is
 * given per try, inside the SDK's retry loop: the SDK retries it with its own backoff, as it would in
 * AWS, and only a call whose every try was throttled reaches the code.
 */

export const THROTTLES_ENV = 'HOOKGATE_LOCAL_THROTTLES';

const throttleRule = z.object({
  /** The client's service id. @default every service */
  service: z.optional(z.string()),
  /** Operations, as named in the API (`PutItem`, `Query`, `SendMessage`…). @default every operation */
  operations: z.optional(z.array(z.string())),
  /** A DynamoDB table name. @default every table */
  table: z.optional(z.string()),
  /** Only calls naming an item whose partition key starts with this (`pk`: keys, items, a query's key). */
  keyPrefix: z.optional(z.string()),
  /** Share of the matching tries throttled, from 0 to 1. @default 1 */
  rate: z.optional(z.number().check(z.gte(0), z.lte(1))),
});
export type ThrottleRule = z.infer<typeof throttleRule>;
const throttleRules = z.array(throttleRule);

/** The rules in HOOKGATE_LOCAL_THROTTLES (a JSON array of rules), or none. */
export function throttleRulesFromEnv(env: NodeJS.ProcessEnv = process.env): ThrottleRule[] {
  const text = env[THROTTLES_ENV];
  if (!text) return [];
  const parsed = throttleRules.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${THROTTLES_ENV} must be a JSON array of {service?, operations?, table?, keyPrefix?, rate?}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

type Marshalled = Record<string, unknown>;

/** Every partition key value a DynamoDB request names, in its marshalled input. */
function partitionKeys(input: Marshalled): string[] {
  const keys: string[] = [];
  const take = (item: unknown) => {
    const pk = (item as { pk?: { S?: unknown } } | undefined)?.pk?.S;
    if (typeof pk === 'string') keys.push(pk);
  };
  take(input.Key);
  take(input.Item);
  for (const value of Object.values((input.ExpressionAttributeValues ?? {}) as Marshalled)) {
    const s = (value as { S?: unknown }).S;
    if (typeof s === 'string') keys.push(s);
  }
  for (const requests of Object.values((input.RequestItems ?? {}) as Record<string, unknown>)) {
    if (Array.isArray(requests)) for (const request of requests as { PutRequest?: { Item?: unknown }; DeleteRequest?: { Key?: unknown } }[]) take(request.PutRequest?.Item ?? request.DeleteRequest?.Key);
    else for (const key of ((requests as { Keys?: unknown[] }).Keys ?? [])) take(key);
  }
  return keys;
}

function tables(input: Marshalled): string[] {
  if (typeof input.TableName === 'string') return [input.TableName];
  return Object.keys((input.RequestItems ?? {}) as object);
}

export function ruleMatches(rule: ThrottleRule, serviceId: string, operation: string, input: Marshalled): boolean {
  if (rule.service !== undefined && rule.service !== serviceId) return false;
  if (rule.operations !== undefined && !rule.operations.includes(operation)) return false;
  if (rule.table !== undefined && !tables(input).includes(rule.table)) return false;
  if (rule.keyPrefix !== undefined && !partitionKeys(input).some((key) => key.startsWith(rule.keyPrefix as string))) return false;
  return true;
}

function throttleError(serviceId: string): Error {
  const name = serviceId === 'DynamoDB' ? 'ProvisionedThroughputExceededException' : 'ThrottlingException';
  const message = serviceId === 'DynamoDB' ? 'The level of configured provisioned throughput for the table was exceeded. (local throttle)' : 'Rate exceeded (local throttle)';
  return Object.assign(new Error(message), { name, $fault: 'client', $metadata: { httpStatusCode: 400 }, $retryable: { throttling: true } });
}

/** Tries throttled in this thread since the rules were set. */
let throttled = 0;
export const throttledTries = (): number => throttled;

const withMiddleware = new WeakSet<object>();
let rules: readonly ThrottleRule[] = [];

/**
 * From now on, the functions' calls in this thread that match a rule are throttled at its rate, on
 * every try. No rules: nothing is added to any client.
 */
export function applyThrottles(next: readonly ThrottleRule[], random: () => number = Math.random): void {
  rules = next;
  throttled = 0;
  if (rules.length === 0) return;
  beforeFunctionCalls('throttles', (client: SdkClient) => {
    if (withMiddleware.has(client.middlewareStack)) return;
    withMiddleware.add(client.middlewareStack);
    const serviceId = client.config.serviceId ?? 'unknown';
    client.middlewareStack.add(
      // The deserialize step runs once per try, inside the retry middleware (finalizeRequest).
      (next: (args: { input: Marshalled }) => Promise<unknown>, context: { commandName?: string }) => async (args: { input: Marshalled }) => {
        // The client may be shared with the runtime or a test, whose calls are not a function's.
        if (runningFunction() === undefined) return next(args);
        const operation = (context.commandName ?? '').replace(/Command$/, '');
        const rule = rules.find((r) => ruleMatches(r, serviceId, operation, args.input));
        if (rule && random() < (rule.rate ?? 1)) {
          throttled += 1;
          throw throttleError(serviceId);
        }
        return next(args);
      },
      { step: 'deserialize', name: 'localThrottles', priority: 'high' },
    );
  });
}
