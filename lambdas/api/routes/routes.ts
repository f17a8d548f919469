import { changeRoute, createRoute, findRoute, listRoutes, removeRoute } from '../../routes';
import { createRouteBody, exampleRoute, FILTER_ERRORS, patternErrors, presentRoute, routeResponse, updateRouteBody } from '../../routes/shapes';
import { notFound } from '../../domain/errors';
import { ids } from '../../api-kit/examples';
import { settled } from '../outcomes';
import { json, jsonBody, list, noContent } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { parseJsonBody, parsePathId } from '../../api-kit/validation';

export const routeRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/routes',
    auth: 'api_key',
    doc: {
      operationId: 'createRoute',
      summary: 'Create a route',
      description:
        'A route matches an event when its `source_id` is null or the event’s source, and its `event_type_pattern` is null, equal to the event type, or ends in `*` and the type starts with the text before it. Inactive routes match nothing.',
      tag: 'Routes',
      body: jsonBody(createRouteBody, { destination_id: ids.destination, source_id: ids.source, event_type_pattern: 'payment.*' }),
      responses: { 201: json('The route.', routeResponse, exampleRoute) },
      errors: {
        400: [
          'destination_id is required',
          'invalid destination_id',
          'invalid source_id',
          'destination_id does not match a destination of this account',
          'source_id does not match a source of this account',
          ...patternErrors,
          ...FILTER_ERRORS,
          'unknown field: nmae',
        ],
      },
    },
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, createRouteBody);
      const { route } = settled(await createRoute(principal.accountId, body, now));
      return { status: 201, data: presentRoute(route) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/routes',
    auth: 'api_key',
    doc: {
      operationId: 'listRoutes',
      summary: 'List routes',
      tag: 'Routes',
      responses: { 200: list('The account’s routes, newest first.', routeResponse, [exampleRoute]) },
    },
    handle: async ({ principal }) => ({ status: 200, data: (await listRoutes(principal.accountId)).map(presentRoute) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/routes/:id',
    auth: 'api_key',
    doc: {
      operationId: 'getRoute',
      summary: 'Show a route',
      tag: 'Routes',
      responses: { 200: json('The route.', routeResponse, exampleRoute) },
    },
    handle: async ({ params, principal }) => {
      const route = await findRoute(principal.accountId, parsePathId(params.id));
      if (!route) throw notFound();
      return { status: 200, data: presentRoute(route) };
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/routes/:id',
    auth: 'api_key',
    doc: {
      operationId: 'updateRoute',
      summary: 'Change a route',
      tag: 'Routes',
      body: jsonBody(updateRouteBody, { active: false }),
      responses: { 200: json('The updated route.', routeResponse, { ...exampleRoute, active: false }) },
      errors: { 400: [...patternErrors, ...FILTER_ERRORS, 'active must be a boolean', 'unknown field: destination_id'] },
    },
    handle: async ({ request, params, principal, now }) => {
      const body = parseJsonBody(request, updateRouteBody);
      const { route } = settled(await changeRoute(principal.accountId, parsePathId(params.id), body, now));
      return { status: 200, data: presentRoute(route) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/routes/:id',
    auth: 'api_key',
    doc: {
      operationId: 'deleteRoute',
      summary: 'Delete a route',
      tag: 'Routes',
      responses: { 204: noContent('Deleted.') },
    },
    handle: async ({ params, principal }) => {
      settled(await removeRoute(principal.accountId, parsePathId(params.id)));
      return { status: 204 };
    },
  }),
];
