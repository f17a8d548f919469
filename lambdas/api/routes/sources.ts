import * as z from 'zod';
import { invalid, notFound } from '../../domain/errors';
import type { ApiRequest } from '../http';
import { newId, newPathToken } from '../../shared/secrets';
import { findCustomDomain, listCustomDomains } from '../../store/custom-domains';
import { DELETING, type CustomDomainRecord, type SourceRecord } from '../../store/records';
import { findSource, insertSource, listSources, updateSource } from '../../store/sources';
import { exampleSource } from '../examples';
import { presentSource } from '../presenters';
import { publicBaseUrl } from '../public-url';
import { json, jsonBody, list, noContent } from '../route-doc';
import { removeSource } from '../../pipeline/remove-source';
import { defineRoute, type Route } from '../router';
import { named, sourceResponse, type SourceResponse } from '../schemas';
import { parseJsonBody, parsePathId, textField, uuidField } from '../validation';
import { verificationInput } from '../verification-input';

const customDomainId = uuidField('custom_domain_id')
  .nullable()
  .optional()
  .describe('One of the account’s custom domains that has not failed; the ingest URL uses it once verified. null unties it.');

const createSourceBody = named(
  'CreateSourceRequest',
  z.strictObject({
    name: textField('name'),
    verification: verificationInput.optional(),
    custom_domain_id: customDomainId,
  }),
);

const updateSourceBody = named(
  'UpdateSourceRequest',
  z.strictObject({
    name: textField('name').optional(),
    verification: verificationInput.optional(),
    custom_domain_id: customDomainId,
  }),
);

const verificationErrors = [
  'verification.provider must be one of: stripe, github, shopify, slack, standard_webhooks, hmac_sha256',
  'verification.secret is required',
  'verification.secret must be whsec_ followed by base64 of 24 to 64 bytes',
  'verification.header is required',
  'verification.header must be a valid HTTP header name',
  'verification.encoding must be one of: hex, base64',
  'unknown field: verification.header',
];
const domainErrors = ['invalid custom_domain_id', 'custom_domain_id does not match a custom domain of this account'];

/** A source may be tied to any of the account's domains that has not failed nor been deleted; it serves once verified. */
async function assertLinkableDomain(accountId: string, domainId: string): Promise<void> {
  const domain = await findCustomDomain(accountId, domainId);
  if (!domain || domain.status === 'failed' || domain.status === DELETING) {
    throw invalid('custom_domain_id does not match a custom domain of this account');
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

async function present(request: ApiRequest, accountId: string, sources: SourceRecord[]): Promise<SourceResponse[]> {
  const domains = await domainsFor(accountId, sources);
  return sources.map((s) => presentSource(s, ingestBase(request, s, domains)));
}

async function presentOne(request: ApiRequest, accountId: string, source: SourceRecord): Promise<SourceResponse> {
  return presentSource(source, ingestBase(request, source, await domainsFor(accountId, [source])));
}

export const sourceRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/sources',
    auth: 'api_key',
    doc: {
      operationId: 'createSource',
      summary: 'Create a source',
      description:
        'Third parties post webhooks to its `ingest_url`. With `verification`, ingest checks the provider’s signature over the raw body and answers `401 invalid signature` when it does not match.',
      tag: 'Sources',
      body: jsonBody(createSourceBody, { name: 'stripe', verification: { provider: 'stripe', secret: 'whsec_from_the_stripe_dashboard' } }),
      responses: { 201: json('The source, with its ingest URL.', sourceResponse, exampleSource) },
      errors: {
        400: ['name is required', 'name must be a string', 'name must be at most 200 characters', ...verificationErrors, ...domainErrors, 'unknown field: nmae'],
      },
    },
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
      return { status: 201, data: await presentOne(request, principal.accountId, record) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/sources',
    auth: 'api_key',
    doc: {
      operationId: 'listSources',
      summary: 'List sources',
      tag: 'Sources',
      responses: { 200: list('The account’s sources, newest first.', sourceResponse, [exampleSource]) },
    },
    handle: async ({ request, principal }) => ({
      status: 200,
      data: await present(request, principal.accountId, await listSources(principal.accountId)),
    }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/sources/:id',
    auth: 'api_key',
    doc: {
      operationId: 'updateSource',
      summary: 'Change a source',
      description: 'Changes `name`, `verification` (`null` turns the check off) or `custom_domain_id` (`null` unties it).',
      tag: 'Sources',
      body: jsonBody(updateSourceBody, { verification: null }),
      responses: { 200: json('The updated source.', sourceResponse, { ...exampleSource, verification: null }) },
      errors: { 400: ['name is required', 'name must be at most 200 characters', ...verificationErrors, ...domainErrors, 'unknown field: nmae'] },
    },
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
      return { status: 200, data: await presentOne(request, principal.accountId, updated) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/sources/:id',
    auth: 'api_key',
    doc: {
      operationId: 'getSource',
      summary: 'Show a source',
      tag: 'Sources',
      responses: { 200: json('The source.', sourceResponse, exampleSource) },
    },
    handle: async ({ request, params, principal }) => {
      const source = await findSource(principal.accountId, parsePathId(params.id));
      if (!source) throw notFound();
      return { status: 200, data: await presentOne(request, principal.accountId, source) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/sources/:id',
    auth: 'api_key',
    doc: {
      operationId: 'deleteSource',
      summary: 'Delete a source',
      description: 'Its ingest URL answers 401 from the next request on, and the routes that name it go. Its events stay (listed, replayable).',
      tag: 'Sources',
      responses: { 204: noContent('Deleted.') },
    },
    handle: async ({ params, principal }) => {
      const outcome = await removeSource(principal.accountId, parsePathId(params.id));
      if (outcome.kind === 'not_found') throw notFound();
      return { status: 204 };
    },
  }),
];
