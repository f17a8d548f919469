import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import type { ListenSession } from '../../../typescript/src/index.js';
import {
  isListenRequest,
  KEEP_ALIVE_MESSAGE,
  LISTEN_MAX_RESPONSE_BODY_BYTES,
  SESSION_ID_PATTERN,
  truncateUtf8,
  WEBSOCKET_IDLE_TIMEOUT_MS,
  type ListenReply,
  type ListenRequest,
} from '../../../../lambdas/domain/listen.js';
import { checkApiKey, normaliseUrl, readConfig, resolveConnection } from '../config.js';
import { clientFor, userConfigPath } from '../connect.js';
import { CliError, EXIT } from '../exit.js';
import type { Output } from '../output.js';
import { terminalLine } from '../sanitise.js';

interface ListenOptions {
  events?: string;
  source?: string;
  customer?: string;
  keepAlive: string;
  printSecret?: boolean;
}

/** What one delivery did, as printed: one line, or one JSON document with `--json`. */
interface Delivered {
  time: string;
  event_id: string;
  event_type: string | null;
  attempt: number;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

/** Headers fetch sets itself (or refuses), so they are not copied onto the local request. */
const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade']);
/** Pauses between attempts to reconnect, the last repeated. */
const RECONNECT_MS = [500, 1000, 2000, 5000, 10_000];
/**
 * Seconds between keep-alive messages: half of API Gateway's 10-minute idle timeout, so that one late
 * timer (a busy or suspended machine) still lands inside it, at a cost of 12 messages an hour. A proxy
 * that closes idle connections sooner needs `--keep-alive` lower.
 */
export const DEFAULT_KEEP_ALIVE_SECONDS = 300;

/** A keep-alive period that can keep a connection open: some, and under API Gateway's idle timeout. */
function keepAliveMs(seconds: string): number {
  const ms = Number(seconds) * 1000;
  const limit = WEBSOCKET_IDLE_TIMEOUT_MS / 1000;
  if (!(ms >= 100 && ms < WEBSOCKET_IDLE_TIMEOUT_MS)) throw new CliError(EXIT.usage, `--keep-alive must be a number of seconds from 0.1 to under ${limit} (API Gateway closes a connection idle for ${limit})`);
  return ms;
}

/** `3000` is `http://127.0.0.1:3000`; anything else must be an http(s) URL. */
function localTarget(value: string): string {
  if (/^\d{1,5}$/.test(value)) {
    const port = Number(value);
    if (port < 1 || port > 65_535) throw new CliError(EXIT.usage, `PORT_OR_URL: ${value} is not a port (1 to 65535)`);
    return `http://127.0.0.1:${port}`;
  }
  return normaliseUrl(value, 'PORT_OR_URL');
}

const LOOPBACK = new Set(['localhost', '[::1]', '0.0.0.0', '[::]']);
const defaultPort = (url: URL) => (url.protocol === 'https:' || url.protocol === 'wss:' ? '443' : '80');

/** Whether two URLs reach the same server: the same port, on the same host or both on this machine. */
export function sameServer(a: string, b: string): boolean {
  const [x, y] = [new URL(a), new URL(b)];
  const host = (url: URL) => (LOOPBACK.has(url.hostname) || url.hostname.startsWith('127.') ? 'this machine' : url.hostname);
  return (x.port || defaultPort(x)) === (y.port || defaultPort(y)) && host(x) === host(y);
}

/**
 * The session id of this gateway and local target, kept in the config directory (0600): a listen that
 * is started again after a crash or a lost connection resumes the same destination, and the deliveries
 * that waited for it as retries reach it.
 */
async function sessionIdFor(configPath: string, gateway: string, target: string): Promise<{ id: string; file: string }> {
  const dir = join(dirname(configPath), 'listen');
  const file = join(dir, `${createHash('sha256').update(`${gateway}|${target}`).digest('hex').slice(0, 16)}.json`);
  try {
    const saved = JSON.parse(await readFile(file, 'utf8')) as { session_id?: unknown };
    if (typeof saved.session_id === 'string' && SESSION_ID_PATTERN.test(saved.session_id)) return { id: saved.session_id, file };
  } catch {
    // None yet (or unreadable): a new session.
  }
  const id = randomBytes(16).toString('base64url');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  await writeFile(file, `${JSON.stringify({ session_id: id, gateway, target })}\n`, { mode: 0o600 });
  return { id, file };
}

/** Sends one try to the local server and answers what it said (or why it could not). */
async function forward(target: string, request: ListenRequest): Promise<ListenReply> {
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !HOP_HEADERS.has(name.toLowerCase())));
  try {
    const response = await fetch(target, {
      method: request.method,
      headers,
      body: Buffer.from(request.body_base64, 'base64'),
      redirect: 'manual',
      signal: AbortSignal.timeout(Math.max(100, request.timeout_ms - 250)),
    });
    const body = truncateUtf8(await response.text(), LISTEN_MAX_RESPONSE_BODY_BYTES);
    return { action: 'response', request_id: request.request_id, status: response.status, headers: Object.fromEntries(response.headers), body };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = (error as Error).name === 'TimeoutError' ? `no answer from ${target} in time` : `${target}: ${cause?.code ?? cause?.message ?? (error as Error).message}`;
    return { action: 'response', request_id: request.request_id, error: reason };
  }
}

