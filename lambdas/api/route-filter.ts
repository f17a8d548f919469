import * as z from 'zod';
import { FILTER_MAX_BYTES, filterProblem } from '../domain/payload-filter';

const FILTER_DOC =
  'Matched against the event’s JSON body: `{"field": value}` (equal), `{"field": {"$gt": 100}}` (operators `$eq $neq $in $nin $gt $gte $lt $lte $exists $startsWith`), nested objects for nested fields, and `$and`/`$or` (arrays of filters) and `$not` (a filter) at any level. A body that is not JSON never matches a route with a filter. At most 4096 bytes. null or absent: no filter.';

/** A route's payload filter as a request carries it; the domain says what is valid. */
export const routeFilterInput = z
  .record(z.string(), z.unknown(), { error: () => 'filter must be a JSON object' })
  .superRefine((filter, ctx) => {
    const problem = filterProblem(filter);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .nullable()
  .optional()
  .describe(FILTER_DOC);

export const routeFilterResponse = z.record(z.string(), z.unknown()).nullable().describe('The payload filter; null: none.');

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
