import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { appendLogKeys, logger, withLogKeys } from './log';
import { flushMetrics } from './metrics';

/**
 * What every Hookgate function runs under, as middy middlewares: the Lambda context on every log
 * line (request id, cold start, trace id; never the event: `logEvent` is off whatever the
 * environment says), and the invocation's metrics written when it ends, whether it returned or threw.
 */
export function observability<TEvent, TResult>(): middy.MiddlewareObj<TEvent, TResult, Error, Context>[] {
  const flush = () => flushMetrics();
  return [injectLambdaContext(logger(), { logEvent: false }), { after: flush, onError: flush }];
}

/**
 * HTTP API invocations: API Gateway's request id on every line, the id its access log records, so a
 * log line and an access-log entry can be matched. The path is left out (ingest paths carry a secret).
 */
export function httpRequestLogKeys<TResult>(): middy.MiddlewareObj<APIGatewayProxyEventV2, TResult, Error, Context> {
  return {
    before: (request) => {
      appendLogKeys({ api_request_id: request.event.requestContext?.requestId });
    },
  };
}

/**
 * A Lambda entry point whose invocations each get log keys of their own (so `appendLogKeys`
 * inside one never shows in another running at the same time, as they do in the local runtime).
 */
export function invocationScoped<TArgs extends unknown[], TResult>(
  handler: (...args: TArgs) => Promise<TResult>,
): (...args: TArgs) => Promise<TResult> {
  return (...args) => withLogKeys({}, () => handler(...args));
}

/** Stands for "no Lambda context given" (a script or test calling the handler directly) inside middy. */
const NO_CONTEXT = Object.freeze({}) as Context;

/**
 * A scheduled or directly invoked function's handler, observed: same signature, so callers that pass
 * no event or no context (tests, scripts) still can, and the handler still sees the context it was
 * given or none.
 */
export function observedHandler<TArgs extends [event?: unknown, context?: unknown], TResult>(
  handler: (...args: TArgs) => Promise<TResult>,
): (...args: TArgs) => Promise<TResult> {
  const wrapped = middy<unknown, TResult, Error, Context>()
    .use(observability<unknown, TResult>())
    .handler((event, context) => handler(...([event, context === NO_CONTEXT ? undefined : context] as unknown as TArgs)));
  return invocationScoped((...args: TArgs) => wrapped(args[0], (args[1] as Context | undefined) ?? NO_CONTEXT));
}
