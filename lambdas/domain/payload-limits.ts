/**
 * What fits through API Gateway and Lambda, decided once. The HTTP API takes 10 MB, but the Lambda
 * behind it takes at most 6,291,456 bytes of event and of response, counted after encoding: a binary
 * body travels base64 (4 bytes per 3), a text body as a JSON string (every `"`, `\` and control
 * character escaped), and a JSON response body is a string inside the Lambda response, escaped again.
 */

/** Lambda's synchronous invoke limit on the request event and on the response, in bytes. */
export const LAMBDA_PAYLOAD_LIMIT_BYTES = 6_291_456;

/** The contract's limit on the bytes of any request body. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/**
 * Kept free in the event for everything around the body: headers (API Gateway caps them near
 * 10 KB), the request context, cookies, query string. Generous, so an accepted body never depends
 * on the headers that came with it.
 */
const EVENT_HEADROOM_BYTES = 128 * 1024;

/** The most a body may weigh inside the Lambda event, encoded: 6,160,384 bytes. */
export const MAX_ENCODED_BODY_BYTES = LAMBDA_PAYLOAD_LIMIT_BYTES - EVENT_HEADROOM_BYTES;

/** The largest binary body that fits: its base64 (plus the two quotes around it) stays within the encoded limit. */
export const MAX_BINARY_BODY_BYTES = Math.floor((MAX_ENCODED_BODY_BYTES - 2) / 4) * 3;

/** Kept free in a response for its status, headers and `duration_ms` around the rendered JSON body. */
const RESPONSE_HEADROOM_BYTES = 16 * 1024;

/** Bytes of `text` once written as a JSON string literal, quotes included (what Lambda carries). */
export const jsonStringBytes = (text: string): number => Buffer.byteLength(JSON.stringify(text), 'utf8');

export type BodyVerdict = { ok: true } | { ok: false; reason: 'raw_size' | 'encoded_size' };

/**
 * Whether a request body is within the limits: at most 5 MB of bytes, and at most
 * `MAX_ENCODED_BODY_BYTES` in the form the Lambda event carries it (`encodedBytes`).
 */
export function judgeBody(rawBytes: number, encodedBytes: number): BodyVerdict {
  if (rawBytes > MAX_BODY_BYTES) return { ok: false, reason: 'raw_size' };
  if (encodedBytes > MAX_ENCODED_BODY_BYTES) return { ok: false, reason: 'encoded_size' };
  return { ok: true };
}

/** Whether a response body fits in Lambda's response, given its size once escaped as a JSON string. */
export const responseFits = (escapedBodyBytes: number): boolean =>
  escapedBodyBytes + RESPONSE_HEADROOM_BYTES <= LAMBDA_PAYLOAD_LIMIT_BYTES;
