import { createApiKey, listApiKeys, revokeApiKey } from '../../accounts';
import { apiKeyResponse, createApiKeyBody, exampleApiKeyListed, exampleNewApiKey, newApiKeyResponse, presentApiKey, presentNewApiKey } from '../../accounts/shapes';
import { settled } from '../outcomes';
import { json, jsonBody, list, noContent } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { parseJsonBody, parsePathId } from '../../api-kit/validation';

export const apiKeyRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/api-keys',
    auth: 'api_key',
    doc: {
      operationId: 'createApiKey',
      summary: 'Create an API key',
      description: 'The key is in this answer only; lists show its prefix.',
      tag: 'API keys',
      body: jsonBody(createApiKeyBody, { name: 'ci' }),
      responses: { 201: json('The new key, with the key itself.', newApiKeyResponse, { ...exampleNewApiKey, name: 'ci' }) },
      errors: { 400: ['name must be a string', 'name must be at most 200 characters', 'unknown field: nmae'] },
    },
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, createApiKeyBody);
      const { apiKey, key } = await createApiKey(principal.accountId, body, now);
      return { status: 201, data: presentNewApiKey(apiKey, key) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/api-keys',
    auth: 'api_key',
    doc: {
      operationId: 'listApiKeys',
      summary: 'List API keys',
      tag: 'API keys',
      responses: { 200: list('The account’s keys: never the key or its hash.', apiKeyResponse, [exampleApiKeyListed]) },
    },
    handle: async ({ principal }) => ({ status: 200, data: (await listApiKeys(principal.accountId)).map(presentApiKey) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/api-keys/:id',
    auth: 'api_key',
    doc: {
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key',
      description: 'The key fails with 401 on the very next request. A key may revoke itself.',
      tag: 'API keys',
      responses: { 204: noContent('Revoked.') },
    },
    handle: async ({ params, principal }) => {
      settled(await revokeApiKey(principal.accountId, parsePathId(params.id)));
      return { status: 204 };
    },
  }),
];