const line = (d: Delivered) =>
  [d.time, terminalLine(d.event_type ?? '-').padEnd(24), terminalLine(d.event_id), `#${d.attempt}`, d.status === null ? `error: ${terminalLine(d.error ?? '')}` : String(d.status), `${d.duration_ms} ms`].join('  ');

/** What answers the tries a listen session's WebSocket carries: `listen` forwards them to a local server, `smoke` checks them itself. */
interface Receiver {
  answer(request: ListenRequest): Promise<ListenReply>;
  /** Called once the connection is open. */
  opened(): void;
  /** Ms between keep-alive messages. */
  keepAliveMs: number;
}

/** Where a session's WebSocket is, for a gateway that has one. */
export function sessionSocketUrl(gateway: string, session: ListenSession): string {
  if (!session.websocket_url) throw new CliError(EXIT.failed, `${gateway} has no hookgate listen endpoint (websocket_url is null)`);
  return `${session.websocket_url}?session=${encodeURIComponent(session.session_id)}`;
}

/**
 * One WebSocket connection, until it closes or `stop` aborts: each request is answered with what the
 * receiver says, and a keep-alive message goes every `keepAliveMs`. Resolves whether it ever opened.
 */
export function serve(url: string, apiKey: string, receiver: Receiver, stop: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    // Node's WebSocket (undici) takes headers beside the protocols: the key stays out of the URL.
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${apiKey}` } } as unknown as string[]);
    let opened = false;
    let keepingAlive: NodeJS.Timeout | undefined;
    const onStop = () => ws.close(1000);
    stop.addEventListener('abort', onStop, { once: true });
    ws.addEventListener('open', () => {
      opened = true;
      keepingAlive = setInterval(() => {
        if (ws.readyState === ws.OPEN) ws.send(KEEP_ALIVE_MESSAGE);
      }, receiver.keepAliveMs);
      receiver.opened();
    });
    ws.addEventListener('message', (message: MessageEvent) => {
      let request: unknown;
      try {
        request = JSON.parse(String(message.data));
      } catch {
        return;
      }
      if (!isListenRequest(request)) return;
      void receiver.answer(request).then((reply) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(reply));
      });
    });
    ws.addEventListener('close', () => {
      clearInterval(keepingAlive);
      stop.removeEventListener('abort', onStop);
      resolve(opened);
    });
  });
}

/** `listen`'s receiver: each try forwarded to the local server, and one line printed of what it did. */
function forwarder(target: string, keepAliveMs: number, output: Output): Receiver {
  return {
    keepAliveMs,
    opened: () => output.note(`Connected; forwarding deliveries to ${target} (Ctrl-C to stop)`),
    answer: async (request) => {
      const startedAt = performance.now();
      const reply = await forward(target, request);
      const delivered: Delivered = {
        time: new Date().toISOString(),
        event_id: request.event_id,
        event_type: request.event_type,
        attempt: request.attempt,
        status: reply.status ?? null,
        error: reply.error ?? null,
        duration_ms: Math.round(performance.now() - startedAt),
      };
      output.result(delivered, () => [line(delivered)]);
      return reply;
    },
  };
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

async function listen(target: string, options: ListenOptions, output: Output): Promise<void> {
  const local = localTarget(target);
  const keepAlive = keepAliveMs(options.keepAlive);
  if (!options.printSecret && typeof WebSocket !== 'function') throw new CliError(EXIT.failed, `listen needs Node 22 or later (its built-in WebSocket); this is Node ${process.versions.node}`);
  const path = userConfigPath();
  const { url, apiKey, keySource } = resolveConnection(process.env, await readConfig(path), path);
  checkApiKey(apiKey);
  output.gateway = url;
  output.keySource = keySource;
  const hookgate = clientFor(url, apiKey);
  const { id, file } = await sessionIdFor(path, url, local);
  const session: ListenSession = await hookgate.listenSessions.open({
    session_id: id,
    event_type_pattern: options.events ?? null,
    source_id: options.source ?? null,
    customer: options.customer ?? null,
  });
  // `listen 3000` under `npm start` would send every delivery back into the gateway. Warned, not
  // refused: behind a proxy the same host and port can lead elsewhere by path.
  const own = [url, session.websocket_url].find((gateway) => gateway && sameServer(local, gateway));
  if (own) output.note(`hookgate: warning: ${local} is the gateway's own address (${own}): deliveries would go to the gateway, not to your app; give the port or URL your app listens on`);
  if (options.printSecret) {
    // The session stays open, so a `hookgate listen` of the same target resumes it with this secret.
    output.result({ signing_secret: session.signing_secret }, () => [session.signing_secret]);
    return;
  }
  const websocketUrl = sessionSocketUrl(url, session);
  const filters = [`events ${session.event_type_pattern ?? '*'}`, session.source_id && `source ${session.source_id}`, session.customer && `customer ${session.customer}`].filter(Boolean).join(', ');
  output.note(`${session.resumed ? 'Resumed' : 'Opened'} listen session ${id} (destination ${session.destination_id}; ${filters})`);
  output.note(`Signing secret: ${session.signing_secret} (verify deliveries with it)`);

  const receiver = forwarder(local, keepAlive, output);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    let failures = 0;
    let everOpened = false;
    while (!stop.signal.aborted) {
      // API Gateway ends every connection after 2 hours, whatever it carries: that close is one more to reconnect after.
      const opened = await serve(websocketUrl, apiKey, receiver, stop.signal);
      if (stop.signal.aborted) break;
      everOpened ||= opened;
      // A first connection that never opens is a refused key or a gateway without listen: say so.
      if (!everOpened) throw new CliError(EXIT.unavailable, `cannot connect to ${session.websocket_url}`);
      failures = opened ? 0 : failures + 1;
      const pause = RECONNECT_MS[Math.min(failures, RECONNECT_MS.length - 1)] ?? 10_000;
      const what = opened ? 'disconnected' : 'could not reconnect';
      output.note(`hookgate: ${what}; trying again in ${pause / 1000} s (deliveries wait as retries meanwhile)`);
      await sleep(pause, stop.signal);
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  // Ended by the user: the route and destination go, and so does the session.
  await hookgate.listenSessions.close(id);
  await rm(file, { force: true });
  output.note(`Closed listen session ${id}: its route and destination are removed`);
}

export function listenCommand(program: Command, output: Output): void {
  program
    .command('listen')
    .description('deliver events to a local port or URL through the gateway, until Ctrl-C')
    .argument('<port-or-url>', 'a local port (http://127.0.0.1:PORT) or an http(s) URL')
    .option('--events <pattern>', 'only events of this type, or of types starting with the text before a trailing * (default: every type)')
    .option('--source <id>', 'only events of this source')
    .option('--customer <id>', 'only outbound events addressed to this customer')
    .option('--keep-alive <seconds>', 'seconds between the messages that keep an idle connection open (under 600)', String(DEFAULT_KEEP_ALIVE_SECONDS))
    .option('--print-secret', 'open or resume the session, print its signing secret and exit, leaving the session open for a later listen of the same target')
    .option('--json', 'print each delivery as one line of JSON (NDJSON); with --print-secret, {"signing_secret"}')
    .action((target: string, options: ListenOptions) => listen(target, options, output));
}
