import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { HookgateError, verifyWebhook, type Hookgate, type ListenSession } from '../../../typescript/src/index.js';
import type { ListenReply, ListenRequest } from '../../../../lambdas/domain/listen.js';
import { checkApiKey, normaliseUrl } from '../config.js';
import { clientFor } from '../connect.js';
import { CliError, describeError, EXIT, type ExitCode } from '../exit.js';
import type { Output } from '../output.js';
import { terminalLine } from '../sanitise.js';
import { DEFAULT_KEEP_ALIVE_SECONDS, serve, sessionSocketUrl } from './listen.js';

interface SmokeOptions {
  url: string;
  key?: string;
  timeout: string;
}

/** One step as printed: a line, or one JSON document with `--json`. */
interface StepResult {
  step: string;
  ok: true;
  ms: number;
  detail: string;
}

const DEFAULT_TIMEOUT_SECONDS = 60;
const POLL_MS = 250;
const EVENT_TYPE = 'smoke.test';
const INTERRUPTED = 'interrupted (SIGINT or SIGTERM)';

/** `--timeout`: how long a step waits for the gateway to do something (a delivery, an export); an hour at most, which a timer can count. */
function timeoutMs(seconds: string): number {
  const ms = Number(seconds) * 1000;
  if (!(ms >= 1000 && ms <= 3_600_000)) throw new CliError(EXIT.usage, `--timeout must be a number of seconds from 1 to 3600`);
  return ms;
}

/** How long a step waits for the gateway, and the signal of a Ctrl-C, which ends the wait at once. */
interface Wait {
  ms: number;
  interrupted: AbortSignal;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** Polls `probe` until it answers something, or fails with what `late` says once the wait is over (the step's line gives the time). */
async function within<T>(wait: Wait, probe: () => Promise<T | undefined>, late: () => Promise<string>): Promise<T> {
  const deadline = Date.now() + wait.ms;
  while (!wait.interrupted.aborted) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() >= deadline) throw new CliError(EXIT.failed, await late());
    await sleep(POLL_MS, wait.interrupted);
  }
  throw new CliError(EXIT.failed, INTERRUPTED);
}

/**
 * The smoke's own receiver on its listen session: a try whose signature verifies with the session's
 * secret is answered 200 and remembered; any other is answered 401, and remembered as a failure.
 */
class SignedReceiver {
  readonly verified = new Set<string>();
  readonly refused = new Map<string, string>();
  #secret: string;

  constructor(secret: string) {
    this.#secret = secret;
  }

  async answer(request: ListenRequest): Promise<ListenReply> {
    const ok = verifyWebhook(Buffer.from(request.body_base64, 'base64'), request.headers, this.#secret);
    if (ok) this.verified.add(request.event_id);
    else this.refused.set(request.event_id, request.headers['webhook-signature'] ?? '(no webhook-signature header)');
    return { action: 'response', request_id: request.request_id, status: ok ? 200 : 401, headers: {}, body: ok ? 'verified' : 'signature does not verify' };
  }
}

/** What the gateway says of an event that did not arrive: its status, its deliveries and its last attempt. */
async function eventState(hookgate: Hookgate, id: string): Promise<string> {
  const { event, attempts } = await hookgate.events.get(id);
  const deliveries = event.deliveries.map((d) => `${d.status} after ${d.attempts} attempt(s)${d.end_reason ? ` (${d.end_reason})` : ''}`);
  const last = attempts.at(-1);
  const state = `the gateway has it ${event.status}, delivery ${deliveries.join('; ') || 'none planned'}`;
  if (!last) return `${state}; no try was made: is the deliver function taking the delivery queue's messages? (docs/operations.md, delivery-queue-stuck)`;
  return `${state}; last attempt: ${last.outcome}${last.response_status ? ` ${last.response_status}` : ''}${last.error ? `, ${last.error}` : ''}`;
}

/** Waits until the receiver has a verified try of `id` and the gateway calls the event delivered. */
async function delivered(hookgate: Hookgate, receiver: SignedReceiver, id: string, wait: Wait): Promise<void> {
  await within(
    wait,
    async () => {
      const refused = receiver.refused.get(id);
      if (refused !== undefined) throw new CliError(EXIT.failed, `a try of ${id} arrived with a signature that does not verify with the session's secret: ${refused}`);
      if (!receiver.verified.has(id)) return undefined;
      const { event } = await hookgate.events.get(id);
      return event.status === 'delivered' ? true : undefined;
    },
    async () => `no verified delivery of event ${id} within ${wait.ms / 1000} s: ${await eventState(hookgate, id)}`,
  );
}

/** An error's exit code and line, as for any command; one no command expects (an answer that is not JSON) is a failed step too. */
function described(error: unknown, output: Output): { exitCode: ExitCode; message: string } {
  try {
    return describeError(error, output.gateway, output.keySource);
  } catch {
    return { exitCode: EXIT.failed, message: (error as Error).message };
  }
}

/** Runs the steps in order, prints each, and on the first failure stops with the step's name. */
class Steps {
  constructor(
    private readonly output: Output,
    private readonly interrupted: AbortSignal,
  ) {}

