import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { Refusal } from '../domain/errors';
import { log } from '../shared/log';
import { jsonResponse, NO_STORE, REFUSAL_STATUS, type ApiResult } from './http';

type Request = middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 | ApiResult, Error, Context>;

const startedAt = new WeakMap<object, number>();
const elapsed = (request: Request) => Math.round(performance.now() - (startedAt.get(request.event) ?? performance.now()));

/**
 * The one place that shapes HTTP responses: `{data}` or `{error}` with `duration_ms`, and every
 * thrown error mapped to a status. Unknown errors become a 500 with a fixed text, logged, never echoed.
 */
export function httpEnvelope(): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  return {
    before: (request) => {
      startedAt.set(request.event, performance.now());
    },
    after: (request) => {
      const result = request.response as unknown as ApiResult;
      request.response = render(result, elapsed(request as Request));
    },
    onError: (request) => {
      const error = request.error;
      const duration_ms = elapsed(request as Request);
      if (error instanceof Refusal) {
        request.response = jsonResponse(REFUSAL_STATUS[error.kind], { error: error.message, duration_ms });
        return;
      }
      // Name, message and stack, with the invocation's keys (the account, once authenticated).
      log.error('unhandled error', { api_request_id: request.event.requestContext?.requestId }, error);
      request.response = jsonResponse(500, { error: 'Internal server error', duration_ms });
    },
  };
}

function render(result: ApiResult, duration_ms: number): APIGatewayProxyStructuredResultV2 {
  if (result.status === 204) return { statusCode: 204, headers: { ...NO_STORE }, body: '' };
  if (result.status === 302 && 'location' in result) {
    return { statusCode: 302, headers: { location: result.location, ...NO_STORE }, body: '' };
  }
  if ('raw' in result) {
    return { statusCode: result.status, headers: { ...result.raw.headers, 'content-type': result.raw.contentType }, body: result.raw.body };
  }
  const { data, extra } = result as { data: unknown; extra?: Record<string, unknown> };
  return jsonResponse(result.status, { data, ...extra, duration_ms });
}
