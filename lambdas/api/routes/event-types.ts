import { listEventTypes, putEventType, removeEventType } from '../../event-types';
import { createEventTypeBody, EVENT_TYPE_MESSAGE, eventTypeResponse, exampleEventType, presentEventType, RESERVED_EVENT_TYPE_NAME_MESSAGE } from '../../event-types/shapes';
import { settled } from '../outcomes';
import { json, jsonBody, list, noContent } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { parseJsonBody } from '../../api-kit/validation';

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
      const { kind, eventType } = await putEventType(principal.accountId, body, now);
      return { status: kind === 'created' ? 201 : 200, data: presentEventType(eventType) };
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
      settled(await removeEventType(principal.accountId, params.name ?? ''));
      return { status: 204 };
    },
  }),
];
