import * as z from 'zod';
import { invalid, notFound } from '../../domain/errors';
import { isValidPattern } from '../../domain/routing';
import { newId } from '../../shared/secrets';
import { findDestination } from '../../store/destinations';
import type { RouteRecord } from '../../store/records';
import { deleteRoute, findRoute, insertRoute, listRoutes, updateRoute } from '../../store/routes';
import { findSource } from '../../store/sources';
import { exampleRoute, ids } from '../examples';
import { presentRoute } from '../presenters';
import { json, jsonBody, list, noContent } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { FILTER_ERRORS, routeFilterInput } from '../route-filter';
import { named, routeResponse } from '../schemas';
import { parseJsonBody, parsePathId, textField, uuidField } from '../validation';

const eventTypePattern = textField('event_type_pattern')
  .refine(isValidPattern, { error: () => 'event_type_pattern may contain * only as its last character' })
  .nullable()
  .optional()
  .describe('An exact type, or text ending in `*` (`payment.*`); null or absent: every type.');

const createRouteBody = named(
  'CreateRouteRequest',
  z.strictObject({
    destination_id: uuidField('destination_id'),
    source_id: uuidField('source_id').nullable().optional().describe('null or absent: every source, and outbound events.'),
    event_type_pattern: eventTypePattern,
    active: z.boolean().optional().describe('Default true.'),
    filter: routeFilterInput,
  }),
);

const updateRouteBody = named(
  'UpdateRouteRequest',
  z.strictObject({
    active: z.boolean().optional(),
    event_type_pattern: eventTypePattern,
    filter: routeFilterInput,
  }),
);

const patternErrors = ['event_type_pattern may contain * only as its last character', 'event_type_pattern must be at most 200 characters'];

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
      const accountId = principal.accountId;
      // References are checked inside the caller's account: another account's ids do not exist here.
      if (!(await findDestination(accountId, body.destination_id))) {
        throw invalid('destination_id does not match a destination of this account');
      }
      if (body.source_id && !(await findSource(accountId, body.source_id))) {
        throw invalid('source_id does not match a source of this account');
      }
      const at = now.toISOString();
      const record: RouteRecord = {
        id: newId(),
        account_id: accountId,
        source_id: body.source_id ?? null,
        destination_id: body.destination_id,
        event_type_pattern: body.event_type_pattern ?? null,
        active: body.active ?? true,
        filter: body.filter ?? null,
        created_at: at,
        updated_at: at,
      };
      await insertRoute(record);
      return { status: 201, data: presentRoute(record) };
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
      const id = parsePathId(params.id);
      const body = parseJsonBody(request, updateRouteBody);
      const changes: Partial<RouteRecord> = { updated_at: now.toISOString() };
      if (body.active !== undefined) changes.active = body.active;
      if (body.event_type_pattern !== undefined) changes.event_type_pattern = body.event_type_pattern;
      if (body.filter !== undefined) changes.filter = body.filter;
      const updated = await updateRoute(principal.accountId, id, changes);
      if (!updated) throw notFound();
      return { status: 200, data: presentRoute(updated) };
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
      const id = parsePathId(params.id);
      if (!(await findRoute(principal.accountId, id))) throw notFound();
      await deleteRoute(principal.accountId, id);
      return { status: 204 };
    },
  }),
];
