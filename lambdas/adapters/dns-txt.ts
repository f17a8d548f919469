import { Resolver } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import { config } from '../shared/config';
import { log } from '../shared/log';

/** The TXT records at a name, each record's character strings joined; [] when there are none. */
export type TxtResolver = (name: string) => Promise<string[]>;

/** What node:dns gives: one array of character strings (each at most 255 bytes) per record. */
export type RawTxtLookup = (name: string) => Promise<string[][]>;

const TXT_LOOKUP_TIMEOUT_MS = 5_000;
// No such name, or a name without TXT records: both simply mean "no record".
const NO_RECORDS = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * Wraps a raw lookup: chunks joined, "no such name/data" as [], and any other failure (a timeout, a
 * SERVFAIL, a refused connection) also as [] after a warning, since the caller can only report
 * "not found yet" and try again later. The whole lookup is bounded by `timeoutMs`.
 */
export function txtResolverFrom(lookup: RawTxtLookup, timeoutMs = TXT_LOOKUP_TIMEOUT_MS): TxtResolver {
  return async (name) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      const answer = await Promise.race([lookup(name), timeout]);
      if (answer === 'timeout') {
        log.warn('TXT lookup timed out', { name });
        return [];
      }
      return answer.map((chunks) => chunks.join(''));
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (!NO_RECORDS.has(String(code))) log.warn('TXT lookup failed', { name, code: String(code) }, error);
      return [];
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The system's resolvers, with c-ares' own timeout and retries kept under our overall bound. */
function systemTxtResolver(timeoutMs = TXT_LOOKUP_TIMEOUT_MS): TxtResolver {
  return txtResolverFrom(async (name) => {
    const resolver = new Resolver({ timeout: Math.floor(timeoutMs / 3), tries: 2 });
    try {
      return await resolver.resolveTxt(name);
    } finally {
      resolver.cancel();
    }
  }, timeoutMs);
}

const normalizeName = (name: string) => name.toLowerCase().replace(/\.$/, '');

/**
 * LOCAL RUNTIME AND TESTS ONLY: answers from a JSON file, read again on every lookup, shaped
 * `{"<name>": "<record>" | ["<record>", ...]}`. A name missing from the file has no records; no
 * lookup ever leaves the machine. An unreadable or malformed file is an error (a test mistake, loud).
 */
export function fileTxtResolver(path: string): TxtResolver {
  return async (name) => {
    const overrides: unknown = JSON.parse(await readFile(path, 'utf8'));
    if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) {
      throw new Error(`${path} must hold a JSON object of name -> TXT record(s)`);
    }
    const wanted = normalizeName(name);
    for (const [key, value] of Object.entries(overrides)) {
      if (normalizeName(key) !== wanted) continue;
      const records: unknown[] = Array.isArray(value) ? value : [value];
      return records.filter((r): r is string => typeof r === 'string');
    }
    return [];
  };
}

let cached: TxtResolver | undefined;

/**
 * The resolver the API uses: the override file when HOOKGATE_DNS_TXT_OVERRIDES names one and the code
 * is not running in AWS Lambda (the variable is ignored there, so it can never bypass verification
 * in a deployment), else the system's resolvers.
 */
export function txtResolver(): TxtResolver {
  if (cached) return cached;
  const overrides = config().dnsTxtOverridesFile;
  const inLambda = Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME);
  if (overrides && inLambda) log.warn('HOOKGATE_DNS_TXT_OVERRIDES is ignored in AWS Lambda');
  cached = overrides && !inLambda ? fileTxtResolver(overrides) : systemTxtResolver();
  return cached;
}
