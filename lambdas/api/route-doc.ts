import * as z from 'zod';
import type { RawBody } from './http';

/**
 * The documentation a route carries beside its handler. It names the handler's own zod schemas
 * (body, query) and the response schemas its presenters are typed by, so the OpenAPI document is
 * generated from the code that runs, with no second copy to keep in step.
 */
export const TAGS = {
  Accounts: 'Create an account (open) and read or change your own.',
  'API keys': 'Bearer keys (`hk_…`): shown once at creation, stored as a SHA-256 hash.',
  Sources: 'Inbound endpoints: third parties post webhooks to a source’s `ingest_url`.',
  Ingest: 'Where third parties post webhooks; authenticated by the source’s path token.',
  Destinations: 'Where events are delivered, signed with the destination’s secret.',
  'AWS connections': 'Roles in your customers’ AWS accounts that AWS destinations deliver through: no access key, an external id per connection.',
  Routes: 'Which events go to which destination.',
  'Listen sessions': '`hookgate listen`: a destination of type `cli` and a route, delivering over the CLI’s WebSocket connection.',
  Events: 'Inbound events: list, detail with attempts, replay.',
  'Outbound events': 'Events you publish for your own customers, on the same pipeline.',
  Replays: 'Bulk replays: every failed event sent again with one call, in the background, each once.',
  Exports: 'Asynchronous exports of event history to a file (JSON or CSV).',
  Erasures: 'Erasure per data subject: every payload and stored body of the events given a `subject`, removed in the background; the events stay as tombstones.',
  'Brand settings': 'How your webhook portal and documentation look to your customers.',
  'Custom domains': 'Receive webhooks on your own hostname.',
  'Event types': 'The catalog of outbound event types your customers can subscribe to in the portal.',
  'Portal sessions': 'Links that open the consumer portal for one of your customers.',
  Portal: 'The consumer portal: its page, and the API it calls with the link’s secret (`Bearer ps_…`), scoped to one customer.',
  Probes: 'Liveness and readiness.',
  Meta: 'This document.',
} as const;
type Tag = keyof typeof TAGS;

/** A `{data, duration_ms}` answer (with `next_cursor` beside `data` for a page of events). */
export interface JsonResponseDoc<T extends z.ZodType = z.ZodType> {
  kind: 'json';
  description: string;
  data: T;
  example: unknown;
  page?: boolean;
}
export interface NoContentDoc {
  kind: 'no_content';
  description: string;
}
export interface RedirectDoc {
  kind: 'redirect';
  description: string;
  example: string;
}
/** A JSON document that is not enveloped (the OpenAPI document itself, a JWKS). */
interface RawJsonDoc {
  kind: 'raw_json';
  description: string;
  /** Its shape and an example; without them, documented as an OpenAPI document. */
  data?: z.ZodType;
  example?: unknown;
  /** Response headers that matter to a reader, by name. */
  headers?: Record<string, { description: string; value: string }>;
}
/** A file served as it is (the portal's page, script and style sheet). */
interface StaticDoc {
  kind: 'static';
  description: string;
  contentType: string;
}
export type ResponseDoc = JsonResponseDoc | NoContentDoc | RedirectDoc | RawJsonDoc | StaticDoc;

export interface JsonBodyDoc {
  kind: 'json';
  schema: z.ZodType;
  example: unknown;
}
/** Any content type, stored byte for byte (ingest). */
export interface RawBodyDoc {
  kind: 'raw';
  description: string;
  example: string;
}

export interface HeaderDoc {
  name: string;
  description: string;
  maxLength?: number;
}

type ErrorStatus = 400 | 401 | 403 | 404 | 410 | 413;

export type ResponseDocs = { [status: number]: ResponseDoc };

/** The shape a page of events answers beside `data`. */
type PageExtra = { next_cursor: string | null };

type ResultFor<S, D> = D extends JsonResponseDoc<infer T>
  ? D extends { page: true }
    ? { status: S; data: z.output<T>; extra: PageExtra }
    : { status: S; data: z.output<T> }
  : D extends NoContentDoc
    ? { status: 204 }
    : D extends RedirectDoc
      ? { status: 302; location: string }
      : { status: S; raw: RawBody };

/**
 * What a handler may answer, read from its documented responses: each status with the data its
 * schema describes, so a handler cannot drift from the document generated from the same route.
 */
export type ResultOf<R extends ResponseDocs> = { [S in keyof R & number]: ResultFor<S, R[S]> }[keyof R & number];

export interface RouteDoc<R extends ResponseDocs = ResponseDocs> {
  operationId: string;
  summary: string;
  description?: string;
  tag: Tag;
  body?: JsonBodyDoc | RawBodyDoc;
  /** The handler's own query schema. */
  query?: z.ZodObject;
  headers?: readonly HeaderDoc[];
  responses: R;
  /**
   * Exact error messages this operation answers, beyond those the generator adds for every route of
   * its kind (401 `Unauthorized` with an API key; 400 `invalid id` and 404 `Not found` with an id in
   * the path; 400 `invalid JSON body` / `request body must be a JSON object` and 413 with a body; 500).
   */
  errors?: { [S in ErrorStatus]?: readonly string[] };
}

/** A `{data}` answer; the example is type-checked against the schema. */
export const json = <T extends z.ZodType>(description: string, data: T, example: z.output<T>): JsonResponseDoc<T> => ({
  kind: 'json',
  description,
  data,
  example,
});

/** A list answer. */
export const list = <T extends z.ZodType>(description: string, item: T, example: Array<z.output<T>>): JsonResponseDoc<z.ZodArray<T>> => ({
  kind: 'json',
  description,
  data: z.array(item),
  example,
});

/** A page of events: `next_cursor` beside `data`. */
export const page = <T extends z.ZodType>(
  description: string,
  item: T,
  example: Array<z.output<T>>,
): JsonResponseDoc<z.ZodArray<T>> & { page: true } => ({
  ...list(description, item, example),
  page: true,
});

export const noContent = (description: string): NoContentDoc => ({ kind: 'no_content', description });
export const redirect = (description: string, example: string): RedirectDoc => ({ kind: 'redirect', description, example });

/** A JSON request body: the schema the handler parses with; the example is type-checked against it. */
export const jsonBody = <T extends z.ZodType>(schema: T, example: z.input<T>): JsonBodyDoc => ({ kind: 'json', schema, example });

/** `traceparent` on the requests that make events (ingest, publish): never refused, only ignored when invalid. */
export const traceparentHeader: HeaderDoc = {
  name: 'traceparent',
  description:
    'W3C Trace Context, version 00 (`00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`, lowercase). A valid one is kept with the event: every delivery try sends a `traceparent` with its trace id, a new span id and its sampled flag. Absent or invalid: ignored (never a 4xx), and Hookgate starts a trace.',
};
