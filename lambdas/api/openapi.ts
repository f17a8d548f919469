import { isDeepStrictEqual } from 'node:util';
import * as z from 'zod';
import { SESSION_ID_PATTERN } from '../domain/listen';
import { MAX_BINARY_BODY_BYTES, MAX_ENCODED_BODY_BYTES } from '../domain/payload-limits';
import { ENCODED_TOO_LARGE } from './http';
import { TAGS, type HeaderDoc, type JsonBodyDoc, type RawBodyDoc, type ResponseDoc, type RouteDoc } from './route-doc';
import { durationMs, errorResponse } from '../api-kit/schemas';

/**
 * The OpenAPI 3.1 document, generated from the routes themselves: each route's `doc` names the zod
 * schemas its handler parses with and its presenters are typed by, and this turns them into JSON
 * Schema 2020-12 (OpenAPI 3.1's dialect) with `z.toJSONSchema`. Served at `GET /openapi.json` and
 * committed as `docs/openapi.json` (`npm run openapi`); a test keeps the two identical.
 */

const OPENAPI_VERSION = '3.1.0';
const API_VERSION = '1.0.0';

type JsonObject = { [key: string]: unknown };

/** A route of the API function, or an operation served elsewhere (ingest), with its documentation. */
export interface DocumentedOperation {
  method: string;
  path: string;
  auth: 'none' | 'api_key' | 'path_token' | 'portal_session';
  doc: RouteDoc;
}

export interface ServerObject {
  url: string;
  description?: string;
}

export interface OpenApiDocument {
  openapi: string;
  info: JsonObject;
  servers: ServerObject[];
  security: JsonObject[];
  tags: JsonObject[];
  paths: { [path: string]: { [method: string]: JsonObject } };
  components: { schemas: { [name: string]: JsonObject }; securitySchemes: JsonObject };
}

/** The servers of the committed document; the served one names the gateway's own public URL. */
const DEFAULT_SERVERS: ServerObject[] = [
  { url: 'http://127.0.0.1:3000', description: 'The local gateway (`npm start`); in AWS, the service stack’s `ApiUrl` output.' },
];

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** Formats whose pattern zod spells out as well; the format says it, shorter. */
const FORMATS_WITHOUT_PATTERN = new Set(['uuid', 'date-time', 'email', 'uri']);

/** Drops what only adds noise: zod's safe-integer bounds and the patterns behind well-known formats. */
function tidy({ jsonSchema }: { jsonSchema: JsonObject }): void {
  if (jsonSchema.minimum === -MAX_SAFE) delete jsonSchema.minimum;
  if (jsonSchema.maximum === MAX_SAFE) delete jsonSchema.maximum;
  if (typeof jsonSchema.format === 'string' && FORMATS_WITHOUT_PATTERN.has(jsonSchema.format)) delete jsonSchema.pattern;
}

const relink = <T>(value: T): T => JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/')) as T;

/** zod → JSON Schema 2020-12; schemas named with `named()` become `#/components/schemas/<id>` references. */
class SchemaConverter {
  readonly components: { [name: string]: JsonObject } = {};

  convert(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
    const raw = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'throw',
      override: (ctx) => tidy(ctx as unknown as { jsonSchema: JsonObject }),
    }) as JsonObject;
    const { $schema: _dialect, $defs, ...rest } = raw;
    for (const [id, definition] of Object.entries(($defs ?? {}) as { [id: string]: JsonObject })) {
      const component = relink(definition);
      const existing = this.components[id];
      if (existing && !isDeepStrictEqual(existing, component)) {
        throw new Error(`schema ${id} renders differently in two places (input and output?): name them apart`);
      }
      this.components[id] = component;
    }
    return relink(rest);
  }

  sorted(): { [name: string]: JsonObject } {
    return Object.fromEntries(Object.entries(this.components).sort(([a], [b]) => a.localeCompare(b)));
  }
}

const pathParams = (path: string) => path.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1).split('.')[0] ?? '');
const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

const PATH_PARAMS: { [name: string]: JsonObject } = {
  id: { description: 'The resource’s id (a UUID).', schema: { type: 'string', format: 'uuid' } },
  token: {
    description: 'The source’s `path_token`: it authenticates the request and names the source.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{32,128}$' },
  },
  session_id: { description: 'The `hookgate listen` session’s id, as the CLI chose it.', schema: { type: 'string', pattern: SESSION_ID_PATTERN.source } },
  account_id: { description: 'The account’s id (a UUID).', schema: { type: 'string', format: 'uuid' } },
  customer: { description: 'The account’s own id for one of its customers, URL-encoded.', schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:@+-]{0,127}$' } },
  name: { description: 'The event type’s name.', schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,199}$' } },
};