  async run<T>(step: string, action: () => Promise<{ value: T; detail: string }>): Promise<T> {
    const startedAt = performance.now();
    try {
      if (this.interrupted.aborted) throw new CliError(EXIT.failed, INTERRUPTED);
      const { value, detail } = await action();
      this.print(step, startedAt, detail);
      return value;
    } catch (error) {
      const ms = Math.round(performance.now() - startedAt);
      // A request cut short by the interruption is no failure of the gateway's.
      const { exitCode, message } = this.interrupted.aborted ? { exitCode: EXIT.failed, message: INTERRUPTED } : described(error, this.output);
      throw new CliError(exitCode, `smoke failed at ${step} after ${ms} ms: ${message}`);
    }
  }

  print(step: string, startedAt: number, detail: string): void {
    const result: StepResult = { step, ok: true, ms: Math.round(performance.now() - startedAt), detail };
    this.output.result(result, () => [`ok  ${step.padEnd(8)} ${String(result.ms).padStart(6)} ms  ${detail}`]);
  }
}

/** What the smoke made, to remove when it ends, however it ends. */
interface Made {
  account?: { id: string; keyId: string; retentionDays: number };
  sourceId?: string;
  session?: ListenSession;
  closeSocket?: () => Promise<void>;
}

async function cleanup(hookgate: Hookgate, made: Made, steps: Steps): Promise<void> {
  const startedAt = performance.now();
  const removed: string[] = [];
  const problems: string[] = [];
  const attempt = async (what: string, action: () => Promise<void>) => {
    try {
      await action();
      removed.push(what);
    } catch (error) {
      problems.push(`${what}: ${error instanceof HookgateError ? `${error.status} ${error.message}` : (error as Error).message}`);
    }
  };
  await made.closeSocket?.();
  const session = made.session;
  if (session) await attempt(`listen session (destination ${terminalLine(session.destination_id)} and its route)`, () => hookgate.listenSessions.close(session.session_id));
  const sourceId = made.sourceId;
  if (sourceId) await attempt(`source ${terminalLine(sourceId)}`, async () => void (await hookgate.request('deleteSource', { params: { id: sourceId } })));
  const account = made.account;
  if (account) await attempt(`the account's API key`, () => hookgate.apiKeys.revoke(account.keyId));
  const kept = account
    ? `account ${terminalLine(account.id)} stays (the API deletes no account; nothing can use it with its key revoked), its events until its retention (${account.retentionDays} day(s))`
    : `its events stay until the account's retention (the API deletes no event)`;
  if (problems.length > 0) throw new CliError(EXIT.failed, `could not remove ${problems.join('; ')}`);
  steps.print('cleanup', startedAt, `removed ${removed.join(', ') || 'nothing'}; ${kept}`);
}

/** The account the smoke runs in: the one of `--key`, or a new one (then removed as far as the API allows). */
async function account(url: string, key: string | undefined, made: Made, output: Output, stop: AbortSignal): Promise<{ value: string; detail: string }> {
  if (key) {
    output.keySource = { from: 'option' };
    const hookgate = clientFor(url, key, stop);
    const account = await hookgate.account.get();
    return { value: key, detail: `using account ${terminalLine(account.id)} (--key)` };
  }
  let created;
  try {
    created = await clientFor(url, undefined, stop).accounts.create({ name: 'hookgate smoke' });
  } catch (error) {
    // A deployment with `-c signup=closed` answers 403: the smoke then needs an account's key.
    if (error instanceof HookgateError && error.status === 403) throw new CliError(EXIT.config, `${error.status} ${error.message}; give an account's key with --key`);
    throw error;
  }
  const { account: created_account, api_key } = created;
  made.account = { id: created_account.id, keyId: api_key.id, retentionDays: created_account.retention_days };
  return { value: api_key.key, detail: `created account ${terminalLine(created_account.id)}` };
}

/** Posts the smoke's webhook to the source's ingest URL, as a provider would; answers the event id. */
async function ingest(ingestUrl: string, subject: string, stop: AbortSignal): Promise<string> {
  const response = await fetch(ingestUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-event-type': EVENT_TYPE },
    body: JSON.stringify({ smoke: true, subject }),
    redirect: 'manual',
    signal: AbortSignal.any([AbortSignal.timeout(30_000), stop]),
  });
  const text = await response.text();
  if (response.status !== 202) throw new CliError(response.status >= 500 ? EXIT.unavailable : EXIT.failed, `the ingest URL answered ${response.status} ${text}`);
  const id = (JSON.parse(text) as { data?: { id?: unknown } }).data?.id;
  if (typeof id !== 'string') throw new CliError(EXIT.failed, `the ingest URL answered 202 without an event id: ${text}`);
  return id;
}

