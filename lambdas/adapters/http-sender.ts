import type { LookupAddress, LookupOptions } from 'node:dns';
import type { Agent as HttpAgent, AgentOptions, ClientRequest } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { checkDestinationUrl, isForbiddenAddress } from '../domain/address-policy';
import { resolveHost, type Resolver } from './dns';
import type { AttemptOutcome } from '../domain/vocabulary';

// Not `import http from 'node:http'`: an ESM import of node:http reads every export of the module,
// WebSocket among them, which loads Node's bundled undici at every cold start of the deliver function
// (measured: the largest single cost of its import). The module itself is the same.
const http = process.getBuiltinModule('node:http');

// Delivers one webhook to a customer URL with an SSRF guard, one deadline and a capped response body.
// Modelled on svix's webhook_http_client: every resolved address is checked (IPv4-mapped IPv6 is
// refused whole by the address policy), the socket connects only to the checked addresses (no second
// DNS lookup, so DNS rebinding cannot swap the answer), and redirects are never followed.
// Nothing here logs: headers and bodies carry signatures and customer secrets.

type DeliveryOutcome = AttemptOutcome;

export interface DeliveryRequest {
  url: string;
  /** Sent as given (the caller sets content-type, signature, user-agent, auth); content-length is ours. */
  headers: Record<string, string>;
  body: Buffer;
  /**
   * How long the try may take once its request is on the wire (it has a connected socket, new or
   * pooled): sending it, the response headers, reading the captured body. Getting there (DNS, a free
   * pooled connection, connect) has a budget of its own: the same, at most CONNECT_BUDGET_MS.
   */
  timeoutMs: number;
  /** HOOKGATE_ALLOW_PRIVATE_DESTINATIONS: lifts the address policy (local development and tests only). */
  allowPrivate: boolean;
}

export interface DeliveryResult {
  outcome: DeliveryOutcome;
  /** Null when no HTTP response arrived. */
  responseStatus: number | null;
  /** At most the first maxResponseBytes (default 4096) bytes of the body, decoded as UTF-8 (lossy). */
  responseBody: string;
  /** Parsed Retry-After (delta-seconds or HTTP-date relative to now) when the response had one. */
  retryAfterSeconds: number | null;
  /** Human-readable reason for timeout / network_error / blocked; null otherwise. */
  error: string | null;
  /** From the moment the request was on the wire; for a try that ended before, the time it spent getting there. */
  durationMs: number;
}


export type { Resolver };
export type HttpSender = (request: DeliveryRequest) => Promise<DeliveryResult>;
/** A sender with its own keep-alive connections: the capacity of one deliver container. */
export type PooledHttpSender = HttpSender & {
  /** Destroys its pooled idle sockets (tests, or before a Lambda freeze if ever needed). */
  closeIdleConnections(): void;
};

const DEFAULT_MAX_RESPONSE_BYTES = 4096;
const MAX_TIMER_MS = 2_147_483_647;
/**
 * The longest a try may take to get its request on the wire when its timeout is longer. Its timeout
 * (at most 30 s) then counts from there, so a try lasts at most 40 s and leaves the deliver function
 * (60 s) the time to settle it; a healthy endpoint's connect takes milliseconds.
 */
const CONNECT_BUDGET_MS = 10_000;

/** The longest a try with this timeout may take: its wait to get on the wire, then its wait for an answer. */
export const longestTryMs = (timeoutMs: number) => timeoutMs + Math.min(timeoutMs, CONNECT_BUDGET_MS);
// Idle pooled sockets are dropped before common server keep-alive timeouts (Node 5 s, ALB 60 s) so a
// socket the server is about to close is rarely reused; Node also honours a `Keep-Alive: timeout=` hint.
const IDLE_SOCKET_MS = 4_000;

const agentOptions: AgentOptions = { keepAlive: true, maxSockets: 50, maxFreeSockets: 50, scheduling: 'lifo', timeout: IDLE_SOCKET_MS };

