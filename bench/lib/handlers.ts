import type { Context } from 'aws-lambda';
import type { ApiHandler, ScheduledHandler, SqsHandler } from '../../local/gateway';

type AnyHandler = (event: never, context: Context) => Promise<unknown>;

/**
 * The real handlers, imported on first call: after the gateway has set process.env, as the gateway's
 * own importHandlers does (handlers parse their configuration once per process).
 */
function lazy<H>(load: () => Promise<{ handler: unknown }>): H {
  let loaded: Promise<AnyHandler> | undefined;
  const call = async (event: unknown, context: Context) => {
    loaded ??= load().then((m) => m.handler as AnyHandler);
    return (await loaded)(event as never, context);
  };
  return call as H;
}

export const realHandlers = {
  api: lazy<ApiHandler>(() => import('../../lambdas/handlers/api')),
  ingest: lazy<ApiHandler>(() => import('../../lambdas/handlers/ingest')),
  deliver: lazy<SqsHandler>(() => import('../../lambdas/handlers/deliver')),
  exportWorker: lazy<ScheduledHandler>(() => import('../../lambdas/handlers/export')),
  sweeper: lazy<ScheduledHandler>(() => import('../../lambdas/handlers/sweeper')),
};
