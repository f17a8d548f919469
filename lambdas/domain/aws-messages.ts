/**
 * What an AWS destination receives, built from the same signed headers an HTTP delivery carries, so
 * a consumer verifies `webhook-signature` the same way whichever way the event came. SQS and SNS get
 * the body as the message and the headers as message attributes; S3 the body as the object and the
 * headers as its metadata; EventBridge, Kinesis and Lambda, which have no attributes, an envelope
 * that holds both. Pure: the transport sends what these build, and measures it with them.
 */

/** Headers that describe the HTTP exchange, not the event: no use on a queue or in an object. */
const HTTP_ONLY = new Set(['user-agent', 'authorization']);

export interface MessageText {
  text: string;
  /** `base64` when the body is not text a queue message may hold; the signature covers the decoded bytes. */
  encoding: 'utf8' | 'base64';
}

// SQS's (and SNS's) message alphabet: tab, newline, carriage return, and Unicode from U+0020 except surrogates and U+FFFE/F.
// eslint-disable-next-line no-control-regex -- the control characters SQS refuses are what this finds
const OUTSIDE_SQS_ALPHABET = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

/** The body as message text: as it is when it is valid UTF-8 in the queue alphabet, else base64. */
export function messageText(body: Buffer): MessageText {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(body);
  const exact = Buffer.byteLength(text, 'utf8') === body.length && Buffer.from(text, 'utf8').equals(body);
  return exact && !OUTSIDE_SQS_ALPHABET.test(text) ? { text, encoding: 'utf8' } : { text: body.toString('base64'), encoding: 'base64' };
}

/** The delivery's headers as attributes (names as on HTTP, lower case), with the body's encoding when it is not text. */
export function messageAttributes(headers: Record<string, string>, encoding: MessageText['encoding']): Record<string, string> {
  const attributes = Object.fromEntries(Object.entries(headers).filter(([name]) => !HTTP_ONLY.has(name.toLowerCase())));
  if (encoding === 'base64') attributes['content-transfer-encoding'] = 'base64';
  return attributes;
}

/** The most message attributes SQS takes on a message, and SNS on one it publishes (one more and the call is refused). */
export const MAX_MESSAGE_ATTRIBUTES = 10;

/** Where the headers that did not fit go, as one JSON object of name to value. */
export const MERGED_HEADERS_ATTRIBUTE = 'x-hookgate-headers';

/**
 * Which headers keep an attribute of their own when they do not all fit, most needed first: what a
 * consumer verifies the signature with (and decodes the body with before that), then the ids it
 * de-duplicates and routes on. Every other header (the trace context, an endpoint's own header, any
 * added later) is merged first.
 */
const ATTRIBUTE_PRIORITY = [
  'webhook-signature', 'webhook-id', 'webhook-timestamp', 'webhook-key-id', 'content-transfer-encoding', 'content-type',
  'x-hookgate-event-id', 'x-webhook-id', 'x-event-type',
];

/**
 * The attributes within SQS's and SNS's count: as they are when they fit; else the most needed keep
 * their own and the rest become one `x-hookgate-headers` attribute (JSON), so nothing is lost and a
 * consumer restores the headers by merging it back.
 */
export function fitAttributes(attributes: Record<string, string>, limit = MAX_MESSAGE_ATTRIBUTES): Record<string, string> {
  const names = Object.keys(attributes);
  if (names.length <= limit) return attributes;
  const rank = (name: string) => {
    const index = ATTRIBUTE_PRIORITY.indexOf(name);
    return index === -1 ? ATTRIBUTE_PRIORITY.length : index;
  };
  const ordered = [...names].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  const own = ordered.slice(0, limit - 1);
  const merged = Object.fromEntries(ordered.slice(limit - 1).map((name) => [name, attributes[name] as string]));
  return { ...Object.fromEntries(own.map((name) => [name, attributes[name] as string])), [MERGED_HEADERS_ATTRIBUTE]: JSON.stringify(merged) };
}

/** Bytes SQS and SNS count for a message: its body, and each attribute's name, data type (`String`) and value. */
export function attributedMessageBytes(message: MessageText, attributes: Record<string, string>): number {
  return Object.entries(attributes).reduce(
    (bytes, [name, value]) => bytes + utf8Bytes(name) + utf8Bytes('String') + utf8Bytes(value),
    utf8Bytes(message.text),
  );
}

/** The envelope of EventBridge's `detail`, a Kinesis record and a Lambda payload. */
export interface Envelope {
  event_id: string;
  webhook_id: string;
  event_type: string | null;
  headers: Record<string, string>;
  body: string;
  body_encoding: MessageText['encoding'];
}

export function envelopeOf(headers: Record<string, string>, body: Buffer): Envelope {
  const message = messageText(body);
  return {
    event_id: headers['x-hookgate-event-id'] ?? '',
    webhook_id: headers['x-webhook-id'] ?? '',
    event_type: headers['x-event-type'] ?? null,
    headers: messageAttributes(headers, 'utf8'),
    body: message.text,
    body_encoding: message.encoding,
  };
}

export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * The partition key of a Kinesis record: `event_id`, or the scalar the JSON pointer finds in a JSON
 * body; the event id when it finds none (not JSON, missing, an object, empty, over Kinesis's 256 characters).
 */
export function partitionKeyOf(spec: string, eventId: string, body: Buffer): string {
  if (spec === 'event_id') return eventId;
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return eventId;
  }
  for (const token of spec.slice(1).split('/')) {
    const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  }
  const key = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
  return key.length > 0 && key.length <= 256 ? key : eventId;
}
