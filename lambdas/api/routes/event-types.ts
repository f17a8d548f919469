import { notFound } from '../../domain/errors';
import { isEventTypeName } from '../../domain/portal';
import { deleteEventType, findEventType, listEventTypes, putEventType, type EventTypeRecord } from '../../store/event-types';
import { createEventTypeBody, EVENT_TYPE_MESSAGE, eventTypeResponse, RESERVED_EVENT_TYPE_NAME_MESSAGE, type EventTypeResponse } from '../portal-schemas';
import { json, jsonBody, list, noContent } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { parseJsonBody } from '../validation';

export const presentEventType = (t: EventTypeRecord): EventTypeResponse => ({
  name: t.name,
  description: t.description,
  schema: t.schema_json === null ? null : (JSON.parse(t.schema_json) as Record<string, unknown>),
  created_at: t.created_at,
  updated_at: t.updated_at,
});

const exampleEventType = {
  name: 'invoice.paid',
  description: 'An invoice was paid in full.',
  schema: { type: 'object', properties: { invoice: { type: 'string' }, total: { type: 'integer' } }, required: ['invoice'] },
  created_at: '2026-06-01T12:00:00.000Z',
  updated_at: '2026-06-01T12:00:00.000Z',
} satisfies EventTypeResponse;

export const eventTypeRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/event-types',
    auth: 'api_key',
    doc: {
      operationId: 'createEventType',
      summary: 'Add an event type to the catalog (or replace its description and schema)',
      description: 'Your customers see the catalog in the portal and choose from it which types each endpoint receives. 201 when new, 200 when it replaced an existing type.',
      tag: 'Event types',
      body: jsonBody(createEventTypeBody, { name: exampleEventType.name, description: exampleEventType.description, schema: exampleEventType.schema }),
      responses: {
        201: json('The new type.', eventTypeResponse, exampleEventType),
        200: json('The type, replaced.', eventTypeResponse, exampleEventType),
      },
      errors: { 400: ['name is required', EVENT_TYPE_MESSAGE, RESERVED_EVENT_TYPE_NAME_MESSAGE, 'schema must be at most 65536 bytes of JSON', 'unknown field: title'] },
    },
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, createEventTypeBody);
      const at = now.toISOString();
      const record: EventTypeRecord = {
        account_id: principal.accountId,
        name: body.name,
        description: body.description ?? null,
        schema_json: body.schema ? JSON.stringify(body.schema) : null,
        created_at: at,
        updated_at: at,
      };
      const created = await putEventType(record);
      const stored = created ? record : ((await findEventType(principal.accountId, body.name)) ?? record);
      return { status: created ? 201 : 200, data: presentEventType(stored) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/event-types',
    auth: 'api_key',
    doc: {
      operationId: 'listEventTypes',
      summary: 'List the event type catalog',
      tag: 'Event types',
      responses: { 200: list('Every type, by name.', eventTypeResponse, [exampleEventType]) },
    },
    handle: async ({ principal }) => ({ status: 200, data: (await listEventTypes(principal.accountId)).map(presentEventType) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/event-types/:name',
    auth: 'api_key',
    doc: {
      operationId: 'deleteEventType',
      summary: 'Remove an event type from the catalog',
      description: 'Endpoints already subscribed keep receiving it (their routes stay); customers can no longer choose it.',
      tag: 'Event types',
      responses: { 204: noContent('Removed.') },
      errors: { 404: ['Not found'] },
    },
    handle: async ({ params, principal }) => {
      const name = params.name ?? '';
      if (!isEventTypeName(name) || !(await findEventType(principal.accountId, name))) throw notFound();
      await deleteEventType(principal.accountId, name);
      return { status: 204 };
    },
  }),
];
