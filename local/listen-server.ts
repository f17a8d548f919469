import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { WEBSOCKET_IDLE_TIMEOUT_MS, WEBSOCKET_MAX_CONNECTION_MS } from '../lambdas/domain/listen';
import type { ListenHandler } from './handlers';
import { invokeFunction } from './lambda-context';
import { readBody } from './read-body';

/**
 * The API Gateway WebSocket API of `hookgate listen`, locally, on a port of its own: clients connect
 * at `/listen`, and each connect, message and close invokes the listen handler with the event API
 * Gateway would send (routes `$connect`, `$disconnect`, and by `$request.body.action`: `response`, else
 * `$default`). It closes a connection idle for 10 minutes and any after 2 hours, as API Gateway
 * does, so a CLI that would lose its connection in AWS loses it here too. The same server answers the
 * management API's PostToConnection (`POST /@connections/{id}`), which the deliver function's SDK
 * client calls, so the deliver function runs the code it runs in AWS.
 *
 * `ws` (a devDependency, as the emulators are): Node has a WebSocket client but no server, and `ws`
 * is small, has no dependencies of its own and is the server most Node WebSocket code runs on.
 */

const HOST = '127.0.0.1';
const LISTEN_PATH = '/listen';
/** API Gateway's WebSocket frame and message limit. */
const MAX_MESSAGE_BYTES = 128 * 1024;
/** API Gateway's integration timeout. */
const INVOKE_TIMEOUT_MS = 29_000;

/** How long a connection may stay idle, and stay at all, before the server closes it. */
export interface ListenLimits {
  idleTimeoutMs: number;
  maxConnectionMs: number;
}

const API_GATEWAY_LIMITS: ListenLimits = { idleTimeoutMs: WEBSOCKET_IDLE_TIMEOUT_MS, maxConnectionMs: WEBSOCKET_MAX_CONNECTION_MS };
/** The close code of a server that ends a connection itself (RFC 6455: going away). */
const GOING_AWAY = 1001;

export interface ListenServer {
  /** Where the CLI connects (`ws://…/listen`). */
  url: string;
  /** The management endpoint the deliver function posts to. */
  endpoint: string;
  close(): Promise<void>;
}

const CONNECTIONS_PATH = /^\/@connections\/([^/]+)$/;

function requestContext(routeKey: string, eventType: 'CONNECT' | 'MESSAGE' | 'DISCONNECT', connectionId: string, connectedAt: number) {
  const now = Date.now();
  return {
    routeKey,
    eventType,
    connectionId,
    connectedAt,
    messageId: randomUUID(),
    extendedRequestId: randomUUID(),
    requestId: randomUUID(),
    requestTime: new Date(now).toUTCString(),
    requestTimeEpoch: now,
    messageDirection: 'IN' as const,
    stage: 'local',
    domainName: HOST,
    apiId: 'local',
  };
}

function refuseUpgrade(socket: Duplex, status: number): void {
  socket.end(`HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : status === 404 ? 'Not Found' : 'Refused'}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
}

export async function startListenServer(port: number, handler: () => ListenHandler | undefined, limits: ListenLimits = API_GATEWAY_LIMITS): Promise<ListenServer> {
  const sockets = new Map<string, WebSocket>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });

  const invoke = async (event: Parameters<ListenHandler>[0]): Promise<number> => {
    const listen = handler();
    if (!listen) return 503;
    try {
      const result = await invokeFunction('hookgate-listen', INVOKE_TIMEOUT_MS, (context) => listen(event, context));
      return typeof result === 'object' && result !== null && 'statusCode' in result ? Number(result.statusCode ?? 200) : 200;
    } catch (error) {
      console.error('[hookgate local] listen handler failed:', error);
      return 500;
    }
  };

  const server = createServer((req, res) => {
    managementCall(req, res, sockets).catch((error: unknown) => {
      console.error('[hookgate local] listen management call failed:', error);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // The upgrade's socket comes with no error listener, and $connect runs before ws takes it over: a
    // client that resets the connection meanwhile (a CLI stopped, a key revoked) would throw
    // ECONNRESET out of the runtime. It is only destroyed, as API Gateway drops such a connection.
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', `http://${HOST}`);
    if (url.pathname !== LISTEN_PATH) return refuseUpgrade(socket, 404);
    const connectionId = randomBytes(12).toString('base64url');
    const connectedAt = Date.now();
    const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : value]));
    const event = {
      requestContext: requestContext('$connect', 'CONNECT', connectionId, connectedAt),
      headers,
      queryStringParameters: Object.fromEntries(url.searchParams),
      isBase64Encoded: false,
    };
    void invoke(event).then((status) => {
      if (status !== 200) return refuseUpgrade(socket, status);
      wss.handleUpgrade(req, socket, head, (ws) => {
        sockets.set(connectionId, ws);
        const goAway = () => ws.close(GOING_AWAY, 'Going away');
        const lifetime = setTimeout(goAway, limits.maxConnectionMs);
        // Only the client's data messages reset it: API Gateway does not count a client's ping frames (ws
        // reports those apart), and whether its own posts count is not documented, so nothing relies on them.
        const idle = setTimeout(goAway, limits.idleTimeoutMs);
        ws.on('message', (data: RawData) => {
          idle.refresh();
          const body = Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8');
          void invoke({ requestContext: requestContext(routeOf(body), 'MESSAGE', connectionId, connectedAt), body, isBase64Encoded: false });
        });
        ws.on('close', () => {
          clearTimeout(lifetime);
          clearTimeout(idle);
          sockets.delete(connectionId);
          void invoke({ requestContext: requestContext('$disconnect', 'DISCONNECT', connectionId, connectedAt), isBase64Encoded: false });
        });
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `ws://${HOST}:${actual}${LISTEN_PATH}`,
    endpoint: `http://${HOST}:${actual}`,
    close: async () => {
      for (const ws of sockets.values()) ws.terminate();
      await new Promise<void>((resolve) => {
        wss.close(() => server.close(() => resolve()));
        server.closeAllConnections();
      });
    },
  };
}

/** API Gateway's route selection, `$request.body.action`. */
function routeOf(body: string): string {
  try {
    const action = (JSON.parse(body) as { action?: unknown }).action;
    return action === 'response' ? 'response' : '$default';
  } catch {
    return '$default';
  }
}

/** PostToConnection and DeleteConnection; a connection that is not open is 410 GoneException, as in AWS. */
async function managementCall(req: IncomingMessage, res: ServerResponse, sockets: Map<string, WebSocket>): Promise<void> {
  const match = CONNECTIONS_PATH.exec((req.url ?? '/').split('?')[0] ?? '/');
  if (!match?.[1]) return void res.writeHead(404).end();
  const ws = sockets.get(decodeURIComponent(match[1]));
  const read = await readBody(req, MAX_MESSAGE_BYTES);
  if (!read.ok) return void res.writeHead(413, { 'content-type': 'application/json', 'x-amzn-errortype': 'PayloadTooLargeException' }).end('{"message":"Message too long"}');
  if (!ws || ws.readyState !== ws.OPEN) {
    return void res.writeHead(410, { 'content-type': 'application/json', 'x-amzn-errortype': 'GoneException' }).end('{"message":"Gone"}');
  }
  if (req.method === 'DELETE') ws.close();
  else if (req.method === 'POST') await new Promise<void>((resolve, reject) => ws.send(read.body.toString('utf8'), (error) => (error ? reject(error) : resolve())));
  else return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
}
