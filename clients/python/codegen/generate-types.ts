/**
 * Generates clients/python/hookgate/generated.py from docs/openapi.json: a TypedDict per object
 * schema (nested objects get their own, named `Parent_Property`), a type alias per other schema,
 * and the method and path of every operation. Like the TypeScript generator it throws on any JSON
 * Schema construct it does not know, so a new one never turns silently into a wrong type. Run by
 * `npm run openapi`; a unit test checks the committed output is current.
 */
import { ANNOTATIONS, type OpenApiLike } from '../../typescript/codegen/generate-types';

type Schema = { [key: string]: unknown };

const pascal = (name: string) => name.replace(/(^|_)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
const literal = (value: unknown) => {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return JSON.stringify(value);
};

function docstring(text: unknown, indent: string): string[] {
  if (typeof text !== 'string' || text === '') return [];
  const escaped = text.replace(/\\/g, '\\\\').replace(/"""/g, '\\"\\"\\"');
  const lines = escaped.split('\n');
  if (lines.length === 1) return [`${indent}"""${lines[0]}"""`];
  return [`${indent}"""${lines[0]}`, ...lines.slice(1).map((l) => (l ? `${indent}${l}` : '')), `${indent}"""`];
}

const refName = (ref: string) => {
  const match = /^#\/components\/schemas\/([A-Za-z0-9_]+)$/.exec(ref);
  if (!match?.[1]) throw new Error(`unsupported $ref ${ref}`);
  return match[1];
};

const union = (members: string[]) => {
  const unique = [...new Set(members)];
  if (unique.length === 0) throw new Error('an empty union');
  return unique.join(' | ');
};

class Generator {
  readonly classes: string[][] = [];
  // Nested names join with `_`, which component names never contain, so the two cannot collide.
  readonly #names = new Set<string>();

  /** The Python type of `schema`; an object with properties becomes a TypedDict called `name`. */
  type(schema: Schema, name: string): string {
    const rest = Object.keys(schema).filter((k) => !ANNOTATIONS.has(k));
    if (typeof schema.$ref === 'string') return refName(schema.$ref);
    if ('const' in schema) return `Literal[${literal(schema.const)}]`;
    if (Array.isArray(schema.enum)) return `Literal[${schema.enum.map(literal).join(', ')}]`;
    const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
    if (alternatives) {
      const objects = alternatives.filter((s) => s.type === 'object' && s.properties).length;
      let n = 0;
      return union(alternatives.map((s) => this.type(s, s.type === 'object' && s.properties && objects > 1 ? `${name}_${++n}` : name)));
    }
    if (Array.isArray(schema.type)) return union((schema.type as string[]).map((type) => this.type({ ...schema, type }, name)));
    switch (schema.type) {
      case 'string':
        return 'str';
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'null':
        return 'None';
      case 'array':
        return `list[${this.type((schema.items ?? {}) as Schema, `${name}_Item`)}]`;
      case 'object':
        return this.object(schema, name);
      case undefined:
        if (rest.length === 0) return 'Any';
    }
    throw new Error(`unsupported schema: ${JSON.stringify(schema).slice(0, 200)}`);
  }

  object(schema: Schema, name: string): string {
    const properties = schema.properties as { [property: string]: Schema } | undefined;
    const additional = schema.additionalProperties;
    if (!properties) {
      if (additional && typeof additional === 'object') return `dict[str, ${this.type(additional as Schema, `${name}_Value`)}]`;
      return 'dict[str, Any]';
    }
    if (this.#names.has(name)) throw new Error(`two schemas would be called ${name}`);
    this.#names.add(name);
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const lines = [`class ${name}(TypedDict):`, ...docstring(schema.description, '    ')];
    for (const [property, propertySchema] of Object.entries(properties)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(property)) throw new Error(`${name}.${property} is no Python identifier`);
      const type = this.type(propertySchema, `${name}_${pascal(property)}`);
      lines.push(`    ${property}: ${required.has(property) ? type : `NotRequired[${type}]`}`);
      lines.push(...docstring(propertySchema.description, '    '));
    }
    if (lines.length === 1) lines.push('    pass');
    this.classes.push(lines);
    return name;
  }
}

export function generatePythonTypes(document: OpenApiLike): string {
  const generator = new Generator();
  const aliases: string[][] = [];
  for (const [name, schema] of Object.entries(document.components.schemas)) {
    const type = generator.type(schema, name);
    // Objects are classes already; every other schema is an alias, written as a string so that it
    // may name classes defined further down.
    if (type !== name) aliases.push([`${name}: TypeAlias = ${JSON.stringify(type)}`, ...docstring(schema.description, '')]);
  }

  const operations: string[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation.operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      operations.push(`    ${JSON.stringify(operation.operationId)}: (${JSON.stringify(method.toUpperCase())}, ${JSON.stringify(path)}),`);
    }
  }

  return [
    '# Generated from docs/openapi.json by `npm run openapi` (clients/python/codegen/generate-types.ts). Do not edit.',
    '"""The API\'s schemas as TypedDicts and aliases, and the method and path of every operation."""',
    '',
    'from __future__ import annotations',
    '',
    'from typing import Any, Literal, NotRequired, TypeAlias, TypedDict',
    '',
    `API_VERSION = ${JSON.stringify(document.info.version)}`,
    '"""The API version the client was generated from (the document\'s `info.version`)."""',
    '',
    ...[...generator.classes, ...aliases].flatMap((lines) => ['', ...lines, '']),
    '',
    '# operationId: (method, path)',
    'OPERATIONS: dict[str, tuple[str, str]] = {',
    ...operations,
    '}',
    '',
  ].join('\n');
}
