import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LOCAL_ACCOUNT_ID } from './aws-clients';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyResultV2,
  APIGatewayProxyStructuredResultV2,
} from 'aws-lambda';

/** What the conversion needs from an http.IncomingMessage; plain objects do in unit tests. */
export type RequestLike = Pick<IncomingMessage, 'method' | 'url' | 'rawHeaders' | 'httpVersion'> & {
  socket: { remoteAddress?: string | undefined; localPort?: number | undefined };
};

export interface RouteMatch {
  /** e.g. `POST /ingest/{token}` or `ANY /{proxy+}`. */
  routeKey: string;
  pathParameters?: Record<string, string>;
}

const LOCAL_API_ID = 'local';

const TEXTUAL_TYPES = new Set(['application/json', 'application/xml', 'application/x-www-form-urlencoded']);

/** API Gateway hands textual bodies over as strings and base64-encodes everything else. */
export function isTextualContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return mediaType.startsWith('text/') || mediaType.endsWith('+json') || TEXTUAL_TYPES.has(mediaType);
}

/** Lowercased names, repeated headers joined with commas (as API Gateway does), cookies apart. */
function collectHeaders(rawHeaders: string[]): { headers: Record<string, string>; cookies: string[] } {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] ?? '').toLowerCase();
    const value = rawHeaders[i + 1] ?? '';
    if (name === 'cookie') {
      cookies.push(...value.split(';').map((c) => c.trim()).filter((c) => c.length > 0));
      continue;
    }
    const previous = headers[name];
    headers[name] = previous === undefined ? value : `${previous},${value}`;
  }
  return { headers, cookies };
}

function decode(component: string): string {
  try {
    return decodeURIComponent(component.replace(/\+/g, ' '));
  } catch {
    return component;
  }
}

function parseQuery(rawQueryString: string): Record<string, string> | undefined {
  if (rawQueryString === '') return undefined;
  const params: Record<string, string> = {};
  for (const pair of rawQueryString.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decode(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : decode(pair.slice(eq + 1));
    const previous = params[name];
    params[name] = previous === undefined ? value : `${previous},${value}`;
  }
  return params;
}

function encodeBody(body: Buffer, contentType: string | undefined): { body?: string; isBase64Encoded: boolean } {
  if (body.length === 0) return { isBase64Encoded: false };
  // A "textual" body that is not valid UTF-8 would be mangled as a string; keep it byte-exact.
  if (isTextualContentType(contentType) && isUtf8(body)) {
    return { body: body.toString('utf8'), isBase64Encoded: false };
  }
  return { body: body.toString('base64'), isBase64Encoded: true };
}

export function toApiGatewayEvent(
  req: RequestLike,
  body: Buffer,
  route: RouteMatch,
  now: Date = new Date(),
): APIGatewayProxyEventV2 {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const rawPath = queryAt === -1 ? url : url.slice(0, queryAt);
  const rawQueryString = queryAt === -1 ? '' : url.slice(queryAt + 1);
  const { headers, cookies } = collectHeaders(req.rawHeaders);
  const sourceIp = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  headers['x-forwarded-for'] ??= sourceIp;
  headers['x-forwarded-proto'] ??= 'http';
  if (req.socket.localPort !== undefined) headers['x-forwarded-port'] ??= String(req.socket.localPort);
  const domainName = headers.host ?? 'localhost';
  const method = (req.method ?? 'GET').toUpperCase();

  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: route.routeKey,
    rawPath,
    rawQueryString,
    headers,
    requestContext: {
      accountId: LOCAL_ACCOUNT_ID,
      apiId: LOCAL_API_ID,
      domainName,
      domainPrefix: domainName.split('.')[0] ?? domainName,
      http: {
        method,
        path: rawPath,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: route.routeKey,
      stage: '$default',
      time: formatRequestTime(now),
      timeEpoch: now.getTime(),
    },
    ...encodeBody(body, headers['content-type']),
  };
  if (cookies.length > 0) event.cookies = cookies;
  const queryStringParameters = parseQuery(rawQueryString);
  if (queryStringParameters) event.queryStringParameters = queryStringParameters;
  if (route.pathParameters) event.pathParameters = route.pathParameters;
  return event;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** API Gateway's own format: `21/Nov/2025:13:22:01 +0000`. */
function formatRequestTime(now: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return (
    `${pad(now.getUTCDate())}/${MONTHS[now.getUTCMonth()]}/${now.getUTCFullYear()}:` +
    `${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}:${pad(now.getUTCSeconds())} +0000`
  );
}

/** The structured result plus the legacy field some handlers still set. */
type ResultWithMultiValue = APIGatewayProxyStructuredResultV2 & {
  multiValueHeaders?: Record<string, (boolean | number | string)[]>;
};

export interface HttpResponseParts {
  statusCode: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

function isStructured(result: unknown): result is ResultWithMultiValue {
  return typeof result === 'object' && result !== null && 'statusCode' in result;
}

/**
 * A result without `statusCode` is, for API Gateway, a JSON body answered with 200
 * (payload format 2.0); a structured one is taken field by field.
 */
export function fromApiGatewayResult(result: APIGatewayProxyResultV2<unknown>): HttpResponseParts {
  if (!isStructured(result)) {
    const body = typeof result === 'string' ? result : JSON.stringify(result ?? null);
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(body, 'utf8') };
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    headers[name.toLowerCase()] = values.map(String);
  }
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    headers[name.toLowerCase()] = String(value);
  }
  if (result.cookies && result.cookies.length > 0) headers['set-cookie'] = [...result.cookies];
  const raw = result.body ?? '';
  const body = result.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
  return { statusCode: result.statusCode ?? 200, headers, body };
}

export function writeApiGatewayResult(res: ServerResponse, result: APIGatewayProxyResultV2<unknown>): void {
  const { statusCode, headers, body } = fromApiGatewayResult(result);
  res.statusCode = statusCode;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (statusCode === 204 || statusCode === 304) {
    res.removeHeader('content-length');
    res.end();
    return;
  }
  res.setHeader('content-length', body.length);
  res.end(body);
}
