import { listDomains, registerDomain, removeDomain, showDomain, verifyDomain } from '../../custom-domains';
import { createDomainBody, customDomainResponse, exampleCustomDomain, presentCustomDomain } from '../../custom-domains/shapes';
import { notFound } from '../../domain/errors';
import { VERIFIED_ELSEWHERE } from '../../domain/domain-ownership';
import { settled } from '../outcomes';
import { json, jsonBody, list, noContent } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { parseJsonBody, parsePathId } from '../../api-kit/validation';

export const customDomainRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/custom-domains',
    auth: 'api_key',
    doc: {
      operationId: 'createCustomDomain',
      summary: 'Register a custom domain',
      description:
        'Publish `verification_record` (TXT) at your DNS provider, then call verify. Only a verified domain is exclusive: other accounts may register the same hostname meanwhile, and the first registration to verify owns it. `domain already registered` when the hostname is verified already (by any account), or this account already registered it.',
      tag: 'Custom domains',
      body: jsonBody(createDomainBody, { domain: 'hooks.acme.com' }),
      responses: { 201: json('The domain, pending verification.', customDomainResponse, exampleCustomDomain) },
      errors: {
        400: [
          'domain is required',
          'domain must be a string',
          'domain must be a valid hostname',
          'domain must be at most 233 characters',
          'domain already registered',
          'unknown field: extra',
        ],
      },
    },
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, createDomainBody);
      const { domain } = settled(await registerDomain(principal.accountId, body.domain, now));
      return { status: 201, data: presentCustomDomain(domain) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/custom-domains',
    auth: 'api_key',
    doc: {
      operationId: 'listCustomDomains',
      summary: 'List custom domains',
      tag: 'Custom domains',
      responses: { 200: list('The account’s domains, newest first.', customDomainResponse, [exampleCustomDomain]) },
    },
    handle: async ({ principal }) => ({
      status: 200,
      data: (await listDomains(principal.accountId)).map(presentCustomDomain),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/custom-domains/:id',
    auth: 'api_key',
    doc: {
      operationId: 'getCustomDomain',
      summary: 'Show a custom domain',
      tag: 'Custom domains',
      responses: { 200: json('The domain.', customDomainResponse, exampleCustomDomain) },
    },
    handle: async ({ params, principal }) => {
      const domain = await showDomain(principal.accountId, parsePathId(params.id));
      if (!domain) throw notFound();
      return { status: 200, data: presentCustomDomain(domain) };
    },
  }),
  defineRoute({
    /**
     * Checks the TXT record now. Found: verified (TLS set-up starts). Not found: still a 200, the
     * domain unchanged and `verification_error` saying why, so clients can simply poll this endpoint.
     */
    method: 'POST',
    path: '/v1/custom-domains/:id/verify',
    auth: 'api_key',
    doc: {
      operationId: 'verifyCustomDomain',
      summary: 'Check the domain’s TXT record now',
      description:
        `Found: \`status: verified\` and TLS set-up starts. When another registration of the hostname has verified first (with or without this one's record published): \`status: failed\` with \`verification_error: "${VERIFIED_ELSEWHERE}"\`. Not found is not an error: \`200\` with the domain unchanged and \`verification_error\` saying why, so clients can call it again until it succeeds. A verified or failed domain is answered as it is. No body.`,
      tag: 'Custom domains',
      responses: {
        200: json('The domain after the check.', customDomainResponse, {
          ...exampleCustomDomain,
          verification_error: 'no TXT record found at _hookgate-challenge.hooks.acme.com',
        }),
      },
    },
    handle: async ({ params, principal, now }) => {
      const { domain } = settled(await verifyDomain(principal.accountId, parsePathId(params.id), now));
      return { status: 200, data: presentCustomDomain(domain) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/custom-domains/:id',
    auth: 'api_key',
    doc: {
      operationId: 'deleteCustomDomain',
      summary: 'Delete a custom domain',
      description:
        'The domain is gone from the API at once. A domain that never got a certificate frees its hostname at once (always the case when running locally); one that did keeps it until the domain provisioner has deleted its API Gateway custom domain, API mapping and ACM certificate (its next run, within 5 minutes), after which any account may register the hostname again.',
      tag: 'Custom domains',
      responses: { 204: noContent('Deleted.') },
    },
    handle: async ({ params, principal, now }) => {
      settled(await removeDomain(principal.accountId, parsePathId(params.id), now));
      return { status: 204 };
    },
  }),
];
