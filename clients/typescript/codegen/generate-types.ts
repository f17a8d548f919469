/**
 * Generates clients/typescript/src/generated.ts from an OpenAPI 3.1 document (docs/openapi.json):
 * one type per component schema, and per operation its method, path, parameters, body and answers.
 * It covers the JSON Schema that Hookgate's document uses and throws on anything else, so a new
 * construct can never turn silently into a wrong type. Run by `npm run openapi`; a test checks the
 * committed output is current.
 */

type Schema = { [key: string]: unknown };
interface OperationLike {
  operationId?: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: Schema }>;
  requestBody?: { required?: boolean; content?: { [mediaType: string]: { schema?: Schema } } };
  responses?: { [status: string]: { content?: { [mediaType: string]: { schema?: Schema } }; headers?: object } };
}
export interface OpenApiLike {
  info: { version: string };
  paths: { [path: string]: { [method: string]: OperationLike } };
  components: { schemas: { [name: string]: Schema } };
}

/** Keywords that only annotate or constrain values, and never change the generated type (TypeScript's or Python's). */
export const ANNOTATIONS = new Set([
  'description',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'default',
  'examples',
  'propertyNames',
]);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
const pad = (depth: number) => '  '.repeat(depth);
const literal = (value: unknown) => (typeof value === 'string' ? `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : JSON.stringify(value));

function comment(text: unknown, depth: number): string {
  if (typeof text !== 'string' || text === '') return '';
  const lines = text.replace(/\*\//g, '*\\/').split('\n');
  if (lines.length === 1) return `${pad(depth)}/** ${lines[0]} */\n`;
  return `${pad(depth)}/**\n${lines.map((l) => `${pad(depth)} *${l ? ` ${l}` : ''}`).join('\n')}\n${pad(depth)} */\n`;
}

const refName = (ref: string) => {
  const match = /^#\/components\/schemas\/([A-Za-z0-9_]+)$/.exec(ref);
  if (!match?.[1]) throw new Error(`unsupported $ref ${ref}`);
  return match[1];
};

function union(members: string[]): string {
  const unique = [...new Set(members)];
  return unique.length === 0 ? 'never' : unique.join(' | ');
}

export function tsType(schema: Schema, depth = 0): string {
  const rest = Object.keys(schema).filter((k) => !ANNOTATIONS.has(k));
  if (typeof schema.$ref === 'string') return refName(schema.$ref);
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map(literal));
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alternatives) return union(alternatives.map((s) => tsType(s, depth)));
  if (Array.isArray(schema.type)) return union((schema.type as string[]).map((type) => tsType({ ...schema, type }, depth)));
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = tsType((schema.items ?? {}) as Schema, depth);
      return /^[A-Za-z0-9_]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    case 'object':
      return objectType(schema, depth);
    case undefined:
      if (rest.length === 0) return 'unknown';
  }
  throw new Error(`unsupported schema: ${JSON.stringify(schema).slice(0, 200)}`);
}

function objectType(schema: Schema, depth: number): string {
  const properties = schema.properties as { [name: string]: Schema } | undefined;
  const additional = schema.additionalProperties;
  if (!properties) {
    if (additional && typeof additional === 'object') return `Record<string, ${tsType(additional as Schema, depth)}>`;
    return 'Record<string, unknown>';
  }
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const lines = Object.entries(properties).map(
    ([name, property]) =>
      `${comment(property.description, depth + 1)}${pad(depth + 1)}${key(name)}${required.has(name) ? '' : '?'}: ${tsType(property, depth + 1)};`,
  );
  return `{\n${lines.join('\n')}\n${pad(depth)}}`;
}

function parametersType(parameters: NonNullable<OperationLike['parameters']>, where: 'path' | 'query', depth: number): string {
  const selected = parameters.filter((p) => p.in === where);
  if (selected.length === 0) return 'undefined';
  const properties = Object.fromEntries(selected.map((p) => [p.name, p.schema ?? {}]));
  const required = selected.filter((p) => p.required).map((p) => p.name);
  return objectType({ type: 'object', properties, required }, depth);
}

function bodyType(operation: OperationLike, depth: number): string {
  const content = operation.requestBody?.content;
  if (!content) return 'undefined';
  const json = content['application/json']?.schema;
  const type = json ? tsType(json, depth) : 'string | Uint8Array';
  return operation.requestBody?.required ? type : `${type} | undefined`;
}

function responsesType(operation: OperationLike, depth: number): string {
  const lines: string[] = [];
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (!/^2|^3/.test(status)) continue;
    const schema = response.content?.['application/json']?.schema;
    let type: string;
    if (status === '302') type = '{ location: string }';
    else if (status === '204' || !schema) type = 'null';
    else type = tsType(schema, depth + 1);
    lines.push(`${pad(depth + 1)}${status}: ${type};`);
  }
  return `{\n${lines.join('\n')}\n${pad(depth)}}`;
}

export function generateClientTypes(document: OpenApiLike): string {
  const out: string[] = [
    '// Generated from docs/openapi.json by `npm run openapi` (clients/typescript/codegen/generate-types.ts). Do not edit.',
    '',
    `/** The API version the client was generated from (the document's \`info.version\`). */`,
    `export const API_VERSION = ${literal(document.info.version)};`,
    '',
  ];
  for (const [name, schema] of Object.entries(document.components.schemas)) {
    out.push(`${comment(schema.description, 0)}export type ${name} = ${tsType(schema, 0)};`, '');
  }

  const operations: Array<{ id: string; method: string; path: string; operation: OperationLike }> = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation.operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      operations.push({ id: operation.operationId, method: method.toUpperCase(), path, operation });
    }
  }

  out.push('/** Every operation: its parameters, body and successful answers (errors throw `HookgateError`). */');
  out.push('export interface Operations {');
  for (const { id, method, path, operation } of operations) {
    const parameters = operation.parameters ?? [];
    out.push(
      `${pad(1)}${id}: {`,
      `${pad(2)}method: ${literal(method)};`,
      `${pad(2)}path: ${literal(path)};`,
      `${pad(2)}params: ${parametersType(parameters, 'path', 2)};`,
      `${pad(2)}query: ${parametersType(parameters, 'query', 2)};`,
      `${pad(2)}body: ${bodyType(operation, 2)};`,
      `${pad(2)}responses: ${responsesType(operation, 2)};`,
      `${pad(1)}};`,
    );
  }
  out.push('}', '');
  out.push('export type OperationId = keyof Operations;', '');
  out.push('/** Method and path of every operation, for the client to call. */');
  out.push('export const operations: { readonly [K in OperationId]: { readonly method: Operations[K][\'method\']; readonly path: Operations[K][\'path\'] } } = {');
  for (const { id, method, path } of operations) out.push(`${pad(1)}${id}: { method: ${literal(method)}, path: ${literal(path)} },`);
  out.push('};', '');
  return out.join('\n');
}