function pathParameter(name: string): JsonObject {
  const known = PATH_PARAMS[name];
  if (!known) throw new Error(`path parameter :${name} has no documentation`);
  return { name, in: 'path', required: true, ...known };
}

function queryParameters(query: z.ZodObject, schemas: SchemaConverter): JsonObject[] {
  return Object.entries(query.shape).map(([name, field]) => {
    const { description, ...schema } = schemas.convert(field as z.ZodType, 'input');
    const required = !(field as z.ZodType).safeParse(undefined).success;
    return { name, in: 'query', required, ...(description ? { description } : {}), schema };
  });
}

const headerParameter = (h: HeaderDoc): JsonObject => ({
  name: h.name,
  in: 'header',
  required: false,
  description: h.description,
  schema: h.maxLength === undefined ? { type: 'string' } : { type: 'string', maxLength: h.maxLength },
});

function requestBody(body: JsonBodyDoc | RawBodyDoc, schemas: SchemaConverter): JsonObject {
  if (body.kind === 'raw') {
    return { required: false, description: body.description, content: { '*/*': { schema: {}, example: body.example } } };
  }
  return {
    // An empty body counts as `{}`, so a body whose fields are all optional may be left out.
    required: !body.schema.safeParse({}).success,
    content: { 'application/json': { schema: schemas.convert(body.schema, 'input'), example: body.example } },
  };
}

const EXAMPLE_DURATION_MS = 4;

function successResponse(response: ResponseDoc, schemas: SchemaConverter): JsonObject {
  switch (response.kind) {
    case 'json': {
      const envelope = z.strictObject({
        data: response.data,
        ...(response.page ? { next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last.') } : {}),
        duration_ms: durationMs,
      });
      const example = {
        data: response.example,
        ...(response.page ? { next_cursor: null } : {}),
        duration_ms: EXAMPLE_DURATION_MS,
      };
      return {
        description: response.description,
        content: { 'application/json': { schema: schemas.convert(envelope, 'output'), example } },
      };
    }
    case 'no_content':
      return { description: response.description };
    case 'redirect':
      return {
        description: response.description,
        headers: {
          Location: { description: 'Where the file is.', schema: { type: 'string', format: 'uri' }, example: response.example },
          'Cache-Control': { schema: { type: 'string', const: 'no-store' } },
        },
      };
    case 'raw_json':
      return {
        description: response.description,
        ...(response.headers && {
          headers: Object.fromEntries(
            Object.entries(response.headers).map(([name, { description, value }]) => [name, { description, schema: { type: 'string', const: value } }]),
          ),
        }),
        content: {
          'application/json': response.data
            ? { schema: schemas.convert(response.data, 'output'), example: response.example }
            : { schema: { type: 'object', description: 'An OpenAPI 3.1 document.' } },
        },
      };
    case 'static':
      return { description: response.description, content: { [response.contentType]: { schema: { type: 'string' } } } };
  }
}

const ERROR_DESCRIPTIONS: { [status: number]: string } = {
  400: 'Invalid request; the message names the field.',
  401: 'Missing, malformed, revoked or unknown API key (the same text for all).',
  403: 'This deployment does not allow the operation.',
  404: 'No such resource in your account (another account’s id answers the same), or a request on another account’s verified custom domain.',
  413: `The body is over 5 MB (5,242,880 bytes), or over ${MAX_ENCODED_BODY_BYTES} bytes once encoded for Lambda (base64 for a binary body: at most ${MAX_BINARY_BODY_BYTES} bytes; JSON escapes for text). Larger encodings are refused by AWS before Hookgate runs, also with 413.`,
  500: 'Internal error: logged, never echoed.',
};

const slug = (message: string) =>
  message
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);

function errorMessages(op: DocumentedOperation): { [status: number]: string[] } {
  const { doc } = op;
  const hasId = pathParams(op.path).includes('id');
  const jsonBody = doc.body?.kind === 'json';
  const all: { [status: number]: string[] } = {
    400: [
      ...(hasId ? ['invalid id'] : []),
      ...(jsonBody ? ['invalid JSON body', 'request body must be a JSON object'] : []),
      ...(doc.errors?.[400] ?? []),
    ],
    401: [...(op.auth === 'api_key' || op.auth === 'portal_session' ? ['Unauthorized'] : []), ...(doc.errors?.[401] ?? [])],
    403: [...(doc.errors?.[403] ?? [])],
    // Whatever acts for an account is refused on another account's custom domain.
    404: [...(hasId || op.auth !== 'none' ? ['Not found'] : []), ...(doc.errors?.[404] ?? [])],
    410: [...(doc.errors?.[410] ?? [])],
    413: [...(doc.body ? ['request body too large', ENCODED_TOO_LARGE] : []), ...(doc.errors?.[413] ?? [])],
    500: ['Internal server error'],
  };
  return Object.fromEntries(Object.entries(all).filter(([, messages]) => messages.length > 0).map(([s, m]) => [s, [...new Set(m)]]));
}

function errorResponseObject(status: number, messages: string[], errorSchema: JsonObject, op: DocumentedOperation): JsonObject {
  const examples: JsonObject = {};
  for (const message of messages) {
    let key = slug(message) || 'error';
    for (let n = 2; key in examples; n++) key = `${slug(message)}-${n}`;
    examples[key] = { summary: message, value: { error: message, duration_ms: 1 } };
  }
  const description =
    status === 401 && op.auth === 'path_token'
      ? 'Unknown or malformed path token (`Unauthorized`), or a failed provider signature check (`invalid signature`).'
      : (ERROR_DESCRIPTIONS[status] ?? 'Error.');
  return { description, content: { 'application/json': { schema: errorSchema, examples } } };
}

function operationObject(op: DocumentedOperation, schemas: SchemaConverter): JsonObject {
  const { doc } = op;
  const parameters = [
    ...pathParams(op.path).map(pathParameter),
    ...(doc.query ? queryParameters(doc.query, schemas) : []),
    ...(doc.headers ?? []).map(headerParameter),
  ];
  const responses: JsonObject = {};
  for (const [status, response] of Object.entries(doc.responses)) responses[status] = successResponse(response, schemas);
  const errorSchema = schemas.convert(errorResponse, 'output');
  for (const [status, messages] of Object.entries(errorMessages(op))) {
    responses[status] = errorResponseObject(Number(status), messages, errorSchema, op);
  }
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.tag],
    ...(op.auth === 'api_key' ? {} : { security: op.auth === 'portal_session' ? [{ portalSession: [] }] : [] }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(doc.body ? { requestBody: requestBody(doc.body, schemas) } : {}),
    responses,
  };
}

