import type { AttemptOutcome } from './vocabulary';

/**
 * `hookgate listen`: the WebSocket protocol between a deliver function and the CLI, and what the CLI's
 * answer means for the attempt. Pure, and shared with the CLI (clients/cli), so both ends read one
 * definition. In AWS the messages travel through an API Gateway WebSocket API; locally through the
 * gateway's own WebSocket server, with the same shapes.
 */

/**
 * API Gateway takes WebSocket messages of 128 KB at most (PostToConnection included). The body travels
 * in base64 (4/3 of its size) beside the headers, so a body over this is not sent: the try is
 * `blocked`, as an AWS destination's message over its service's limit is.
 */
export const LISTEN_MAX_BODY_BYTES = 90 * 1024;

/**
 * API Gateway closes a WebSocket connection that carried no message for 10 minutes, and every
 * connection after 2 hours (its WebSocket quotas; neither can be raised). The CLI keeps inside the
 * first and reconnects after the second; the local listen server holds connections to both.
 */
export const WEBSOCKET_IDLE_TIMEOUT_MS = 10 * 60_000;
export const WEBSOCKET_MAX_CONNECTION_MS = 2 * 3600_000;

/**
 * What the CLI sends to keep an idle connection open. A data frame: API Gateway does not count a
 * client's WebSocket ping frames as activity. Its action has no route, so it reaches `$default`, which
 * the listen function answers without reading or writing anything.
 */
export const KEEP_ALIVE_MESSAGE = '{"action":"ping"}';

/** As much of the local answer's body as an HTTP attempt keeps (lambdas/adapters/http-sender.ts). */
export const LISTEN_MAX_RESPONSE_BODY_BYTES = 4096;

/** What a deliver function sends the CLI: one try of one delivery, signed as an HTTP try would be. */
export interface ListenRequest {
  type: 'request';
  request_id: string;
  event_id: string;
  event_type: string | null;
  attempt: number;
  method: 'POST';
  headers: Record<string, string>;
  body_base64: string;
  /** The destination's timeout: the answer must be back within it. */
  timeout_ms: number;
}

const isText = (value: unknown): value is string => typeof value === 'string';

/**
 * Whether a WebSocket frame is a request the CLI may forward: anything else (another frame kind, a
 * field of the wrong type) is ignored rather than half-used.
 */
export function isListenRequest(frame: unknown): frame is ListenRequest {
  if (typeof frame !== 'object' || frame === null) return false;
  const f = frame as Record<string, unknown>;
  return (
    f.type === 'request' &&
    isText(f.request_id) &&
    isText(f.event_id) &&
    (f.event_type === null || isText(f.event_type)) &&
    Number.isInteger(f.attempt) &&
    f.method === 'POST' &&
    typeof f.headers === 'object' &&
    f.headers !== null &&
    Object.values(f.headers).every(isText) &&
    isText(f.body_base64) &&
    typeof f.timeout_ms === 'number' &&
    Number.isFinite(f.timeout_ms)
  );
}

/**
 * The CLI's answer (the `response` route, `action: response`): the local server's status, headers and
 * body, or `error` when the local server could not be reached or did not answer.
 */
export interface ListenReply {
  action: 'response';
  request_id: string;
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  error?: string;
}

export const tooLargeForListen = (bytes: number) =>
  `the body is ${bytes} bytes; hookgate listen carries at most ${LISTEN_MAX_BODY_BYTES} (API Gateway WebSocket messages are 128 KB)`;

/** A listen session's id, as the CLI chooses it: in URLs, item keys and the WebSocket's query. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

export const NOT_CONNECTED = 'no hookgate listen is connected to this destination';
export const CONNECTION_GONE = 'the hookgate listen connection is gone';
export const KEY_REVOKED = 'the API key that connected hookgate listen was revoked: the connection is closed';
export const noAnswerWithin = (timeoutMs: number) => `no answer from hookgate listen within ${timeoutMs} ms`;

/** The first bytes of a UTF-8 text, never more than `max` bytes and never half a character. */
export function truncateUtf8(text: string, max: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return text;
  // A cut inside a character decodes to U+FFFD; dropping it keeps only whole characters.
  return bytes.subarray(0, max).toString('utf8').replace(/\uFFFD+$/, '');
}

export interface ListenOutcome {
  outcome: AttemptOutcome;
  responseStatus: number | null;
  responseBody: string;
  error: string | null;
}

/** The attempt an answer makes: the local status as an HTTP try's, or the CLI's error as a network error. */
export function replyOutcome(reply: Pick<ListenReply, 'status' | 'body' | 'error'>): ListenOutcome {
  const status = reply.status;
  if (reply.error !== undefined || status === undefined || !Number.isInteger(status) || status < 100 || status > 599) {
    const error = reply.error ?? 'hookgate listen answered without a status';
    return { outcome: 'network_error', responseStatus: null, responseBody: '', error: `local: ${truncateUtf8(error, 1024)}` };
  }
  const responseBody = truncateUtf8(reply.body ?? '', LISTEN_MAX_RESPONSE_BODY_BYTES);
  return { outcome: status >= 200 && status < 300 ? 'success' : 'http_error', responseStatus: status, responseBody, error: null };
}

/**
 * The pauses between a deliver function's reads of the answer: short at first (a local server on the
 * developer's machine answers in milliseconds, and the WebSocket round trip is what the wait is), then
 * every 250 ms, until `timeoutMs` is spent. Each read is one strongly consistent GetItem.
 */
export function replyPolls(timeoutMs: number): number[] {
  const pauses: number[] = [];
  let spent = 0;
  for (let pause = 20; spent < timeoutMs; pause = Math.min(pause * 2, 250)) {
    const next = Math.min(pause, timeoutMs - spent);
    pauses.push(next);
    spent += next;
  }
  return pauses;
}
