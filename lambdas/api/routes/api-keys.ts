import { z } from 'zod';
import { notFound } from '../../domain/errors';
import { apiKeyPrefix, hashApiKey, newApiKey, newId } from '../../shared/secrets';
import { insertApiKey, listApiKeys, revokeApiKey } from '../../store/api-keys';
import type { ApiKeyRecord } from '../../store/records';
import { presentApiKey, presentNewApiKey } from '../presenters';
import type { Route } from '../router';
import { parseJsonBody, parsePathId, textField } from '../validation';

const createApiKeyBody = z.strictObject({ name: textField('name').optional() });

export const apiKeyRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1/api-keys',
    auth: 'api_key',
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
  },
  {
    method: 'GET',
    path: '/v1/api-keys',
    auth: 'api_key',
    handle: async ({ principal }) => ({ status: 200, data: (await listApiKeys(principal.accountId)).map(presentApiKey) }),
  },
  {
    method: 'DELETE',
    path: '/v1/api-keys/:id',
    auth: 'api_key',
    handle: async ({ params, principal }) => {
      const revoked = await revokeApiKey(principal.accountId, parsePathId(params.id));
      if (!revoked) throw notFound();
      return { status: 204 };
    },
  },
];