/** Downloads a ready export through its pre-signed URL and checks the events are in it. */
async function exported(hookgate: Hookgate, ids: readonly string[], since: string, wait: Wait): Promise<string> {
  const job = await hookgate.exports.create({ format: 'json', filters: { direction: 'inbound', date_from: since } });
  const ready = await within(
    wait,
    async () => {
      const current = await hookgate.exports.get(job.id);
      if (current.status === 'failed') throw new CliError(EXIT.failed, `export ${job.id} failed: ${current.error_message ?? ''}`);
      return current.status === 'ready' ? current : undefined;
    },
    async () => `export ${job.id} not ready within ${wait.ms / 1000} s: it is ${(await hookgate.exports.get(job.id)).status}`,
  );
  const file = await fetch(await hookgate.exports.downloadUrl(job.id), { signal: AbortSignal.timeout(30_000) });
  const text = await file.text();
  if (!file.ok) throw new CliError(EXIT.failed, `the export's pre-signed URL answered ${file.status} ${text}`);
  const rows = JSON.parse(text) as { id: string }[];
  const missing = ids.filter((id) => !rows.some((row) => row.id === id));
  if (missing.length > 0) throw new CliError(EXIT.failed, `export ${job.id} (${rows.length} rows) lacks ${missing.join(', ')}`);
  return `export ${terminalLine(job.id)} downloaded through its pre-signed URL: ${terminalLine(String(ready.row_count ?? rows.length))} row(s), the event and its replay among them`;
}

/** Erases the smoke's subject and checks both events are tombstones. */
async function erased(hookgate: Hookgate, subject: string, ids: readonly string[], wait: Wait): Promise<string> {
  const erasure = await hookgate.erasures.create(subject);
  const done = await within(
    wait,
    async () => {
      const current = await hookgate.erasures.get(erasure.id);
      return current.status === 'done' ? current : undefined;
    },
    async () => `erasure ${erasure.id} not done within ${wait.ms / 1000} s: it is ${(await hookgate.erasures.get(erasure.id)).status}`,
  );
  for (const id of ids) {
    const { event } = await hookgate.events.get(id);
    if (!event.payload_erased) throw new CliError(EXIT.failed, `erasure ${erasure.id} is done but event ${id} still has its payload`);
  }
  return `erasure ${terminalLine(erasure.id)} done: ${terminalLine(String(done.events))} event(s) emptied`;
}

