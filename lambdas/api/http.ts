import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { tooLarge, type RefusalKind } from '../domain/errors';
import {
  judgeBody,
  jsonStringBytes,
  MAX_BINARY_BODY_BYTES,
  MAX_BODY_BYTES,
  MAX_ENCODED_BODY_BYTES,
  responseFits,
} from '../domain/payload-limits';

export { MAX_BODY_BYTES };

/** The one mapping from a refusal to the status a client sees. */
export const REFUSAL_STATUS = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  too_large: 413,
} as const satisfies Record<RefusalKind, number>;

/** What a route handler sees of an HTTP API request: lowercased headers, decoded body bytes. */
export interface ApiRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  body: Buffer;
  requestId: string;
  sourceIp: string;
  /** The hostname the request was addressed to, as API Gateway saw it (a custom domain's, or the API's own). */
  host: string;
}

/** What a route handler returns; the envelope middleware adds `duration_ms` and serializes. */
export type ApiResult =
  | { status: number; data: unknown; /** top-level members beside `data`, such as `next_cursor` */ extra?: Record<string, unknown> }
  | { status: 204 }
  | { status: 302; location: string }
  /** A body served as it is, outside the envelope (the OpenAPI document). */
  | { status: number; raw: RawBody };

export interface RawBody {
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}

export function toApiRequest(event: APIGatewayProxyEventV2): ApiRequest {
  const body = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  refuseOversizedBody(event, body);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) {
    if (value !== undefined) query[name] = value;
  }
  return {
    method: event.requestContext.http.method.toUpperCase(),
    path: event.rawPath,
    headers,
    query,
    body,
    requestId: event.requestContext.requestId,
    sourceIp: event.requestContext.http.sourceIp,
    host: event.requestContext.domainName,
  };
}

export const ENCODED_TOO_LARGE =
  `request body too large once encoded for Lambda (base64 for binary bodies, so at most ${MAX_BINARY_BODY_BYTES} bytes; ` +
  `JSON escapes for text): at most ${MAX_ENCODED_BODY_BYTES} encoded bytes`;

/**
 * Refuses a body over the limits before anything is stored. Lambda itself refuses events over 6 MB;
 * this makes the limit the same whatever the headers weigh, and says which kind of limit was hit.
 */
function refuseOversizedBody(event: APIGatewayProxyEventV2, body: Buffer): void {
  const encoded = event.body ? (event.isBase64Encoded ? event.body.length + 2 : jsonStringBytes(event.body)) : 0;
  const verdict = judgeBody(body.length, encoded);
  if (verdict.ok) return;
  throw verdict.reason === 'raw_size' ? tooLarge() : tooLarge(ENCODED_TOO_LARGE);
}

/** Whether `data` can be answered inside Lambda's response limit (the envelope escapes it once more). */
export const fitsLambdaResponse = (data: unknown): boolean => responseFits(jsonStringBytes(JSON.stringify({ data, duration_ms: 0 })));

/**
 * On every enveloped answer, errors and 204s included: answers carry tenant data, signing secrets and
 * portal payloads, which neither a browser's cache nor a shared proxy may keep.
 */
export const NO_STORE = { 'cache-control': 'no-store' } as const;

export function jsonResponse(status: number, payload: Record<string, unknown>): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...NO_STORE },
    body: JSON.stringify(payload),
  };
}
