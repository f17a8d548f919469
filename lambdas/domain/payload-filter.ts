/**
 * Payload filters on routes (as Convoy and Outpost offer): a JSON object matched against an event's
 * JSON body. A key is a field of the body (an object value without operators goes one level down), or
 * a logical operator; a field's value is the value it must equal, or an object of comparison operators
 * that must all hold. Pure: validated when a route is written, evaluated when an event is routed.
 */
export type PayloadFilter = Record<string, unknown>;

export const FILTER_MAX_BYTES = 4096;

const COMPARISONS = ['$eq', '$neq', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', '$exists', '$startsWith'] as const;
const LOGICAL = ['$and', '$or', '$not'] as const;
type Comparison = (typeof COMPARISONS)[number];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isOperator = (key: string) => key.startsWith('$');
const isComparison = (key: string) => (COMPARISONS as readonly string[]).includes(key);
/** A field's value is a set of comparisons when it names one; any other object is a filter one level down. */
const isComparisonSet = (value: Record<string, unknown>) => Object.keys(value).some(isComparison);

/** Why a filter cannot be used (naming the operator or field at fault), or null when it is valid. */
export function filterProblem(filter: unknown): string | null {
  if (!isObject(filter)) return 'filter must be a JSON object';
  if (new TextEncoder().encode(JSON.stringify(filter)).length > FILTER_MAX_BYTES) return `filter must be at most ${FILTER_MAX_BYTES} bytes`;
  // Past 2^53 a body's numbers parse inexactly (…993 reads as …992): such a filter would match the wrong
  // events. Small magnitudes are exact enough and stored as text, so they are allowed.
  if (hasUnsafeNumber(filter)) return `filter: numbers must be between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`;
  return objectProblem(filter);
}

function hasUnsafeNumber(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER;
  if (Array.isArray(value)) return value.some(hasUnsafeNumber);
  return isObject(value) && Object.values(value).some(hasUnsafeNumber);
}

function objectProblem(filter: Record<string, unknown>): string | null {
  for (const [key, value] of Object.entries(filter)) {
    const problem = isOperator(key) ? logicalProblem(key, value) : fieldProblem(key, value);
    if (problem) return problem;
  }
  return null;
}

function logicalProblem(operator: string, operand: unknown): string | null {
  if (operator === '$not') return isObject(operand) ? objectProblem(operand) : 'filter: $not needs an object';
  if (operator === '$and' || operator === '$or') {
    if (!Array.isArray(operand) || operand.length === 0 || !operand.every(isObject)) return `filter: ${operator} needs a non-empty array of objects`;
    for (const part of operand) {
      const problem = objectProblem(part);
      if (problem) return problem;
    }
    return null;
  }
  if (isComparison(operator)) return `filter: ${operator} must be applied to a field`;
  return `filter: unknown operator ${operator}`;
}

function fieldProblem(field: string, expected: unknown): string | null {
  if (field === '') return 'filter: field names must not be empty';
  if (!isObject(expected)) return null; // a plain value: equality
  const keys = Object.keys(expected);
  if (keys.length === 0) return `filter: ${field} needs a value or an operator`;
  if (!isComparisonSet(expected)) return objectProblem(expected);
  if (!keys.every(isOperator)) return `filter: ${field} mixes operators and fields`;
  for (const operator of keys) {
    const problem = comparisonProblem(operator, expected[operator]);
    if (problem) return problem;
  }
  return null;
}

function comparisonProblem(operator: string, operand: unknown): string | null {
  switch (operator) {
    case '$eq':
    case '$neq':
      return null;
    case '$in':
    case '$nin':
      return Array.isArray(operand) ? null : `filter: ${operator} needs an array`;
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return typeof operand === 'number' || typeof operand === 'string' ? null : `filter: ${operator} needs a number or a string`;
    case '$exists':
      return typeof operand === 'boolean' ? null : 'filter: $exists needs true or false';
    case '$startsWith':
      return typeof operand === 'string' ? null : 'filter: $startsWith needs a string';
    default:
      return (LOGICAL as readonly string[]).includes(operator) ? `filter: ${operator} must be used outside a field` : `filter: unknown operator ${operator}`;
  }
}

/** Whether a JSON body satisfies a valid filter. `body` is the parsed JSON. */
export function filterMatches(filter: PayloadFilter, body: unknown): boolean {
  return Object.entries(filter).every(([key, value]) => (isOperator(key) ? logicalMatches(key, value, body) : fieldMatches(fieldOf(body, key), value)));
}

function logicalMatches(operator: string, operand: unknown, body: unknown): boolean {
  const parts = Array.isArray(operand) ? (operand as PayloadFilter[]) : [];
  if (operator === '$and') return parts.every((part) => filterMatches(part, body));
  if (operator === '$or') return parts.some((part) => filterMatches(part, body));
  return !filterMatches(operand as PayloadFilter, body);
}

/** Own properties only: a filter naming `__proto__` or `constructor` sees nothing the body did not send. */
const fieldOf = (body: unknown, field: string): unknown => (isObject(body) && Object.hasOwn(body, field) ? body[field] : undefined);

function fieldMatches(actual: unknown, expected: unknown): boolean {
  if (!isObject(expected)) return jsonEqual(actual, expected);
  if (!isComparisonSet(expected)) return isObject(actual) && filterMatches(expected, actual);
  return Object.keys(expected).every((operator) => compare(operator as Comparison, actual, expected[operator]));
}

function compare(operator: Comparison, actual: unknown, operand: unknown): boolean {
  switch (operator) {
    case '$eq':
      return jsonEqual(actual, operand);
    case '$neq':
      return !jsonEqual(actual, operand);
    case '$in':
      return (operand as unknown[]).some((candidate) => jsonEqual(actual, candidate));
    case '$nin':
      return !(operand as unknown[]).some((candidate) => jsonEqual(actual, candidate));
    case '$exists':
      return (actual !== undefined) === operand;
    case '$startsWith':
      return typeof actual === 'string' && actual.startsWith(operand as string);
    default:
      return ordered(operator, actual, operand);
  }
}

/** Numbers compare with numbers and strings with strings (ISO timestamps sort as text); anything else does not match. */
function ordered(operator: '$gt' | '$gte' | '$lt' | '$lte', actual: unknown, operand: unknown): boolean {
  if (typeof actual !== typeof operand || (typeof actual !== 'number' && typeof actual !== 'string')) return false;
  const a = actual as number | string;
  const b = operand as number | string;
  if (operator === '$gt') return a > b;
  if (operator === '$gte') return a >= b;
  if (operator === '$lt') return a < b;
  return a <= b;
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
}

/** A body's JSON, or undefined when it is not JSON: a route with a filter never matches such a body. */
export function parseJsonPayload(body: Buffer): { json: unknown } | undefined {
  try {
    return { json: JSON.parse(body.toString('utf8')) as unknown };
  } catch {
    return undefined;
  }
}
