import middy from '@middy/core';
import type { APIGatewayProxyResultV2, APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';
import * as z from 'zod/mini';
import { KEEP_ALIVE_MESSAGE, SESSION_ID_PATTERN } from '../domain/listen';
import { connectListener, disconnectListener, keyOf, storeReply } from '../listen/connections';
import { appendLogKeys, log } from '../shared/log';
import { invocationScoped, observability } from '../shared/observability';

/**
 * The WebSocket API of `hookgate listen`: `$connect` (the CLI, with its API key and session id),
 * `$disconnect`, and `response` (the CLI's answer to a try, `{"action": "response", …}`). Whatever
 * else a client sends goes to `$default` and is ignored, the CLI's keep-alive included. In AWS an API
 * Gateway WebSocket API invokes it; locally the gateway's WebSocket server does, with the same events
 * (local/listen-server.ts).
 */

/** $connect carries the upgrade request's headers; the type of the event leaves them out. */
type ListenEvent = APIGatewayProxyWebsocketEventV2 & { headers?: Record<string, string | undefined> };
type Result = APIGatewayProxyResultV2;

const BEARER = /^bearer\s+(\S+)\s*$/i;

const replyMessage = z.object({
  action: z.literal('response'),
  request_id: z.string().check(z.minLength(1), z.maxLength(64)),
  status: z.optional(z.int()),
  headers: z.optional(z.record(z.string(), z.string())),
  body: z.optional(z.string()),
  error: z.optional(z.string()),
});

const answer = (statusCode: number): Result => ({ statusCode });

/**
 * The key in `Authorization: Bearer hk_…`, never in the URL: a query string lands in access logs, and
 * every client of this API (the CLI) can set headers.
 */
function bearerOf(event: ListenEvent): string | undefined {
  const header = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'authorization')?.[1];
  return BEARER.exec(header ?? '')?.[1];
}

async function connect(event: ListenEvent): Promise<Result> {
  const key = await keyOf(bearerOf(event));
  if (!key) return answer(401);
  appendLogKeys({ account_id: key.accountId });
  const session = event.queryStringParameters?.session ?? '';
  if (!SESSION_ID_PATTERN.test(session)) return answer(400);
  const connected = await connectListener(key, session, event.requestContext.connectionId, new Date());
  return answer(connected.kind === 'connected' ? 200 : 404);
}

async function respond(event: ListenEvent): Promise<Result> {
  let reply: z.infer<typeof replyMessage>;
  try {
    reply = replyMessage.parse(JSON.parse(event.body ?? ''));
  } catch {
    return answer(400);
  }
  const stored = await storeReply(event.requestContext.connectionId, reply, new Date());
  return answer(stored.kind === 'stored' ? 200 : 404);
}

async function route(event: ListenEvent): Promise<Result> {
  switch (event.requestContext.routeKey) {
    case '$connect':
      return connect(event);
    case '$disconnect':
      await disconnectListener(event.requestContext.connectionId);
      return answer(200);
    case 'response':
      return respond(event);
    default:
      // Its work is done once API Gateway has seen it; a log line every few minutes per CLI says nothing.
      if (event.body === KEEP_ALIVE_MESSAGE) return answer(200);
      log.info('listen message on no route ignored', { route: event.requestContext.routeKey });
      return answer(200);
  }
}

export const handler = invocationScoped(
  middy<ListenEvent, Result>()
    .use(observability())
    .handler((event) => route(event)),
);