const DESCRIPTION = `Hookgate's management API, ingest endpoint and probes.

- Requests are JSON. Unknown fields are refused (\`400 unknown field: <name>\`); a body that is not JSON is \`400 invalid JSON body\`.
- Every JSON answer is \`{"data": …, "duration_ms": <int>}\` or \`{"error": "<message>", "duration_ms": <int>}\`; \`204\` has no body.
- Every enveloped answer, errors and \`204\` included, carries \`Cache-Control: no-store\`.
- Management paths (\`/v1\`) need \`Authorization: Bearer hk_…\`; \`POST /v1/accounts\`, the probes and this document are open; \`POST /ingest/{token}\` is authenticated by its path token.
- Ids are UUIDs (version 7), timestamps ISO 8601 in UTC, lists newest first. Bodies over 5 MB are \`413\`, and so are bodies over ${MAX_ENCODED_BODY_BYTES} bytes as Lambda carries them: base64 for binary bodies (so at most ${MAX_BINARY_BODY_BYTES} bytes), JSON-escaped for text (a publish payload is escaped twice: once in your JSON, once in the event).
- An event detail whose answer would pass Lambda's 6 MB response limit has \`body: null\` and a pre-signed \`body_url\` (5 minutes, served as an \`application/octet-stream\` attachment) instead.
- Deliveries carry \`Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">\` keyed with the destination's signing secret.

The prose reference is docs/api.md.`;

export function buildOpenApiDocument(
  operations: readonly DocumentedOperation[],
  options: { servers?: ServerObject[] } = {},
): OpenApiDocument {
  const schemas = new SchemaConverter();
  const paths: OpenApiDocument['paths'] = {};
  const operationIds = new Set<string>();
  for (const op of operations) {
    if (operationIds.has(op.doc.operationId)) throw new Error(`operationId ${op.doc.operationId} is used twice`);
    operationIds.add(op.doc.operationId);
    const item = (paths[openApiPath(op.path)] ??= {});
    item[op.method.toLowerCase()] = operationObject(op, schemas);
  }
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Hookgate API',
      version: API_VERSION,
      summary: 'Webhook reliability gateway: persist, queue, sign, deliver, retry, replay.',
      description: DESCRIPTION,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: options.servers ?? DEFAULT_SERVERS,
    security: [{ bearerAuth: [] }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: schemas.sorted(),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'hk_ + base64url of 32 random bytes',
          description: 'An API key: `Authorization: Bearer hk_…` (shown once at creation).',
        },
        portalSession: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'ps_ + base64url of 32 random bytes',
          description: 'A consumer portal link’s secret (the part after `#` in its `url`): only the `/v1/portal` paths take it, for one customer.',
        },
      },
    },
  };
}
