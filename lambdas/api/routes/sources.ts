import { z } from 'zod';
import { badRequest, notFound } from '../../domain/errors';
import type { ApiRequest } from '../../shared/http';
import { newId, newPathToken } from '../../shared/secrets';
import { findCustomDomain, listCustomDomains } from '../../store/custom-domains';
import type { CustomDomainRecord, SourceRecord } from '../../store/records';
import { findSource, insertSource, listSources, updateSource } from '../../store/sources';
import { presentSource } from '../presenters';
import { publicBaseUrl } from '../public-url';
import type { Route } from '../router';
import { parseJsonBody, parsePathId, textField, uuidField } from '../validation';
import { verificationInput } from '../verification-input';

const createSourceBody = z.strictObject({
  name: textField('name'),
  verification: verificationInput.optional(),
  custom_domain_id: uuidField('custom_domain_id').nullable().optional(),
});

const updateSourceBody = z.strictObject({
  name: textField('name').optional(),
  verification: verificationInput.optional(),
  custom_domain_id: uuidField('custom_domain_id').nullable().optional(),
});

/** A source may be tied to any of the account's domains that has not failed; it serves once verified. */
async function assertLinkableDomain(accountId: string, domainId: string): Promise<void> {
  const domain = await findCustomDomain(accountId, domainId);
  if (!domain || domain.status === 'failed') {
    throw badRequest('custom_domain_id does not match a custom domain of this account');
  }
}

/** The ingest URL's base: the source's custom domain once it is verified, else the gateway's own URL. */
function ingestBase(request: ApiRequest, source: SourceRecord, domains: Map<string, CustomDomainRecord>): string {
  const domain = source.custom_domain_id ? domains.get(source.custom_domain_id) : undefined;
  return domain?.status === 'verified' ? `https://${domain.domain}` : publicBaseUrl(request);
}

async function domainsFor(accountId: string, sources: SourceRecord[]): Promise<Map<string, CustomDomainRecord>> {
  const linked = sources.filter((s) => s.custom_domain_id !== null);
  if (linked.length === 0) return new Map();
  if (linked.length === 1 && linked[0]?.custom_domain_id) {
    const domain = await findCustomDomain(accountId, linked[0].custom_domain_id);
    return new Map(domain ? [[domain.id, domain]] : []);
  }
  return new Map((await listCustomDomains(accountId)).map((d) => [d.id, d]));
}

async function present(request: ApiRequest, accountId: string, sources: SourceRecord[]) {
  const domains = await domainsFor(accountId, sources);
  return sources.map((s) => presentSource(s, ingestBase(request, s, domains)));
}

export const sourceRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1/sources',
    auth: 'api_key',
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, createSourceBody);
      if (body.custom_domain_id) await assertLinkableDomain(principal.accountId, body.custom_domain_id);
      const at = now.toISOString();
      const record: SourceRecord = {
        id: newId(),
        account_id: principal.accountId,
        name: body.name,
        path_token: newPathToken(),
        verification: body.verification ?? null,
        custom_domain_id: body.custom_domain_id ?? null,
        created_at: at,
        updated_at: at,
      };
      await insertSource(record);
      return { status: 201, data: (await present(request, principal.accountId, [record]))[0] };
    },
  },
  {
    method: 'GET',
    path: '/v1/sources',
    auth: 'api_key',
    handle: async ({ request, principal }) => ({
      status: 200,
      data: await present(request, principal.accountId, await listSources(principal.accountId)),
    }),
  },
  {
    method: 'PATCH',
    path: '/v1/sources/:id',
    auth: 'api_key',
    handle: async ({ request, params, principal, now }) => {
      const id = parsePathId(params.id);
      const body = parseJsonBody(request, updateSourceBody);
      const current = await findSource(principal.accountId, id);
      if (!current) throw notFound();
      if (body.custom_domain_id) await assertLinkableDomain(principal.accountId, body.custom_domain_id);
      const changes: Parameters<typeof updateSource>[1] = { updated_at: now.toISOString() };
      if (body.name !== undefined) changes.name = body.name;
      if (body.verification !== undefined) changes.verification = body.verification;
      if (body.custom_domain_id !== undefined) changes.custom_domain_id = body.custom_domain_id;
      const updated = await updateSource(current, changes);
      if (!updated) throw notFound();
      return { status: 200, data: (await present(request, principal.accountId, [updated]))[0] };
    },
  },
  {
    method: 'GET',
    path: '/v1/sources/:id',
    auth: 'api_key',
    handle: async ({ request, params, principal }) => {
      const source = await findSource(principal.accountId, parsePathId(params.id));
      if (!source) throw notFound();
      return { status: 200, data: (await present(request, principal.accountId, [source]))[0] };
    },
  },
];
