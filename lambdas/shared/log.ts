import { AsyncLocalStorage } from 'node:async_hooks';
import { LogLevelThreshold, Logger, type LogItem } from '@aws-lambda-powertools/logger';

/**
 * Structured logs through a Powertools Logger. Callers pass ids and counts, never bodies, headers,
 * secrets or keys.
 *
 * - In AWS Lambda: one JSON object per line, with the Lambda context (`function_request_id`,
 *   `cold_start`, `xray_trace_id`…, injected per invocation by `injectLambdaContext`), the
 *   invocation's keys (`account_id`, `api_request_id`…) and the call's fields.
 * - Anywhere else (the local runtime, tests, scripts): one human-readable line,
 *   `12:00:01 INFO delivery attempt account_id=… outcome=success`.
 */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

/** Running as a deployed Lambda function, as opposed to the local runtime (HOOKGATE_LOCAL=1), tests and scripts. */
export function runningInLambda(): boolean {
  return Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME) && process.env.HOOKGATE_LOCAL !== '1';
}

type LevelName = keyof typeof LogLevelThreshold;

/**
 * HOOKGATE_LOG_LEVEL (debug | info | warn | error), else POWERTOOLS_LOG_LEVEL, else info. Read on each call,
 * so tests and the local runtime can set it late.
 */
function configuredLevel(): LevelName {
  const configured = (process.env.HOOKGATE_LOG_LEVEL || process.env.POWERTOOLS_LOG_LEVEL || 'info').toUpperCase();
  return configured in LogLevelThreshold ? (configured as LevelName) : 'INFO';
}

/** Debug output asked for (HOOKGATE_LOG_LEVEL=debug or lower). */
export function debugLogging(): boolean {
  return LogLevelThreshold[configuredLevel()] <= LogLevelThreshold.DEBUG;
}

/** Attributes of a Powertools log item that a developer reading the local runtime's output does not need. */
const LAMBDA_ONLY = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'sampling_rate',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'xray_trace_id',
  'tenant_id',
]);

const plain = /^[^\s"=]+$/;
function formatValue(value: unknown): string {
  if (typeof value === 'string') return plain.test(value) ? value : JSON.stringify(value);
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The same logger, printing `HH:MM:SS LEVEL message key=value …` lines through the global console. */
class ReadableLogger extends Logger {
  protected override printLog(logLevel: number, item: LogItem): void {
    item.prepareForPrint();
    const attributes = item.getAttributes();
    const level = String(attributes.level ?? '');
    const parts = [String(attributes.timestamp ?? '').slice(11, 19), level, String(attributes.message ?? '')];
    for (const [key, value] of Object.entries(attributes)) {
      if (LAMBDA_ONLY.has(key) || value === undefined) continue;
      if (value instanceof Error) {
        parts.push(`${key}=${formatValue(`${value.name}: ${value.message}`)}`);
        const at = /\(?([^()\s]+:\d+:\d+)\)?\s*$/.exec(value.stack?.split('\n')[1] ?? '')?.[1];
        if (at) parts.push(`at=${at}`);
        continue;
      }
      parts.push(`${key}=${formatValue(value)}`);
    }
    const line = parts.join(' ');
    if (logLevel >= LogLevelThreshold.ERROR) console.error(line);
    else if (logLevel >= LogLevelThreshold.WARN) console.warn(line);
    else console.info(line);
  }
}

let instance: Logger | undefined;

/** The process's Powertools Logger (for `injectLambdaContext`); created on first use, in the mode of that moment. */
export function logger(): Logger {
  if (!instance) {
    const options = {
      serviceName: process.env.POWERTOOLS_SERVICE_NAME || process.env.AWS_LAMBDA_FUNCTION_NAME || 'hookgate',
      logLevel: configuredLevel(),
    };
    instance = runningInLambda() ? new Logger(options) : new ReadableLogger(options);
  }
  return instance;
}

/**
 * Keys that every line of one invocation carries (its account once known, the API request id…).
 * Kept per asynchronous context, not on the shared logger: the local runtime runs many invocations
 * at once in one process, and the deliver function many records at once in one invocation.
 */
const scope = new AsyncLocalStorage<LogFields>();

/** Runs `fn` with log keys of its own (an invocation, a record of a batch), on top of the enclosing ones. */
export function withLogKeys<T>(fields: LogFields, fn: () => T): T {
  return scope.run({ ...scope.getStore(), ...fields }, fn);
}

/** Adds keys to every later line of the current invocation (or record); nothing outside one. */
export function appendLogKeys(fields: LogFields): void {
  const store = scope.getStore();
  if (store) Object.assign(store, fields);
}

/** Name, message and stack only: no SDK response metadata, no causes, nothing a library hung on the error. */
function loggedError(error: unknown): Error {
  if (!(error instanceof Error)) return Object.assign(new Error(String(error)), { name: 'NonError', stack: undefined });
  return Object.assign(new Error(error.message), { name: error.name, stack: error.stack });
}

type Method = 'info' | 'warn' | 'error';

function write(method: Method, message: string, fields: LogFields, error?: unknown): void {
  const target = logger();
  const level = configuredLevel();
  if (target.getLevelName() !== level) target.setLogLevel(level);
  const keys = { ...scope.getStore(), ...fields };
  target[method](message, error === undefined ? keys : { ...keys, error: loggedError(error) });
}

export const log = {
  info: (message: string, fields: LogFields = {}) => write('info', message, fields),
  warn: (message: string, fields: LogFields = {}, error?: unknown) => write('warn', message, fields, error),
  error: (message: string, fields: LogFields = {}, error?: unknown) => write('error', message, fields, error),
};