// Each sender's keep-alive agents, reused across the invocations that use it. Agents pool sockets by
// host:port (plus TLS options such as servername), not by address; every pooled socket was connected to
// an address that passed the policy when it was opened, so reusing it for the same host is safe.
// Deliveries with and without allowPrivate use separate agents, so a socket opened to a private address
// under allowPrivate can never be handed to a delivery that must respect the policy.
interface Agents {
  strict: { http: HttpAgent; https: https.Agent };
  permissive: { http: HttpAgent; https: https.Agent };
}

function newAgents(): Agents {
  return {
    strict: { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) },
    permissive: { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) },
  };
}

function closeIdle(agents: Agents): void {
  for (const pair of Object.values(agents)) {
    for (const agent of [pair.http, pair.https] as HttpAgent[]) {
      for (const sockets of Object.values(agent.freeSockets)) {
        for (const socket of sockets ?? []) socket.destroy();
      }
    }
  }
}


/**
 * A sender with connections of its own (up to 50 per host): what one deliver container has, so give
 * each batch in flight its own (lambdas/handlers/deliver.ts).
 */
export function createHttpSender(options: { resolver?: Resolver; maxResponseBytes?: number } = {}): PooledHttpSender {
  const resolver = options.resolver ?? resolveHost;
  const requested = options.maxResponseBytes;
  const maxResponseBytes =
    requested !== undefined && Number.isSafeInteger(requested) && requested >= 0 ? requested : DEFAULT_MAX_RESPONSE_BYTES;
  const agents = newAgents();

  const send: HttpSender = async (request) => {
    const clock: TryClock = { startedAt: performance.now() };
    try {
      return await deliver(request, agents, resolver, maxResponseBytes, clock);
    } catch (error) {
      // Defensive: deliver settles every known failure itself; nothing may escape as a throw.
      return finish(clock, { outcome: 'network_error', error: describeError(error) });
    }
  };
  return Object.assign(send, { closeIdleConnections: () => closeIdle(agents) });
}

/** When the try began, and when its request was on the wire: its duration counts from there. */
interface TryClock {
  startedAt: number;
  onWireAt?: number;
}

type ResultFields = Pick<DeliveryResult, 'outcome'> & Partial<Omit<DeliveryResult, 'outcome' | 'durationMs'>>;

function finish(clock: TryClock, result: ResultFields): DeliveryResult {
  return {
    outcome: result.outcome,
    responseStatus: result.responseStatus ?? null,
    responseBody: result.responseBody ?? '',
    retryAfterSeconds: result.retryAfterSeconds ?? null,
    error: result.error ?? null,
    durationMs: Math.round(performance.now() - (clock.onWireAt ?? clock.startedAt)),
  };
}

interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

type DnsAnswer =
  | { kind: 'ok'; addresses: Array<{ address: string; family: number }> }
  | { kind: 'failed'; error: unknown }
  | { kind: 'timeout' };

