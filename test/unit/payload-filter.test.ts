import { describe, expect, it } from 'vitest';
import { filterMatches, filterProblem, parseJsonPayload, type PayloadFilter } from '../../lambdas/domain/payload-filter';
import { routeMatches } from '../../lambdas/domain/routing';

const body = {
  type: 'invoice.paid',
  amount: 4200,
  currency: 'eur',
  customer: { id: 'cus_42', country: 'FR', tags: ['vip', 'beta'] },
  paid_at: '2026-03-01T10:00:00Z',
  refunded: false,
  note: null,
};

describe('payload filter matching', () => {
  it.each<[string, PayloadFilter, boolean]>([
    ['an empty filter', {}, true],
    ['equality', { currency: 'eur' }, true],
    ['equality, other value', { currency: 'usd' }, false],
    ['equality with null', { note: null }, true],
    ['equality with false', { refunded: false }, true],
    ['a missing field is not null', { missing: null }, false],
    ['nested fields', { customer: { country: 'FR' } }, true],
    ['nested fields, other value', { customer: { country: 'DE' } }, false],
    ['an array equals element by element', { customer: { tags: ['vip', 'beta'] } }, true],
    ['an array in another order differs', { customer: { tags: ['beta', 'vip'] } }, false],
    ['$eq', { amount: { $eq: 4200 } }, true],
    ['$eq does not convert types', { amount: { $eq: '4200' } }, false],
    ['$eq on an object', { customer: { $eq: { id: 'cus_42', country: 'FR', tags: ['vip', 'beta'] } } }, true],
    ['$neq', { currency: { $neq: 'usd' } }, true],
    ['$neq, same value', { currency: { $neq: 'eur' } }, false],
    ['$neq on a missing field', { missing: { $neq: 'x' } }, true],
    ['$in', { currency: { $in: ['usd', 'eur'] } }, true],
    ['$in, none', { currency: { $in: ['usd', 'gbp'] } }, false],
    ['$in, empty', { currency: { $in: [] } }, false],
    ['$nin', { currency: { $nin: ['usd', 'gbp'] } }, true],
    ['$nin, listed', { currency: { $nin: ['eur'] } }, false],
    ['$gt', { amount: { $gt: 4199 } }, true],
    ['$gt, equal', { amount: { $gt: 4200 } }, false],
    ['$gte, equal', { amount: { $gte: 4200 } }, true],
    ['$lt', { amount: { $lt: 4201 } }, true],
    ['$lte, equal', { amount: { $lte: 4200 } }, true],
    ['$lte, below', { amount: { $lte: 4199 } }, false],
    ['a range', { amount: { $gte: 1000, $lt: 5000 } }, true],
    ['a range, outside', { amount: { $gte: 1000, $lt: 4000 } }, false],
    ['$gt on strings (ISO times)', { paid_at: { $gt: '2026-01-01' } }, true],
    ['$gt across types never matches', { amount: { $gt: '1' } }, false],
    ['$gt on a missing field', { missing: { $gt: 0 } }, false],
    ['$exists true', { customer: { id: { $exists: true } } }, true],
    ['$exists true, null counts as present', { note: { $exists: true } }, true],
    ['$exists false', { missing: { $exists: false } }, true],
    ['$exists false, present', { amount: { $exists: false } }, false],
    ['$startsWith', { type: { $startsWith: 'invoice.' } }, true],
    ['$startsWith, other', { type: { $startsWith: 'charge.' } }, false],
    ['$startsWith on a number', { amount: { $startsWith: '42' } }, false],
    ['several fields: all must hold', { currency: 'eur', amount: { $gt: 5000 } }, false],
    ['$and', { $and: [{ currency: 'eur' }, { amount: { $gt: 100 } }] }, true],
    ['$and, one fails', { $and: [{ currency: 'eur' }, { amount: { $gt: 10_000 } }] }, false],
    ['$or', { $or: [{ currency: 'usd' }, { customer: { country: 'FR' } }] }, true],
    ['$or, none', { $or: [{ currency: 'usd' }, { customer: { country: 'DE' } }] }, false],
    ['$not', { $not: { currency: 'usd' } }, true],
    ['$not, holds', { $not: { currency: 'eur' } }, false],
    ['$or nested in a field', { customer: { $or: [{ country: 'DE' }, { id: 'cus_42' }] } }, true],
    ['a nested field of a non-object', { amount: { value: 1 } }, false],
    ['__proto__ is not a field of the body', { constructor: { $exists: true } }, false],
  ])('%s', (_name, filter, expected) => {
    expect(filterProblem(filter)).toBeNull();
    expect(filterMatches(filter, body)).toBe(expected);
  });

  it.each<[unknown, string]>([
    [[], 'filter must be a JSON object'],
    ['eur', 'filter must be a JSON object'],
    [{ amount: { $regex: 'x' } }, 'filter: unknown operator $regex'],
    [{ $where: 'x' }, 'filter: unknown operator $where'],
    [{ $gt: 1 }, 'filter: $gt must be applied to a field'],
    [{ amount: { $gt: 1, $and: [{ a: 1 }] } }, 'filter: $and must be used outside a field'],
    [{ currency: { $in: 'eur' } }, 'filter: $in needs an array'],
    [{ currency: { $nin: 'eur' } }, 'filter: $nin needs an array'],
    [{ amount: { $gt: null } }, 'filter: $gt needs a number or a string'],
    [{ amount: { $exists: 1 } }, 'filter: $exists needs true or false'],
    [{ type: { $startsWith: 1 } }, 'filter: $startsWith needs a string'],
    [{ $and: [] }, 'filter: $and needs a non-empty array of objects'],
    [{ $or: ['x'] }, 'filter: $or needs a non-empty array of objects'],
    [{ $not: [] }, 'filter: $not needs an object'],
    [{ $or: [{ a: { $bad: 1 } }] }, 'filter: unknown operator $bad'],
    [{ amount: { $gt: 1, nested: 2 } }, 'filter: amount mixes operators and fields'],
    [{ amount: {} }, 'filter: amount needs a value or an operator'],
    [{ '': 1 }, 'filter: field names must not be empty'],
    [{ big: 'x'.repeat(4100) }, 'filter must be at most 4096 bytes'],
    // Found by the bad-input fuzzer: DynamoDB could not store it, and the API answered 500.
    [{ ' ': -9007199254740992 }, 'filter: numbers must be between -9007199254740991 and 9007199254740991'],
    [{ amount: { $in: [1, 1e300] } }, 'filter: numbers must be between -9007199254740991 and 9007199254740991'],
  ])('refuses %j: %s', (filter, message) => {
    expect(filterProblem(filter)).toBe(message);
  });

  it('routes: a route with a filter never matches a body that is not JSON, one without a filter always may', () => {
    const route = { source_id: null, event_type_pattern: null, active: true };
    const event = { source_id: null, event_type: 'x' };
    expect(routeMatches({ ...route, filter: { a: 1 } }, { ...event, payload: parseJsonPayload(Buffer.from('a=1')) })).toBe(false);
    expect(routeMatches({ ...route, filter: { a: 1 } }, { ...event, payload: parseJsonPayload(Buffer.from('{"a":1}')) })).toBe(true);
    expect(routeMatches({ ...route, filter: { a: 1 } }, event)).toBe(false);
    expect(routeMatches({ ...route, filter: null }, event)).toBe(true);
  });
});
