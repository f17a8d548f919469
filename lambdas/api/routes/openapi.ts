import { ingestOperation } from '../ingest-doc';
import { buildOpenApiDocument, type DocumentedOperation, type OpenApiDocument } from '../openapi';
import { publicBaseUrl } from '../public-url';
import { defineRoute, type Route, type RouteGroup } from '../router';

/** Every operation of the HTTP API, documented: every group's routes, in order, then the ingest function's. */
export async function documentedOperations(groups: readonly RouteGroup[]): Promise<DocumentedOperation[]> {
  const routes = await Promise.all(groups.map((group) => group.load()));
  return [...routes.flat(), ingestOperation];
}

/**
 * `GET /openapi.json`: the OpenAPI document of every operation, built from the routes on first use
 * and kept for the life of the function, with `servers` set to this gateway's public URL. Not
 * enveloped, so OpenAPI tools read it as it is. The groups are loaded then, not with this route,
 * which is one of them.
 */
export function openApiRoutes(groups: readonly RouteGroup[]): Route[] {
  let built: OpenApiDocument | undefined;
  return [
    defineRoute({
      method: 'GET',
      path: '/openapi.json',
      auth: 'none',
      doc: {
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI 3.1 document',
        description: 'Open. Not wrapped in the `{data}` envelope; `servers` names the gateway that answered.',
        tag: 'Meta',
        responses: { 200: { kind: 'raw_json', description: 'The OpenAPI 3.1 document.' } },
      },
      handle: async ({ request }) => {
        built ??= buildOpenApiDocument(await documentedOperations(groups));
        const document: OpenApiDocument = { ...built, servers: [{ url: publicBaseUrl(request) }] };
        return { status: 200, raw: { contentType: 'application/json; charset=utf-8', body: JSON.stringify(document) } };
      },
    }),
  ];
}