async function deliver(request: DeliveryRequest, agents: Agents, resolver: Resolver, maxBytes: number, clock: TryClock): Promise<DeliveryResult> {
  const verdict = checkDestinationUrl(request.url, request.allowPrivate);
  if (!verdict.ok) return finish(clock, { outcome: 'blocked', error: verdict.reason });
  const { url, literalAddress } = verdict;

  const timeoutMs = Number.isFinite(request.timeoutMs) ? Math.min(Math.max(Math.ceil(request.timeoutMs), 1), MAX_TIMER_MS) : 1;
  const connectMs = Math.min(timeoutMs, CONNECT_BUDGET_MS);

  // Two deadlines one after the other: getting the request on the wire, then the try's timeout from
  // there, so time spent waiting for a pooled socket never eats into the endpoint's. What a deadline
  // interrupts changes with the phase: first the DNS lookup, then the request (which it destroys).
  //
  // A deadline acts only after the event loop's next poll for I/O (setImmediate): on a starved loop (a
  // busy 256 MB Lambda, a loaded machine) a timer that is due runs before the loop reads what has
  // already arrived, so an answer received in time would lose to it. The generation drops a deadline
  // whose phase ended meanwhile (the request got on the wire, or the try finished).
  let onDeadline: () => void = () => undefined;
  let expired = false;
  let generation = 0;
  let deadline: NodeJS.Timeout | undefined;
  const arm = (ms: number) => {
    const armed = ++generation;
    clearTimeout(deadline);
    deadline = setTimeout(() => {
      setImmediate(() => {
        if (armed !== generation) return;
        expired = true;
        onDeadline();
      });
    }, ms);
  };
  arm(connectMs);
  const onWire = () => {
    if (clock.onWireAt !== undefined) return;
    clock.onWireAt = performance.now();
    arm(timeoutMs);
  };

  try {
    let addresses: CheckedAddress[];
    if (literalAddress !== undefined) {
      // IP literals are not resolved; checkDestinationUrl has applied the policy to them already.
      addresses = [{ address: literalAddress, family: isIP(literalAddress) === 6 ? 6 : 4 }];
    } else {
      // Resolved exactly once. The lookup keeps running in the background if the deadline wins.
      const answer = await new Promise<DnsAnswer>((resolve) => {
        onDeadline = () => resolve({ kind: 'timeout' });
        Promise.resolve()
          .then(() => resolver(url.hostname))
          .then(
            (found) => resolve({ kind: 'ok', addresses: found }),
            (error: unknown) => resolve({ kind: 'failed', error }),
          );
      });
      if (answer.kind === 'timeout') return finish(clock, { outcome: 'timeout', error: `no DNS answer within ${connectMs} ms` });
      if (answer.kind === 'failed') return finish(clock, { outcome: 'network_error', error: describeError(answer.error) });
      if (answer.addresses.length === 0) {
        return finish(clock, { outcome: 'network_error', error: `no addresses found for ${url.hostname}` });
      }
      addresses = [];
      for (const { address } of answer.addresses) {
        const family = isIP(address);
        // ANY bad answer blocks the delivery: an attacker's name can mix a public and a private address.
        if (family === 0 || (!request.allowPrivate && isForbiddenAddress(address))) {
          return finish(clock, { outcome: 'blocked', error: `destination address ${address} is private or reserved` });
        }
        addresses.push({ address, family: family === 6 ? 6 : 4 });
      }
    }
    if (expired) return finish(clock, { outcome: 'timeout', error: `no DNS answer within ${connectMs} ms` });

    return await exchange({
      url,
      request,
      agents,
      addresses,
      connectHost: literalAddress ?? url.hostname,
      isLiteral: literalAddress !== undefined,
      maxBytes,
      clock,
      connectMs,
      timeoutMs,
      onWire,
      setOnDeadline: (fn) => {
        onDeadline = fn;
      },
    });
  } finally {
    generation++;
    clearTimeout(deadline);
  }
}

interface ExchangeInput {
  url: URL;
  request: DeliveryRequest;
  agents: Agents;
  addresses: CheckedAddress[];
  connectHost: string;
  isLiteral: boolean;
  maxBytes: number;
  clock: TryClock;
  connectMs: number;
  timeoutMs: number;
  /** The request has a connected socket: the try's timeout starts. */
  onWire: () => void;
  setOnDeadline: (fn: () => void) => void;
}

