/**
 * IAM's identity-policy evaluation, for the statements the stack writes: an explicit Deny wins, then
 * any Allow whose action, resource and conditions all match; otherwise the request is implicitly
 * denied. Actions match case-insensitively, resources case-sensitively, both with `*` and `?`.
 */

type ConditionBlock = Readonly<Record<string, Readonly<Record<string, string | readonly string[]>>>>;

export interface PolicyStatement {
  readonly Effect: 'Allow' | 'Deny';
  readonly Action?: string | readonly string[];
  readonly NotAction?: string | readonly string[];
  readonly Resource?: string | readonly string[];
  readonly NotResource?: string | readonly string[];
  readonly Condition?: ConditionBlock;
}

/** One authorisation AWS makes for a call: a call can need several (CopyObject reads one object and writes another). */
export interface IamRequest {
  readonly action: string;
  readonly resource: string;
  /** Condition keys the request carries (`sts:ExternalId`, `aws:ResourceAccount`…). */
  readonly context?: Readonly<Record<string, string>>;
}

export type Decision = 'allowed' | 'explicitly-denied' | 'implicitly-denied';

const list = (value: string | readonly string[] | undefined): readonly string[] => (value === undefined ? [] : typeof value === 'string' ? [value] : value);

/** Every call is authorised, and a role has a few dozen patterns: each is compiled once. */
const compiled = new Map<string, RegExp>();

function wildcard(pattern: string, caseInsensitive: boolean): RegExp {
  const key = `${caseInsensitive ? 'i' : 's'}${pattern}`;
  let regex = compiled.get(key);
  if (!regex) {
    const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
    regex = new RegExp(`^${body}$`, caseInsensitive ? 'is' : 's');
    compiled.set(key, regex);
  }
  return regex;
}

const matchesAny = (patterns: readonly string[], value: string, caseInsensitive: boolean): boolean =>
  patterns.some((pattern) => wildcard(pattern, caseInsensitive).test(value));

function actionMatches(statement: PolicyStatement, action: string): boolean {
  if (statement.NotAction !== undefined) return !matchesAny(list(statement.NotAction), action, true);
  return matchesAny(list(statement.Action), action, true);
}

function resourceMatches(statement: PolicyStatement, resource: string): boolean {
  if (statement.NotResource !== undefined) return !matchesAny(list(statement.NotResource), resource, false);
  return matchesAny(list(statement.Resource), resource, false);
}

/** ARNs compare part by part, each part a wildcard pattern (ArnLike's rule). */
function arnLike(pattern: string, value: string): boolean {
  const patternParts = pattern.split(':');
  const valueParts = value.split(':');
  if (patternParts.length < 6 || valueParts.length < 6) return false;
  const head = (parts: string[]) => [...parts.slice(0, 5), parts.slice(5).join(':')];
  const [p, v] = [head(patternParts), head(valueParts)];
  return p.every((part, i) => wildcard(part, false).test(v[i] ?? ''));
}

type Test = (expected: string, actual: string) => boolean;

const OPERATORS: Readonly<Record<string, { test: Test; negated: boolean }>> = {
  StringEquals: { test: (e, a) => e === a, negated: false },
  StringNotEquals: { test: (e, a) => e === a, negated: true },
  StringEqualsIgnoreCase: { test: (e, a) => e.toLowerCase() === a.toLowerCase(), negated: false },
  StringNotEqualsIgnoreCase: { test: (e, a) => e.toLowerCase() === a.toLowerCase(), negated: true },
  StringLike: { test: (e, a) => wildcard(e, false).test(a), negated: false },
  StringNotLike: { test: (e, a) => wildcard(e, false).test(a), negated: true },
  ArnEquals: { test: arnLike, negated: false },
  ArnLike: { test: arnLike, negated: false },
  ArnNotEquals: { test: arnLike, negated: true },
  ArnNotLike: { test: arnLike, negated: true },
  Bool: { test: (e, a) => e.toLowerCase() === a.toLowerCase(), negated: false },
};

/**
 * A condition block holds when every operator's every key holds. A key the request lacks fails a
 * positive operator and satisfies a negated one (IAM's rule); `…IfExists` makes a missing key pass.
 */
function conditionsHold(condition: ConditionBlock | undefined, context: Readonly<Record<string, string>>): boolean {
  if (!condition) return true;
  return Object.entries(condition).every(([name, keys]) => {
    const ifExists = name.endsWith('IfExists');
    const operator = OPERATORS[ifExists ? name.slice(0, -'IfExists'.length) : name];
    if (!operator) throw new Error(`local IAM does not evaluate the condition operator ${name}`);
    return Object.entries(keys).every(([key, expected]) => {
      const actual = Object.entries(context).find(([k]) => k.toLowerCase() === key.toLowerCase())?.[1];
      if (actual === undefined) return ifExists || operator.negated;
      const anyMatch = list(expected).some((value) => operator.test(value, actual));
      return operator.negated ? !anyMatch : anyMatch;
    });
  });
}

export function evaluate(statements: readonly PolicyStatement[], request: IamRequest): Decision {
  const context = request.context ?? {};
  const applies = (statement: PolicyStatement) =>
    actionMatches(statement, request.action) && resourceMatches(statement, request.resource) && conditionsHold(statement.Condition, context);
  if (statements.some((statement) => statement.Effect === 'Deny' && applies(statement))) return 'explicitly-denied';
  return statements.some((statement) => statement.Effect === 'Allow' && applies(statement)) ? 'allowed' : 'implicitly-denied';
}
