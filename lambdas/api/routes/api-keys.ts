import * as z from 'zod';
import { notFound } from '../../domain/errors';
import { apiKeyPrefix, hashApiKey, newApiKey, newId } from '../../shared/secrets';
import { insertApiKey, listApiKeys, revokeApiKey } from '../../store/api-keys';
import type { ApiKeyRecord } from '../../store/records';
import { exampleApiKeyListed, exampleNewApiKey } from '../examples';
import { presentApiKey, presentNewApiKey } from '../presenters';
import { json, jsonBody, list, noContent } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { apiKeyResponse, named, newApiKeyResponse } from '../schemas';
import { parseJsonBody, parsePathId, textField } from '../validation';

const createApiKeyBody = named('CreateApiKeyRequest', z.strictObject({ name: textField('name').optional() }));

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
      const key = newApiKey();
      const record: ApiKeyRecord = {
        id: newId(),
        account_id: principal.accountId,
        name: body.name ?? null,
        prefix: apiKeyPrefix(key),
        key_hash: hashApiKey(key),
        created_at: now.toISOString(),
      };
      await insertApiKey(record);
      return { status: 201, data: presentNewApiKey(record, key) };
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
      const revoked = await revokeApiKey(principal.accountId, parsePathId(params.id));
      if (!revoked) throw notFound();
      return { status: 204 };
    },
  }),
];
