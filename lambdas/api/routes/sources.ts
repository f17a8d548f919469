import { notFound } from '../../domain/errors';
import { changeSource, createSource, listSources, removeSource, showSource, type ShownSource } from '../../sources';
import { createSourceBody, domainErrors, exampleSource, ORDERING_POINTER_MESSAGE, presentSource, sourceResponse, SUBJECT_POINTER_MESSAGE, updateSourceBody, verificationErrors } from '../../sources/shapes';
import type { ApiRequest } from '../http';
import { settled } from '../outcomes';
import { publicBaseUrl } from '../public-url';
import { json, jsonBody, list, noContent } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { parseJsonBody, parsePathId } from '../../api-kit/validation';

/** The ingest URL's base: the source's custom domain once it is verified, else the gateway's own URL. */
const present = (request: ApiRequest, { source, ingestHost }: ShownSource) =>
  presentSource(source, ingestHost ? `https://${ingestHost}` : publicBaseUrl(request));

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
        400: ['name is required', 'name must be a string', 'name must be at most 200 characters', ...verificationErrors, ...domainErrors, SUBJECT_POINTER_MESSAGE, ORDERING_POINTER_MESSAGE, 'unknown field: nmae'],
      },
    },
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, createSourceBody);
      const { source } = settled(await createSource(principal.accountId, body, now));
      return { status: 201, data: present(request, source) };
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
      data: (await listSources(principal.accountId)).map((s) => present(request, s)),
    }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/sources/:id',
    auth: 'api_key',
    doc: {
      operationId: 'updateSource',
      summary: 'Change a source',
      description: 'Changes `name`, `verification` (`null` turns the check off), `custom_domain_id` (`null` unties it) or `subject_pointer` (`null`: no subject from then on).',
      tag: 'Sources',
      body: jsonBody(updateSourceBody, { verification: null }),
      responses: { 200: json('The updated source.', sourceResponse, { ...exampleSource, verification: null }) },
      errors: { 400: ['name is required', 'name must be at most 200 characters', ...verificationErrors, ...domainErrors, SUBJECT_POINTER_MESSAGE, ORDERING_POINTER_MESSAGE, 'unknown field: nmae'] },
    },
    handle: async ({ request, params, principal, now }) => {
      const id = parsePathId(params.id);
      const body = parseJsonBody(request, updateSourceBody);
      const { source } = settled(await changeSource(principal.accountId, id, body, now));
      return { status: 200, data: present(request, source) };
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
      const shown = await showSource(principal.accountId, parsePathId(params.id));
      if (!shown) throw notFound();
      return { status: 200, data: present(request, shown) };
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
      settled(await removeSource(principal.accountId, parsePathId(params.id)));
      return { status: 204 };
    },
  }),
];