async function smoke(options: SmokeOptions, output: Output): Promise<void> {
  const url = normaliseUrl(options.url);
  const key = options.key && checkApiKey(options.key);
  const waitMs = timeoutMs(options.timeout);
  if (typeof WebSocket !== 'function') throw new CliError(EXIT.failed, `smoke needs Node 22 or later (its built-in WebSocket, for the listen step); this is Node ${process.versions.node}`);
  output.gateway = url;
  // A Ctrl-C ends the step under way, and the cleanup still runs: nothing the smoke made is left behind.
  const interrupt = new AbortController();
  const onSignal = () => interrupt.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const wait: Wait = { ms: waitMs, interrupted: interrupt.signal };
  const steps = new Steps(output, interrupt.signal);
  const made: Made = {};
  let apiKey: string | undefined;
  let failure: unknown;
  try {
    apiKey = await steps.run('account', () => account(url, key, made, output, interrupt.signal));
    const client = clientFor(url, apiKey, interrupt.signal);
    const socketKey = apiKey;
    // The payload's subject, which the erasure step erases by: random, so it names nothing else of the account's.
    const subject = `hookgate-smoke-${randomBytes(12).toString('hex')}`;
    const source = await steps.run('source', async () => {
      const created = await client.sources.create({ name: 'hookgate smoke', subject_pointer: '/subject' });
      made.sourceId = created.id;
      return { value: created, detail: `created source ${terminalLine(created.id)}` };
    });
    const receiver = await steps.run('listen', async () => {
      const session = await client.listenSessions.open({ session_id: `smoke-${randomBytes(16).toString('base64url')}`, source_id: source.id });
      made.session = session;
      const socketUrl = sessionSocketUrl(url, session);
      const signed = new SignedReceiver(session.signing_secret);
      const stop = new AbortController();
      let settle: (opened: boolean) => void = () => undefined;
      const receive = { keepAliveMs: DEFAULT_KEEP_ALIVE_SECONDS * 1000, opened: () => settle(true), answer: (request: ListenRequest) => signed.answer(request) };
      const connection = serve(socketUrl, socketKey, receive, stop.signal);
      made.closeSocket = async () => {
        stop.abort();
        await connection;
      };
      const opened = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => settle(false), waitMs);
        settle = (open) => {
          clearTimeout(timer);
          resolve(open);
        };
        interrupt.signal.addEventListener('abort', () => settle(false), { once: true });
        void connection.then(() => settle(false));
      });
      if (!opened) throw new CliError(EXIT.unavailable, `cannot connect to ${session.websocket_url ?? ''} (within ${waitMs / 1000} s)`);
      return { value: signed, detail: `session ${terminalLine(session.session_id)} connected (destination ${terminalLine(session.destination_id)})` };
    });
    const eventId = await steps.run('ingest', async () => {
      const id = await ingest(source.ingest_url, subject, interrupt.signal);
      return { value: id, detail: `event ${terminalLine(id)} accepted (202)` };
    });
    await steps.run('delivery', async () => {
      await delivered(client, receiver, eventId, wait);
      return { value: undefined, detail: `event ${terminalLine(eventId)} delivered, its signature verified` };
    });
    const replayId = await steps.run('replay', async () => {
      const { replay_event_id } = await client.events.replay(eventId);
      await delivered(client, receiver, replay_event_id, wait);
      return { value: replay_event_id, detail: `copy ${terminalLine(replay_event_id)} delivered, its signature verified` };
    });
    await steps.run('export', async () => {
      const { event } = await client.events.get(eventId);
      return { value: undefined, detail: await exported(client, [eventId, replayId], event.created_at, wait) };
    });
    await steps.run('erasure', async () => ({ value: undefined, detail: await erased(client, subject, [eventId, replayId], wait) }));
  } catch (error) {
    failure = error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (apiKey) {
    try {
      // A client of its own: the steps' one is aborted by an interruption.
      await cleanup(clientFor(url, apiKey), made, steps);
    } catch (error) {
      // The first failure is the one to act on; what could not be removed is said beside it.
      if (failure === undefined) throw new CliError(EXIT.failed, `smoke failed at cleanup: ${(error as Error).message}`);
      output.note(`hookgate: cleanup: ${(error as Error).message}`);
    }
  }
  if (failure !== undefined) throw failure;
}

export function smokeCommand(program: Command, output: Output): void {
  program
    .command('smoke')
    .description('check a deployed gateway end to end: account, source, listen, ingest, signed delivery, replay, export, erasure; then remove what it made')
    .requiredOption('--url <url>', "the gateway's base URL (the Service stack's ApiUrl output)")
    .option('--key <key>', "an account's API key (hk_…) to run in; without it the smoke creates an account")
    .option('--timeout <seconds>', 'how long a step waits for the gateway (a delivery, an export, an erasure)', String(DEFAULT_TIMEOUT_SECONDS))
    .option('--json', 'print each step as one line of JSON (NDJSON): {"step", "ok", "ms", "detail"}')
    .action((options: SmokeOptions) => smoke(options, output));
}
