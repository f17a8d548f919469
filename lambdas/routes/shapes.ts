import * as z from 'zod';
import { FILTER_MAX_BYTES, filterProblem } from '../domain/payload-filter';
import { isValidPattern } from '../domain/routing';
import { at, ids } from '../api-kit/examples';
import { named } from '../api-kit/schemas';
import { textField, uuidField } from '../api-kit/validation';
import type { RouteRecord } from './record';

/** A route's API shapes: requests, the answer (typed, so the presenter cannot drift), the example. */

const uuid = z.uuid();
const timestamp = z.iso.datetime();

const FILTER_DOC =
  'Matched against the event’s JSON body: `{"field": value}` (equal), `{"field": {"$gt": 100}}` (operators `$eq $neq $in $nin $gt $gte $lt $lte $exists $startsWith`), nested objects for nested fields, and `$and`/`$or` (arrays of filters) and `$not` (a filter) at any level. A body that is not JSON never matches a route with a filter. At most 4096 bytes. null or absent: no filter.';

/** A route's payload filter as a request carries it; the domain says what is valid. */
const routeFilterInput = z
  .record(z.string(), z.unknown(), { error: () => 'filter must be a JSON object' })
  .superRefine((filter, ctx) => {
    const problem = filterProblem(filter);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .nullable()
  .optional()
  .describe(FILTER_DOC);

const routeFilterResponse = z.record(z.string(), z.unknown()).nullable().describe('The payload filter; null: none.');

export const FILTER_ERRORS = [
  'filter must be a JSON object',
  `filter must be at most ${FILTER_MAX_BYTES} bytes`,
  `filter: numbers must be between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`,
  'filter: unknown operator $regex',
  'filter: $in needs an array',
  'filter: $gt needs a number or a string',
  'filter: $exists needs true or false',
  'filter: $startsWith needs a string',
  'filter: $and needs a non-empty array of objects',
  'filter: $not needs an object',
  'filter: amount mixes operators and fields',
];

const eventTypePattern = textField('event_type_pattern')
  .refine(isValidPattern, { error: () => 'event_type_pattern may contain * only as its last character' })
  .nullable()
  .optional()
  .describe('An exact type, or text ending in `*` (`payment.*`); null or absent: every type.');

export const createRouteBody = named(
  'CreateRouteRequest',
  z.strictObject({
    destination_id: uuidField('destination_id'),
    source_id: uuidField('source_id').nullable().optional().describe('null or absent: every source, and outbound events.'),
    event_type_pattern: eventTypePattern,
    active: z.boolean().optional().describe('Default true.'),
    filter: routeFilterInput,
  }),
);

export const updateRouteBody = named(
  'UpdateRouteRequest',
  z.strictObject({
    active: z.boolean().optional(),
    event_type_pattern: eventTypePattern,
    filter: routeFilterInput,
  }),
);

export const patternErrors = ['event_type_pattern may contain * only as its last character', 'event_type_pattern must be at most 200 characters'];

export const routeResponse = named(
  'Route',
  z.strictObject({
    id: uuid,
    account_id: uuid,
    source_id: uuid.nullable().describe('null: every source (and outbound events).'),
    destination_id: uuid,
    event_type_pattern: z.string().nullable().describe('null: every type; a trailing `*` matches any type starting with the text before it.'),
    active: z.boolean(),
    filter: routeFilterResponse,
    created_at: timestamp,
  }),
);

export type RouteResponse = z.output<typeof routeResponse>;

export const presentRoute = (r: RouteRecord): RouteResponse => ({
  id: r.id,
  account_id: r.account_id,
  source_id: r.source_id,
  destination_id: r.destination_id,
  event_type_pattern: r.event_type_pattern,
  active: r.active,
  filter: r.filter ?? null,
  created_at: r.created_at,
});

export const exampleRoute = {
  id: ids.route,
  account_id: ids.account,
  source_id: ids.source,
  destination_id: ids.destination,
  event_type_pattern: 'payment.*',
  active: true,
  filter: { data: { amount: { $gte: 1000 }, currency: { $in: ['eur', 'usd'] } } },
  created_at: at,
} satisfies RouteResponse;