function exchange(input: ExchangeInput): Promise<DeliveryResult> {
  const { url, request, addresses, maxBytes, clock } = input;
  const isHttps = url.protocol === 'https:';
  const pool = request.allowPrivate ? input.agents.permissive : input.agents.strict;
  const agent = isHttps ? pool.https : pool.http;

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (lower === 'content-length' || lower === 'transfer-encoding') continue;
    headers[name] = value;
  }
  headers['content-length'] = String(request.body.length);

  // Hands the socket the addresses checked above instead of asking DNS again. With autoSelectFamily
  // (the default) net asks for `all` and tries them in turn; otherwise it takes the first.
  const lookup = (
    _hostname: string,
    options: LookupOptions,
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    const first = addresses[0];
    if (options.all) callback(null, addresses.map(({ address, family }) => ({ address, family })));
    else if (first) callback(null, first.address, first.family);
    else callback(Object.assign(new Error('no checked address to connect to'), { code: 'ENOTFOUND' }), '', 4);
  };

  const options: https.RequestOptions = {
    protocol: url.protocol,
    hostname: input.connectHost,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    headers,
    agent,
    lookup,
  };
  // The Host header comes from the hostname (Node's default). SNI and certificate checks use the
  // original name too; set explicitly so a caller-supplied Host header cannot change it.
  if (isHttps && !input.isLiteral) options.servername = url.hostname.replace(/\.$/, '');

  return new Promise<DeliveryResult>((resolve) => {
    let settled = false;
    let current: ClientRequest | undefined;
    let phase: 'waiting for a socket' | 'connecting' | 'on the wire' = 'waiting for a socket';
    let status: number | null = null;
    let retryAfterSeconds: number | null = null;
    const chunks: Buffer[] = [];
    let captured = 0;

    const settle = (result: DeliveryResult): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    const settleWithResponse = (): void => {
      if (status === null) return;
      settle(
        finish(clock, {
          outcome: status >= 200 && status < 300 ? 'success' : 'http_error',
          responseStatus: status,
          responseBody: Buffer.concat(chunks).toString('utf8'),
          retryAfterSeconds,
        }),
      );
    };

    // Once the status line has arrived the outcome is decided by it: a deadline or a reset while the
    // body is read only cuts the captured body short (the destination did get the webhook).
    // A request still waiting for a socket was never sent: the endpoint saw nothing, and the error says
    // so (each batch has 50 sockets per host for at most 10 records, so this is a safety net, not a path).
    input.setOnDeadline(() => {
      if (status !== null) settleWithResponse();
      else if (phase === 'waiting for a socket') settle(finish(clock, { outcome: 'network_error', error: `not sent: no free connection within ${input.connectMs} ms` }));
      else if (phase === 'connecting') settle(finish(clock, { outcome: 'timeout', error: `no connection within ${input.connectMs} ms` }));
      else settle(finish(clock, { outcome: 'timeout', error: `no response within ${input.timeoutMs} ms` }));
      current?.destroy();
    });
    const onWire = () => {
      phase = 'on the wire';
      input.onWire();
    };

    const attempt = (): void => {
      const req = (isHttps ? https : http).request(options);
      current = req;
      // The socket is assigned once the agent has one free: a pooled one is connected already.
      req.on('socket', (socket) => {
        if (phase === 'on the wire') return;
        if (!socket.connecting) {
          onWire();
          return;
        }
        phase = 'connecting';
        socket.once('connect', onWire);
      });

      req.on('response', (res) => {
        status = res.statusCode ?? 0;
        retryAfterSeconds = parseRetryAfter(res.headers['retry-after']);
        const declared = Number(res.headers['content-length']);
        const declaredLength = Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined;
        let received = 0;
        if (maxBytes === 0 && declaredLength !== 0) {
          settleWithResponse();
          res.destroy();
          return;
        }
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (captured < maxBytes) {
            const room = maxBytes - captured;
            const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
            chunks.push(kept);
            captured += kept.length;
          }
          const bodyComplete = declaredLength !== undefined && received >= declaredLength;
          if (captured >= maxBytes && !bodyComplete) {
            // Enough captured: stop reading and drop the connection rather than drain a huge or
            // dripping body (the socket is not returned to the pool).
            settleWithResponse();
            res.destroy();
          }
        });
        // A body read to its end lets the socket go back to the keep-alive pool.
        res.on('end', settleWithResponse);
        res.on('error', settleWithResponse);
        res.on('close', settleWithResponse);
      });

      req.on('error', (error: NodeJS.ErrnoException) => {
        if (settled) return;
        if (status !== null) {
          settleWithResponse();
          return;
        }
        // A pooled socket the server closed while idle fails at once with ECONNRESET/EPIPE. Try again
        // on a fresh connection, as Node's docs recommend; each stale socket fails once and is gone.
        // Webhooks are delivered at least once, so the rare resend is acceptable.
        if (req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
          attempt();
          return;
        }
        settle(finish(clock, { outcome: 'network_error', error: describeError(error) }));
      });

      req.end(request.body);
    };

    try {
      attempt();
    } catch (error) {
      // Synchronous throws from http.request, e.g. an invalid header name or value.
      settle(finish(clock, { outcome: 'network_error', error: describeError(error) }));
    }
  });
}

