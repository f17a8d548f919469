import type { RouteMatch } from './apigw-event';

type RouteTarget = 'api' | 'ingest';

export interface ResolvedRoute extends RouteMatch {
  target: RouteTarget;
}

export const INGEST_ROUTE_KEY = 'POST /ingest/{token}';
export const API_ROUTE_KEY = 'ANY /{proxy+}';

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The two routes of the HTTP API, with API Gateway's precedence: the specific ingest route wins,
 * a path parameter spans one non-empty segment, and `{proxy+}` needs at least one segment, so `/`
 * matches nothing.
 */
export function resolveRoute(method: string, rawPath: string): ResolvedRoute | undefined {
  const ingest = /^\/ingest\/([^/]+)$/.exec(rawPath);
  if (method.toUpperCase() === 'POST' && ingest?.[1]) {
    return { target: 'ingest', routeKey: INGEST_ROUTE_KEY, pathParameters: { token: decodeSegment(ingest[1]) } };
  }
  const proxy = rawPath.replace(/^\/+/, '');
  if (proxy === '') return undefined;
  return { target: 'api', routeKey: API_ROUTE_KEY, pathParameters: { proxy: decodeSegment(proxy) } };
}
