import * as z from 'zod';
import { invalid } from '../domain/errors';
import { isSendableHeaderValue, unsendableHeaderMessage } from '../domain/header-values';
import { isUuid } from '../domain/ids';
import { documented } from './schemas';

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);
const ZOD_DEFAULT_MESSAGE = /^(Invalid|Too (small|big)|Unrecognized)/;
const TYPE_NAMES: Record<string, string> = { int: 'integer', number: 'number', array: 'array', object: 'object' };

/** Turns the first zod issue into the message a client sees; every message names its field. */
export function issueMessage(issue: z.core.$ZodIssue): string {
  const field = issue.path.map(String).join('.');
  if (!ZOD_DEFAULT_MESSAGE.test(issue.message)) return issue.message; // a schema's own words win
  switch (issue.code) {
    case 'invalid_type': {
      if (!field) return 'request body must be a JSON object';
      if (!('input' in issue) || issue.input === undefined) return `${field} is required`;
      return `${field} must be ${article(TYPE_NAMES[issue.expected] ?? issue.expected)}`;
    }
    case 'too_small':
      if (issue.origin === 'array') return `${field} must contain at least ${issue.minimum} item(s)`;
      if (issue.origin === 'string') {
        return Number(issue.minimum) <= 1 ? `${field} is required` : `${field} must be at least ${issue.minimum} characters`;
      }
      return `${field} must be at least ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'array') return `${field} must contain at most ${issue.maximum} items`;
      return issue.origin === 'string'
        ? `${field} must be at most ${issue.maximum} characters`
        : `${field} must be at most ${issue.maximum}`;
    case 'invalid_value':
      return `${field} must be one of: ${issue.values.map(String).join(', ')}`;
    case 'unrecognized_keys':
      return `unknown field: ${[field, issue.keys[0]].filter(Boolean).join('.')}`;
    case 'invalid_union':
      if ('options' in issue && Array.isArray(issue.options)) {
        return `${field} must be one of: ${issue.options.map(String).join(', ')}`;
      }
      return `${field} is invalid`;
    case 'custom':
      return issue.message;
    default:
      return `${field} is invalid`;
  }
}

export function parseWith<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const first = result.error.issues[0];
  throw invalid(first ? issueMessage(first) : 'invalid request');
}

/** Parses a JSON body; an empty body counts as `{}` so endpoints whose fields are all optional accept none. */
export function parseJsonBody<T>(request: { body: Buffer }, schema: z.ZodType<T>): T {
  let input: unknown = {};
  const text = request.body.toString('utf8');
  if (text.trim() !== '') {
    try {
      input = JSON.parse(text);
    } catch {
      throw invalid('invalid JSON body');
    }
  }
  return parseWith(schema, input);
}

export function parsePathId(value: string | undefined): string {
  if (!value || !isUuid(value)) throw invalid('invalid id');
  return value.toLowerCase();
}

// Shared field builders, so the same field gets the same rules and messages everywhere.
const HEADER_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** An HTTP header name (RFC 9110 token). */
export const isHeaderName = (value: string) => HEADER_TOKEN.test(value);

export function hasControlChars(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

export const textField = (field: string, max = 200) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((v) => !hasControlChars(v), { error: () => `${field} must not contain control characters` });

/** A field the gateway later sends as an HTTP header value: refused now rather than failing every delivery. */
export const sendableHeaderRule = (field: string) =>
  [(v: string) => isSendableHeaderValue(v), { error: () => unsendableHeaderMessage(field) }] as const;

export const uuidField = (field: string) =>
  documented(z.string().refine(isUuid, { error: () => `invalid ${field}` }).transform((v) => v.toLowerCase()), { format: 'uuid' });

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** An ISO 8601 time, answered in UTC with milliseconds (so bounds compare as text). */
export const timestampField = (field: string) =>
  z
    .string()
    .refine((v) => ISO_8601.test(v) && !Number.isNaN(Date.parse(v)), { error: () => `${field} must be an ISO 8601 timestamp` })
    .transform((v) => new Date(v).toISOString());

/**
 * Page cursors: opaque to clients, and they only ever name an event id (the account always comes from
 * the credential). `kind` keeps one list's cursors from being taken for another's.
 */
export function eventCursor(kind: string) {
  const prefix = `${kind}:`;
  return {
    encode: (eventId: string) => Buffer.from(`${prefix}${eventId}`).toString('base64url'),
    decode(cursor: string): string {
      const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
      const id = decoded.startsWith(prefix) ? decoded.slice(prefix.length) : '';
      if (!isUuid(id)) throw invalid('invalid cursor');
      return id.toLowerCase();
    },
  };
}

/** DynamoDB's `Limit` is a 32-bit integer and a page reads `offset + limit` jobs, so the offset leaves room for the page. */
const MAX_JOB_OFFSET = 2_147_483_647 - 200;

/** The query of a list of background jobs (exports, bulk replays): few per account, so offset paging. */
export const jobListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).optional().describe('1..200; default 25.'),
  offset: z.coerce.number().int().min(0).max(MAX_JOB_OFFSET).optional().describe(`Default 0; at most ${MAX_JOB_OFFSET}.`),
});

export const JOB_LIST_ERRORS = ['limit must be at least 1', 'limit must be at most 200', 'limit must be a number', 'offset must be at least 0', `offset must be at most ${MAX_JOB_OFFSET}`];