/** Error text with its code: 'connect ECONNREFUSED 127.0.0.1:9', 'ECONNRESET: socket hang up'. */
function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    // Several addresses tried (happy eyeballs): report each distinct reason.
    return [...new Set(error.errors.map(describeError))].join('; ');
  }
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    // OpenSSL messages end in a newline; keep the reason on one line.
    const message = (error.message || error.name).replace(/\s+/g, ' ').trim();
    return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
  }
  return String(error);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
const MONTH = '(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)';
// The three HTTP-date forms a recipient must accept (RFC 9110 §5.6.7).
const IMF_FIXDATE = new RegExp(`^(?:mon|tue|wed|thu|fri|sat|sun), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`, 'i');
const RFC_850 = new RegExp(`^(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`, 'i');
const ASCTIME = new RegExp(`^(?:mon|tue|wed|thu|fri|sat|sun) ${MONTH} ( \\d|\\d{2}) ${TIME} (\\d{4})$`, 'i');

/**
 * Parses a Retry-After header value into seconds from `nowMs`: delta-seconds or an HTTP-date (a date
 * in the past gives 0). Anything else gives null.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number = Date.now()): number | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds : null;
  }
  const at = parseHttpDate(text, nowMs);
  if (at === null) return null;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

function parseHttpDate(text: string, nowMs: number): number | null {
  let day: string | undefined;
  let month: string | undefined;
  let year: number;
  let time: Array<string | undefined>;
  let match = IMF_FIXDATE.exec(text);
  if (match) {
    [, day, month] = match;
    year = Number(match[3]);
    time = match.slice(4, 7);
  } else if ((match = RFC_850.exec(text))) {
    [, day, month] = match;
    // Two-digit year: a year more than 50 years ahead is read as the most recent past one.
    const nowYear = new Date(nowMs).getUTCFullYear();
    year = Math.floor(nowYear / 100) * 100 + Number(match[3]);
    if (year > nowYear + 50) year -= 100;
    time = match.slice(4, 7);
  } else if ((match = ASCTIME.exec(text))) {
    month = match[1];
    day = match[2];
    time = match.slice(3, 6);
    year = Number(match[6]);
  } else {
    return null;
  }
  const monthIndex = MONTHS.indexOf((month ?? '').toLowerCase());
  const [hours, minutes, seconds] = time.map(Number);
  const dayOfMonth = Number((day ?? '').trim());
  if (monthIndex < 0 || hours === undefined || minutes === undefined || seconds === undefined) return null;
  if (hours > 23 || minutes > 59 || seconds > 60) return null;
  const ms = Date.UTC(year, monthIndex, dayOfMonth, hours, minutes, Math.min(seconds, 59));
  const date = new Date(ms);
  if (Number.isNaN(ms) || date.getUTCDate() !== dayOfMonth || date.getUTCMonth() !== monthIndex) return null;
  return ms;
}
