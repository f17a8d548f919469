import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { tooLarge, type RefusalKind } from '../domain/errors';

export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/** The one mapping from a refusal to the status a client sees. */
export const REFUSAL_STATUS = {
  invalid: 400,
  unauthorized: 401,
  not_found: 404,
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
}

/** What a route handler returns; the envelope middleware adds `duration_ms` and serializes. */
export type ApiResult =
  | { status: number; data: unknown; /** top-level members beside `data`, such as `next_cursor` */ extra?: Record<string, unknown> }
  | { status: 204 }
  | { status: 302; location: string }
  /** A body served as it is, outside the envelope (the OpenAPI document). */
  | { status: number; raw: { contentType: string; body: string } };

export function toApiRequest(event: APIGatewayProxyEventV2): ApiRequest {
  const body = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  if (body.length > MAX_BODY_BYTES) throw tooLarge();
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
  };
}

export function jsonResponse(status: number, payload: Record<string, unknown>): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(payload),
  };
}
