import { createServer } from 'node:net';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { GatewayHandlers } from '../../local/gateway';
import { importHandlers } from '../../local/handlers';
import type { Call } from '../fixtures/http-client';
import type { Sink } from '../fixtures/sink';

/** Anything with an AWS SDK v3 middleware stack: a client (the document client shares its client's stack). */
interface HasMiddleware {
  middlewareStack: {
    add(middleware: unknown, options: { step: 'initialize'; name: string }): void;
    remove(name: string): boolean;
  };
}

type Input = Record<string, unknown>;

export interface Fault {
  /** How many calls the fault answered. */
  readonly hits: number;
  restore(): void;
}

let faults = 0;

/**
 * Intercepts the calls of one SDK client instance (the very one the in-process handlers use) at the
 * `initialize` step, before the SDK's own retries: `answer` returns a fake output, throws the error
 * AWS would, or returns undefined to let the call through. Other commands are untouched.
 */
export function injectFault(
  client: HasMiddleware,
  commands: string[],
  answer: (input: Input, pass: () => Promise<{ output: unknown }>) => Promise<unknown> | unknown,
): Fault {
  const name = `reliabilityFault${++faults}`;
  const state = { hits: 0 };
  client.middlewareStack.add(
    (next: (args: { input: Input }) => Promise<{ output: unknown }>, context: { commandName?: string }) =>
      async (args: { input: Input }) => {
        if (!commands.includes(context.commandName ?? '')) return next(args);
        state.hits++;
        const output = await answer(args.input, () => next(args));
        return output === undefined ? next(args) : { output, response: {} };
      },
    { step: 'initialize', name },
  );
  return {
    get hits() {
      return state.hits;
    },
    restore: () => void client.middlewareStack.remove(name),
  };
}

/** An AWS-shaped service error (name, fault, 5xx/4xx metadata), as the SDK would throw it. */
export function awsError(name: string, message: string, statusCode = 500): Error {
  return Object.assign(new Error(message), {
    name,
    $fault: statusCode >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: statusCode },
  });
}

/** The event ids a sink has received at least once (`X-Webhook-Id`), on one path or all. */
export function receivedIds(sink: Sink, path?: string): Set<string> {
  return new Set(
    // The event's own id: a replayed copy carries its original's in X-Webhook-Id.
    sink.received.filter((r) => (path === undefined || r.path === path) && r.headers['x-hookgate-event-id']).map((r) => String(r.headers['x-hookgate-event-id'])),
  );
}

/** A TCP server that counts connections and answers nothing: proof that nobody connected. */
export async function startTrap(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every item of a list endpoint, following `next_cursor`. */
export async function listAll(call: Call, key: string, path: string): Promise<Array<{ id: string; status: string }>> {
  const items: Array<{ id: string; status: string }> = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = await call('GET', `${path}${sep}limit=200${cursor ? `&cursor=${cursor}` : ''}`, { key });
    if (res.status !== 200) throw new Error(`list ${path}: ${res.status} ${res.text}`);
    items.push(...res.json.data);
    cursor = res.json.next_cursor ?? null;
  } while (cursor);
  return items;
}

type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

/**
 * The real handlers (as the gateway imports them: on first use, after it has set the environment),
 * with the deliver handler passed through `wrapDeliver` so a test can watch what it answers the poller.
 */
export function realHandlers(wrapDeliver: (real: SqsHandler) => SqsHandler): GatewayHandlers {
  let real: Promise<GatewayHandlers> | undefined;
  let deliver: Promise<SqsHandler> | undefined;
  const load = () => (real ??= importHandlers());
  const need = <T>(fn: T | undefined, name: string): T => {
    if (!fn) throw new Error(`no ${name} handler`);
    return fn;
  };
  return {
    api: async (event, context) => need((await load()).api, 'api')(event, context),
    ingest: async (event, context) => need((await load()).ingest, 'ingest')(event, context),
    deliver: async (event, context) => {
      deliver ??= load().then((handlers) => wrapDeliver(need(handlers.deliver, 'deliver')));
      return (await deliver)(event, context);
    },
  };
}

/**
 * Drops the error and warning lines a test provokes on purpose (matched by `expected`), so the report
 * shows what was not expected. Everything else still reaches the console. Returns how many were dropped.
 */
export function quietExpectedErrors(expected: RegExp[]): { dropped: () => number; restore: () => void } {
  const original = { error: console.error, warn: console.warn };
  let dropped = 0;
  const filter =
    (print: (...args: unknown[]) => void) =>
    (...args: unknown[]) => {
      const text = args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? a.message : '')).join(' ');
      if (expected.some((pattern) => pattern.test(text))) dropped++;
      else print(...args);
    };
  console.error = filter(original.error.bind(console));
  console.warn = filter(original.warn.bind(console));
  return {
    dropped: () => dropped,
    restore: () => {
      console.error = original.error;
      console.warn = original.warn;
    },
  };
}
