import { z } from 'zod';
import { badRequest, notFound } from '../../domain/errors';
import { newId, newPathToken } from '../../shared/secrets';
import type { SourceRecord } from '../../store/records';
import { findSource, insertSource, listSources } from '../../store/sources';
import { presentSource } from '../presenters';
import { publicBaseUrl } from '../public-url';
import type { Route } from '../router';
import { parseJsonBody, parsePathId, textField, uuidField } from '../validation';

const createSourceBody = z.strictObject({
  name: textField('name'),
  custom_domain_id: uuidField('custom_domain_id').nullable().optional(),
});

export const sourceRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1/sources',
    auth: 'api_key',
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, createSourceBody);
      // Custom domains arrive with their own endpoints; until one exists no id can match.
      if (body.custom_domain_id) throw badRequest('custom_domain_id does not match a custom domain of this account');
      const at = now.toISOString();
      const record: SourceRecord = {
        id: newId(),
        account_id: principal.accountId,
        name: body.name,
        path_token: newPathToken(),
        custom_domain_id: null,
        created_at: at,
        updated_at: at,
      };
      await insertSource(record);
      return { status: 201, data: presentSource(record, publicBaseUrl(request)) };
    },
  },
  {
    method: 'GET',
    path: '/v1/sources',
    auth: 'api_key',
    handle: async ({ request, principal }) => {
      const base = publicBaseUrl(request);
      return { status: 200, data: (await listSources(principal.accountId)).map((s) => presentSource(s, base)) };
    },
  },
  {
    method: 'GET',
    path: '/v1/sources/:id',
    auth: 'api_key',
    handle: async ({ request, params, principal }) => {
      const source = await findSource(principal.accountId, parsePathId(params.id));
      if (!source) throw notFound();
      return { status: 200, data: presentSource(source, publicBaseUrl(request)) };
    },
  },
];
