import { z } from 'zod';
import { badRequest, notFound } from '../../domain/errors';
import { isValidPattern } from '../../domain/routing';
import { newId } from '../../shared/secrets';
import { findDestination } from '../../store/destinations';
import type { RouteRecord } from '../../store/records';
import { deleteRoute, findRoute, insertRoute, listRoutes, updateRoute } from '../../store/routes';
import { findSource } from '../../store/sources';
import { presentRoute } from '../presenters';
import type { Route } from '../router';
import { parseJsonBody, parsePathId, textField, uuidField } from '../validation';

const eventTypePattern = textField('event_type_pattern').refine(isValidPattern, {
  error: () => 'event_type_pattern may contain * only as its last character',
});

const createRouteBody = z.strictObject({
  destination_id: uuidField('destination_id'),
  source_id: uuidField('source_id').nullable().optional(),
  event_type_pattern: eventTypePattern.nullable().optional(),
  active: z.boolean().optional(),
});

const updateRouteBody = z.strictObject({
  active: z.boolean().optional(),
  event_type_pattern: eventTypePattern.nullable().optional(),
});

export const routeRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1/routes',
    auth: 'api_key',
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, createRouteBody);
      const accountId = principal.accountId;
      // References are checked inside the caller's account: another account's ids do not exist here.
      if (!(await findDestination(accountId, body.destination_id))) {
        throw badRequest('destination_id does not match a destination of this account');
      }
      if (body.source_id && !(await findSource(accountId, body.source_id))) {
        throw badRequest('source_id does not match a source of this account');
      }
      const at = now.toISOString();
      const record: RouteRecord = {
        id: newId(),
        account_id: accountId,
        source_id: body.source_id ?? null,
        destination_id: body.destination_id,
        event_type_pattern: body.event_type_pattern ?? null,
        active: body.active ?? true,
        created_at: at,
        updated_at: at,
      };
      await insertRoute(record);
      return { status: 201, data: presentRoute(record) };
    },
  },
  {
    method: 'GET',
    path: '/v1/routes',
    auth: 'api_key',
    handle: async ({ principal }) => ({ status: 200, data: (await listRoutes(principal.accountId)).map(presentRoute) }),
  },
  {
    method: 'GET',
    path: '/v1/routes/:id',
    auth: 'api_key',
    handle: async ({ params, principal }) => {
      const route = await findRoute(principal.accountId, parsePathId(params.id));
      if (!route) throw notFound();
      return { status: 200, data: presentRoute(route) };
    },
  },
  {
    method: 'PATCH',
    path: '/v1/routes/:id',
    auth: 'api_key',
    handle: async ({ request, params, principal, now }) => {
      const id = parsePathId(params.id);
      const body = parseJsonBody(request, updateRouteBody);
      const changes: Partial<RouteRecord> = { updated_at: now.toISOString() };
      if (body.active !== undefined) changes.active = body.active;
      if (body.event_type_pattern !== undefined) changes.event_type_pattern = body.event_type_pattern;
      const updated = await updateRoute(principal.accountId, id, changes);
      if (!updated) throw notFound();
      return { status: 200, data: presentRoute(updated) };
    },
  },
  {
    method: 'DELETE',
    path: '/v1/routes/:id',
    auth: 'api_key',
    handle: async ({ params, principal }) => {
      const id = parsePathId(params.id);
      if (!(await findRoute(principal.accountId, id))) throw notFound();
      await deleteRoute(principal.accountId, id);
      return { status: 204 };
    },
  },
];
