import { existsSync } from 'node:fs';
import { sqsClient } from '../lambdas/adapters/aws-clients';
import { documentClient } from '../lambdas/store/client';
import { skipSigning } from './aws-clients';
import type {
  APIGatewayProxyWebsocketEventV2,
  APIGatewayProxyEventV2,
  APIGatewayProxyResultV2,
  Context,
  ScheduledEvent,
  SQSBatchResponse,
  SQSEvent,
} from 'aws-lambda';

export type ApiHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResultV2<unknown>>;
export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;
export type ScheduledHandler = (event: ScheduledEvent, context: Context) => Promise<unknown>;
/** The WebSocket API's events, $connect's with the upgrade request's headers. */
export type ListenHandler = (
  event: APIGatewayProxyWebsocketEventV2 | (Omit<APIGatewayProxyWebsocketEventV2, 'requestContext'> & { requestContext: APIGatewayProxyWebsocketEventV2['requestContext']; headers?: Record<string, string | undefined> }),
  context: Context,
) => Promise<APIGatewayProxyResultV2<unknown>>;

export interface GatewayHandlers {
  api?: ApiHandler;
  ingest?: ApiHandler;
  deliver?: SqsHandler;
  exportWorker?: ScheduledHandler;
  sweeper?: ScheduledHandler;
  listen?: ListenHandler;
}

/** Where each Lambda entry lives; files that do not exist yet are simply not wired. */
const ENTRIES: Record<keyof GatewayHandlers, string> = {
  api: '../lambdas/handlers/api.ts',
  ingest: '../lambdas/handlers/ingest.ts',
  deliver: '../lambdas/handlers/deliver.ts',
  exportWorker: '../lambdas/handlers/export.ts',
  sweeper: '../lambdas/handlers/sweeper.ts',
  listen: '../lambdas/handlers/listen.ts',
};

async function importEntry(relative: string): Promise<unknown> {
  const url = new URL(relative, import.meta.url);
  if (!existsSync(url)) return undefined;
  const mod = (await import(url.href)) as { handler?: unknown; default?: unknown };
  const fn = mod.handler ?? mod.default;
  if (typeof fn !== 'function') throw new Error(`${relative} exports no handler function`);
  return fn;
}

/**
 * The real handlers, imported only now so that they read the environment the gateway has just
 * set. Must run after process.env is final: handlers parse their config once per process (or thread).
 */
export async function importHandlers(names = Object.keys(ENTRIES) as (keyof GatewayHandlers)[]): Promise<GatewayHandlers> {
  const handlers: GatewayHandlers = {};
  for (const name of names) {
    const fn = await importEntry(ENTRIES[name]);
    if (fn) Object.assign(handlers, { [name]: fn });
  }
  return handlers;
}

/** The handlers' own DynamoDB and SQS clients in this thread (see skipSigning); once process.env is final. */
export function skipHandlerSigning(): void {
  skipSigning(documentClient());
  skipSigning(sqsClient());
}
