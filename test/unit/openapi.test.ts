import { readFileSync } from 'node:fs';
import { validate, compileErrors } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { generatePythonTypes } from '../../clients/python/codegen/generate-types';
import { tsType } from '../../clients/typescript/codegen/generate-types';
import { buildOpenApiDocument } from '../../lambdas/api/openapi';
import { apiOperations } from '../../lambdas/api/routes';
import { routeGroups } from '../../lambdas/api/routes/groups';
import {
  CLIENT_TYPES_FILE,
  OPENAPI_FILE,
  PYTHON_TYPES_FILE,
  openApiDocument,
  renderClientTypes,
  renderOpenApi,
  renderPythonTypes,
} from '../../scripts/generate-openapi';
import { committedOpenApi, documentedMessages, operationsOf, schemaValidator } from '../fixtures/openapi';

const document = openApiDocument();
const operations = operationsOf(document);
// Compiling every schema strictly (and dereferencing the document) is seconds of CPU: 2.5 s idle, past
// 5 s beside two busy loops, so these two get a timeout sized for a starved machine.
const WHOLE_DOCUMENT = { timeout: 60_000 };
const withoutServers = ({ servers: _servers, ...rest }: { servers?: unknown; [key: string]: unknown }) => rest;

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document (@readme/openapi-parser)', WHOLE_DOCUMENT, async () => {
    expect(document.openapi).toBe('3.1.0');
    // validate() dereferences in place: give it a copy.
    const result = await validate(structuredClone(document) as unknown as Parameters<typeof validate>[0]);
    expect(result.valid ? '' : compileErrors(result)).toBe('');
    expect(result.warnings).toEqual([]);
  });

  it('has schemas that compile as strict JSON Schema 2020-12, and every example matches its schema', WHOLE_DOCUMENT, () => {
    const schemas = schemaValidator(document);
    for (const [name, schema] of Object.entries(document.components.schemas)) {
      expect(() => schemas.compile(schema), name).not.toThrow();
    }
    let checked = 0;
    for (const { path, method, operation } of operations) {
      const request = operation.requestBody?.content['application/json'];
      if (request?.schema) {
        expect(schemas.errors(request.schema, request.example), `${method} ${path} request example`).toBeUndefined();
        checked++;
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        const media = response.content?.['application/json'];
        if (!media?.schema) continue;
        if ('example' in media) {
          expect(schemas.errors(media.schema, media.example), `${method} ${path} ${status} example`).toBeUndefined();
          checked++;
        }
        for (const [key, example] of Object.entries(media.examples ?? {})) {
          expect(schemas.errors(media.schema, example.value), `${method} ${path} ${status} ${key}`).toBeUndefined();
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(300);
  });

  it('really checks values against the schemas (a wrong answer fails)', () => {
    const schemas = schemaValidator(document);
    const created = operations.find((o) => o.operation.operationId === 'createSource')?.operation.responses['201'];
    const schema = created?.content?.['application/json']?.schema;
    if (!schema) throw new Error('createSource has no 201 schema');
    const example = created.content?.['application/json']?.example as { data: Record<string, unknown> };
    expect(schemas.errors(schema, example)).toBeUndefined();
    expect(schemas.errors(schema, { ...example, data: { ...example.data, id: 'not-a-uuid' } })).toMatch(/format/);
    expect(schemas.errors(schema, { ...example, data: { ...example.data, extra: 1 } })).toMatch(/additional/);
    expect(schemas.errors(schema, { data: example.data })).toMatch(/duration_ms/);
  });

  it('is current: docs/openapi.json is what `npm run openapi` generates (servers aside)', () => {
    const committed = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as Record<string, unknown>;
    expect(withoutServers(committed), 'docs/openapi.json is stale: run npm run openapi').toEqual(withoutServers({ ...document }));
    expect(readFileSync(OPENAPI_FILE, 'utf8'), 'docs/openapi.json is stale: run npm run openapi').toBe(renderOpenApi(document));
  });

  it('is current: the client types are what `npm run openapi` generates from docs/openapi.json', () => {
    expect(readFileSync(CLIENT_TYPES_FILE, 'utf8'), 'clients/typescript/src/generated.ts is stale: run npm run openapi').toBe(
      renderClientTypes(readFileSync(OPENAPI_FILE, 'utf8')),
    );
  });

  it('is current: the Python client types are what `npm run openapi` generates from docs/openapi.json', () => {
    expect(readFileSync(PYTHON_TYPES_FILE, 'utf8'), 'clients/python/hookgate/generated.py is stale: run npm run openapi').toBe(
      renderPythonTypes(readFileSync(OPENAPI_FILE, 'utf8')),
    );
  });

  it('documents every route of the router, and nothing the gateway does not serve', async () => {
    const documented = new Set(operations.map((o) => `${o.method} ${o.path}`));
    const served = apiOperations().map((r) => `${r.method} ${r.path.replace(/:([a-z_]+)/g, '{$1}')}`);
    expect([...documented].sort()).toEqual([...served].sort());
    const routed = await Promise.all(routeGroups.map((group) => group.load()));
    expect(routed.flat().length).toBe(served.length - 1); // plus ingest, served by its own function
  });

  it('covers every endpoint of the service specification and the contract', () => {
    const documented = new Set(operations.map((o) => `${o.method} ${o.path}`));
    const specified = [
      'POST /v1/accounts', 'GET /v1/account', 'PATCH /v1/account',
      'POST /v1/api-keys', 'GET /v1/api-keys', 'DELETE /v1/api-keys/{id}',
      'POST /v1/sources', 'GET /v1/sources', 'GET /v1/sources/{id}', 'PATCH /v1/sources/{id}',
      'POST /v1/destinations', 'GET /v1/destinations', 'GET /v1/destinations/{id}', 'PATCH /v1/destinations/{id}',
      'POST /v1/routes', 'GET /v1/routes',
      'POST /ingest/{token}',
      'GET /v1/events', 'GET /v1/events/{id}', 'POST /v1/events/{id}/replay',
      'POST /v1/outbound-events', 'POST /v1/outbound-events/batch', 'GET /v1/outbound-events',
      'GET /v1/outbound-events/{id}', 'POST /v1/outbound-events/{id}/replay',
      'POST /v1/exports', 'GET /v1/exports', 'GET /v1/exports/{id}', 'GET /v1/exports/{id}/download',
      'POST /v1/brand-settings', 'GET /v1/brand-settings',
      'POST /v1/custom-domains', 'GET /v1/custom-domains', 'GET /v1/custom-domains/{id}', 'POST /v1/custom-domains/{id}/verify',
      'GET /healthz', 'GET /readyz', 'GET /openapi.json',
    ];
    expect(specified.filter((e) => !documented.has(e))).toEqual([]);
  });

  it('gives every operation a summary, a tag, a success answer, its errors with exact messages, and examples', () => {
    for (const { path, method, operation } of operations) {
      const label = `${method} ${path}`;
      const statuses = Object.keys(operation.responses);
      expect(statuses.some((s) => /^[23]/.test(s)), label).toBe(true);
      expect(statuses, label).toContain('500');
      for (const status of statuses.filter((s) => /^[45]/.test(s))) {
        expect(documentedMessages(operation.responses[status]).length, `${label} ${status}`).toBeGreaterThan(0);
      }
      const success = statuses.filter((s) => /^2/.test(s) && s !== '204').map((s) => operation.responses[s]?.content?.['application/json']);
      for (const media of success) {
        if (media?.schema && path !== '/openapi.json') expect(media.example, label).toBeDefined();
      }
      if (operation.requestBody?.content['application/json']) {
        expect(documentedMessages(operation.responses['400'])).toEqual(expect.arrayContaining(['invalid JSON body', 'request body must be a JSON object']));
        expect(operation.responses['413'], label).toBeDefined();
      }
      if (path.includes('{id}')) {
        expect(documentedMessages(operation.responses['400']), label).toContain('invalid id');
        expect(documentedMessages(operation.responses['404']), label).toEqual(['Not found']);
      }
    }
  });

  it('uses the {data, duration_ms} envelope, next_cursor on event lists, 204 without a body, 302 with Location', () => {
    const byId = Object.fromEntries(operations.map((o) => [o.operation.operationId, o.operation]));
    const envelope = byId.getAccount?.responses['200']?.content?.['application/json']?.schema;
    expect(envelope).toMatchObject({ required: ['data', 'duration_ms'], additionalProperties: false });
    expect(byId.listEvents?.responses['200']?.content?.['application/json']?.schema).toMatchObject({
      required: ['data', 'next_cursor', 'duration_ms'],
    });
    expect(byId.listOutboundEvents?.responses['200']?.content?.['application/json']?.schema).toMatchObject({
      required: ['data', 'next_cursor', 'duration_ms'],
    });
    expect(byId.revokeApiKey?.responses['204']).toEqual({ description: 'Revoked.' });
    expect(byId.deleteRoute?.responses['204']?.content).toBeUndefined();
    expect(byId.downloadExport?.responses['302']?.headers).toHaveProperty('Location');
    expect(document.components.schemas.Error).toMatchObject({ required: ['error', 'duration_ms'], additionalProperties: false });
    expect(documentedMessages(byId.createRoute?.responses['400'])).toEqual(
      expect.arrayContaining(['destination_id is required', 'invalid destination_id', 'invalid source_id']),
    );
    expect(documentedMessages(byId.publishOutboundEvent?.responses['400'])).toContain('payload is required');
    expect(documentedMessages(byId.getAccount?.responses['401'])).toEqual(['Unauthorized']);
  });

  it('describes Bearer hk_ keys, and leaves account creation, probes, the document, the JWKS and ingest open', () => {
    expect(document.components.securitySchemes).toMatchObject({ bearerAuth: { type: 'http', scheme: 'bearer' } });
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    const open = operations.filter((o) => o.operation.security?.length === 0).map((o) => `${o.method} ${o.path}`);
    expect(open.sort()).toEqual([
      'GET /.well-known/jwks/{account_id}.json',
      'GET /.well-known/jwks/{account_id}/customers/{customer}.json',
      'GET /healthz',
      'GET /openapi.json',
      'GET /portal',
      'GET /portal/app.css',
      'GET /portal/app.js',
      'GET /readyz',
      'POST /ingest/{token}',
      'POST /v1/accounts',
    ]);
  });

  it('gives the portal API the portal session scheme, and nothing else takes it', () => {
    const portal = operations.filter((o) => JSON.stringify(o.operation.security) === JSON.stringify([{ portalSession: [] }]));
    expect(portal.length).toBeGreaterThan(0);
    expect(portal.every((o) => o.path.startsWith('/v1/portal/'))).toBe(true);
    expect(operations.filter((o) => o.path.startsWith('/v1/portal/')).length).toBe(portal.length);
  });

  it('documents ingest: any content type, 202, 400, 401 (Unauthorized / invalid signature), 404 (another account’s custom domain), 413', () => {
    const ingest = operations.find((o) => o.path === '/ingest/{token}')?.operation;
    expect(Object.keys(ingest?.requestBody?.content ?? {})).toEqual(['*/*']);
    expect(Object.keys(ingest?.responses ?? {})).toEqual(['202', '400', '401', '404', '413', '500']);
    expect(documentedMessages(ingest?.responses['401'])).toEqual(['Unauthorized', 'invalid signature']);
    expect(documentedMessages(ingest?.responses['404'])).toEqual(['Not found']);
    expect(ingest?.parameters?.map((p) => p.name)).toEqual(expect.arrayContaining(['token', 'X-Event-Type', 'Idempotency-Key']));
  });

  it('takes request bodies from the schemas the handlers parse with: each example passes the handler’s own schema', () => {
    for (const route of apiOperations()) {
      const body = route.doc.body;
      if (body?.kind !== 'json') continue;
      const result = body.schema.safeParse(body.example);
      expect(result.success, `${route.method} ${route.path}: ${result.error?.message}`).toBe(true);
    }
  });

  it('serves the same document at any base URL, only servers differ', () => {
    const served = buildOpenApiDocument(apiOperations(), { servers: [{ url: 'https://hooks.example.com' }] });
    expect(served.servers).toEqual([{ url: 'https://hooks.example.com' }]);
    expect(withoutServers({ ...served })).toEqual(withoutServers(committedOpenApi() as unknown as Record<string, unknown>));
  });

  it('refuses two operations with one operationId', () => {
    const [first] = apiOperations();
    if (!first) throw new Error('no routes');
    expect(() => buildOpenApiDocument([first, { ...first, path: '/elsewhere' }])).toThrow(/used twice/);
  });
});

describe('the client type generator', () => {
  it('turns the document’s JSON Schema into TypeScript', () => {
    expect(tsType({ type: ['string', 'null'] })).toBe('string | null');
    expect(tsType({ anyOf: [{ $ref: '#/components/schemas/Account' }, { type: 'null' }] })).toBe('Account | null');
    expect(tsType({ type: 'array', items: { type: 'object', properties: { a: { const: 1 } }, required: ['a'] } })).toBe(
      'Array<{\n  a: 1;\n}>',
    );
    expect(tsType({ type: 'object', additionalProperties: { type: 'string' }, propertyNames: { type: 'string' } })).toBe(
      'Record<string, string>',
    );
    expect(tsType({ enum: ['a', "b'c"] })).toBe("'a' | 'b\\'c'");
  });

  it('throws on JSON Schema it does not know, rather than guess a type', () => {
    expect(() => tsType({ allOf: [{ type: 'string' }] })).toThrow(/unsupported schema/);
    expect(() => tsType({ $ref: 'https://elsewhere.example/schema.json' })).toThrow(/unsupported \$ref/);
  });
});

describe('the Python type generator', () => {
  const generate = (schemas: Record<string, Record<string, unknown>>) =>
    generatePythonTypes({ info: { version: '1' }, paths: { '/x': { get: { operationId: 'getX' } } }, components: { schemas } });

  it('turns objects into TypedDicts (nested ones named Parent_Property) and the rest into aliases', () => {
    const out = generate({
      Thing: {
        type: 'object',
        properties: { kind: { enum: ['a', "b'c"] }, inner: { type: 'object', properties: { n: { type: ['integer', 'null'] } }, required: ['n'] } },
        required: ['kind'],
      },
      Status: { anyOf: [{ $ref: '#/components/schemas/Thing' }, { type: 'null' }] },
    });
    expect(out).toContain("class Thing(TypedDict):\n    kind: Literal['a', 'b\\'c']\n    inner: NotRequired[Thing_Inner]\n");
    expect(out).toContain('class Thing_Inner(TypedDict):\n    n: int | None\n');
    expect(out).toContain('Status: TypeAlias = "Thing | None"');
    expect(out).toContain('"getX": ("GET", "/x"),');
  });

  it('throws on JSON Schema it does not know, and on names Python cannot take', () => {
    expect(() => generate({ X: { allOf: [{ type: 'string' }] } })).toThrow(/unsupported schema/);
    expect(() => generate({ X: { type: 'object', properties: { 'a-b': { type: 'string' } } } })).toThrow(/no Python identifier/);
  });
});
