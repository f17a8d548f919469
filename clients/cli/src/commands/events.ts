import { Option, type Command } from 'commander';
import { HookgateError, type EventDetail, type EventListItem, type EventStatus, type Hookgate } from '../../../typescript/src/index.js';
import { connect } from '../connect.js';
import { CliError, describeError, EXIT } from '../exit.js';
import { eventDetailLines, eventLine, type DestinationNames } from '../format.js';
import type { Output } from '../output.js';
import { TailWindow } from '../tail.js';

const DIRECTIONS = ['inbound', 'outbound'] as const;
type Direction = (typeof DIRECTIONS)[number];
const STATUSES: readonly EventStatus[] = ['received', 'accepted', 'queued', 'delivering', 'delivered', 'retry_scheduled', 'dead_letter', 'replayed'];

/** The largest page the API gives. */
const PAGE = 200;

/**
 * Inbound and outbound events live under two paths, and an id asked on the wrong one is a 404; without
 * `--direction` the CLI asks inbound first, then outbound.
 */
export async function eitherDirection<T>(direction: Direction | undefined, id: string, ask: (direction: Direction) => Promise<T>): Promise<T> {
  for (const each of direction ? [direction] : DIRECTIONS) {
    try {
      return await ask(each);
    } catch (error) {
      if (!(error instanceof HookgateError && error.status === 404)) throw error;
    }
  }
  throw new CliError(EXIT.failed, `no ${direction ? `${direction} ` : ''}event ${id} in this account`);
}

/**
 * The account's destination names by id, asked once a run (one list, however many deliveries), to
 * show beside the ids. They only label what was already fetched, so a list the gateway does not answer
 * leaves the ids alone rather than failing the command; anything describeError does not know is a bug
 * and is thrown on.
 */
export async function destinationNames(hookgate: Hookgate): Promise<DestinationNames> {
  try {
    return new Map((await hookgate.destinations.list()).map((destination) => [destination.id, destination.name]));
  } catch (error) {
    describeError(error);
    return new Map();
  }
}

/** The body's bytes as the gateway stored them: inline (text or base64), or downloaded from its pre-signed URL. */
async function rawBody(event: EventDetail): Promise<Uint8Array> {
  if (event.body !== null) return Buffer.from(event.body, event.body_encoding === 'base64' ? 'base64' : 'utf8');
  if (!event.body_url) return new Uint8Array();
  const response = await fetch(event.body_url, { signal: AbortSignal.timeout(30_000) });
  if (!response.ok) throw new CliError(EXIT.unavailable, `the body's download answered ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

export const directionOption = () => new Option('--direction <direction>', 'inbound or outbound (default: try both)').choices(DIRECTIONS);

async function listSince(hookgate: Hookgate, direction: Direction, query: { status?: EventStatus; date_from: string }): Promise<EventListItem[]> {
  const list = direction === 'inbound' ? hookgate.events.all : hookgate.outboundEvents.all;
  const events: EventListItem[] = [];
  for await (const event of list({ ...query, limit: PAGE })) events.push(event);
  return events;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

interface TailOptions {
  direction?: Direction;
  status?: EventStatus;
  interval: string;
}

async function tail(output: Output, options: TailOptions): Promise<void> {
  const intervalMs = Number(options.interval) * 1000;
  if (!Number.isFinite(intervalMs) || intervalMs < 100) throw new CliError(EXIT.usage, '--interval must be a number of seconds, at least 0.1');
  // Ctrl-C is how a tail ends: exit 0, not the 130 of a killed process, and at once, a poll in
  // flight abandoned.
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  const hookgate = await connect(output, stop.signal);
  const directions = options.direction ? [options.direction] : DIRECTIONS;
  const window = new TailWindow({ startedAt: Date.now(), filtersByStatus: options.status !== undefined });

  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    let baseline = true;
    /** When the polls began to fail, while they do: the line that says the gateway is back names it. */
    let failingSince: string | undefined;
    while (!stop.signal.aborted) {
      try {
        const query = { status: options.status, date_from: window.since() };
        const listed = (await Promise.all(directions.map((direction) => listSince(hookgate, direction, query)))).flat();
        const fresh = window.take(listed);
        if (failingSince) output.note(`hookgate: ${hookgate.baseUrl} answers again (unreachable since ${failingSince}); following on, events created meanwhile included`);
        failingSince = undefined;
        if (!baseline) for (const event of fresh) output.result(event, () => [eventLine(event)]);
        if (baseline) output.note(`Following ${directions.join(' and ')} events${options.status ? ` with status ${options.status}` : ''} on ${hookgate.baseUrl} (Ctrl-C to stop)`);
        baseline = false;
      } catch (error) {
        if (stop.signal.aborted) break;
        // The first poll proves the connection; after it a restarting gateway or a network blip is
        // waited out rather than ending the tail. A refused key is not going to get better.
        const { exitCode, message } = describeError(error, hookgate.baseUrl, output.keySource);
        if (baseline || exitCode !== EXIT.unavailable) throw error;
        failingSince ??= new Date().toISOString();
        output.note(`hookgate: ${message}; trying again`);
      }
      await sleep(intervalMs, stop.signal);
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export function events(program: Command, output: Output): void {
  const group = program.command('events').description('follow and inspect events');

  group
    .command('tail')
    .description('print each new event as it arrives, one line each, until Ctrl-C')
    .addOption(new Option('--direction <direction>', 'inbound or outbound (default: both)').choices(DIRECTIONS))
    .addOption(new Option('--status <status>', 'only events with this status when polled').choices(STATUSES))
    .option('--interval <seconds>', 'seconds between polls', '2')
    .option('--json', 'print each event as one line of JSON (NDJSON)')
    .action((options: TailOptions) => tail(output, options));

  group
    .command('get')
    .description('show one event: its deliveries, attempts and body')
    .argument('<id>', 'the event id')
    .addOption(directionOption())
    .addOption(new Option('--raw', 'print only the body, byte for byte as sent, control characters and all (to a file or a pipe, for `hookgate verify`)').conflicts('json'))
    .option('--json', 'print the API\'s answer ({event, attempts}) as JSON')
    .action(async (id: string, options: { direction?: Direction; raw?: boolean }) => {
      const hookgate = await connect(output);
      const detail = await eitherDirection(options.direction, id, (direction) =>
        direction === 'inbound' ? hookgate.events.get(id) : hookgate.outboundEvents.get(id),
      );
      if (options.raw) return output.raw(await rawBody(detail.event));
      const names = !output.json && (detail.event.deliveries.length > 0 || detail.attempts.length > 0) ? await destinationNames(hookgate) : new Map<string, string>();
      output.result(detail, () => eventDetailLines(detail.event, detail.attempts, names));
    });
}
