/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/), version 00: the trace an event belongs to,
 * as kept with it, and the `traceparent` each delivery try sends.
 */
export interface Trace {
  /** 32 lowercase hex digits, not all zero. */
  id: string;
  /** The caller's span the event came from; null when Hookgate started the trace. */
  parent: string | null;
  sampled: boolean;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ALL_ZERO = /^0+$/;

/**
 * The caller's trace, or null when the header is absent or not a valid version-00 `traceparent`
 * (strict: exactly 55 characters, lowercase hex, neither id all zero). Other versions are refused
 * too: what a future version adds is unknown, and a trace Hookgate starts is always valid.
 */
export function parseTraceparent(value: string | undefined): Trace | null {
  const match = value === undefined ? null : TRACEPARENT.exec(value);
  if (!match) return null;
  const [, id = '', parent = '', flags = ''] = match;
  if (ALL_ZERO.test(id) || ALL_ZERO.test(parent)) return null;
  return { id, parent, sampled: (parseInt(flags, 16) & 1) === 1 };
}

/** Random bytes as an id the specification accepts: all zero is invalid, so such bytes get a last bit. */
function idOf(random: Uint8Array, bytes: number): string {
  if (random.length < bytes) throw new Error(`an id needs ${bytes} random bytes`);
  const hex = Buffer.from(random.subarray(0, bytes)).toString('hex');
  return ALL_ZERO.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}

/**
 * A trace Hookgate starts (16 random bytes): sampled, since Hookgate records every event and its
 * tries whatever the receiver's tracer then decides.
 */
export function startedTrace(random: Uint8Array): Trace {
  return { id: idOf(random, 16), parent: null, sampled: true };
}

/**
 * An event's trace: as kept with it, or for an event stored before traces were, one made from its
 * id (a UUID is 16 bytes too), so all its tries still share one.
 */
export function traceOf(kept: Trace | undefined, eventId: string): Trace {
  return kept ?? { id: eventId.replaceAll('-', '').toLowerCase(), parent: null, sampled: true };
}

/**
 * The `traceparent` of one delivery try: the event's trace, a new span (8 random bytes) for this try,
 * and the caller's sampled flag.
 */
export function traceparentOf(trace: Trace, spanRandom: Uint8Array): string {
  return `00-${trace.id}-${idOf(spanRandom, 8)}-${trace.sampled ? '01' : '00'}`;
}
