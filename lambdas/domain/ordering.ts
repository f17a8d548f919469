import { createHash } from 'node:crypto';
import { heldDelivery } from './delivery-phases';
import { isTerminalDelivery } from './event-status';
import type { DeliveryState } from './progress';
import { valueAtPointer } from './json-pointer';

/**
 * Ordered delivery per key. A destination with `ordering: "per_key"` keeps one line per ordering key:
 * every keyed event accepted for it joins the end of its key's line, and a delivery is tried only while
 * it is its line's head, so each key's events are tried one after the other, in the order they were
 * accepted, while other keys (and unkeyed events) never wait for them. The decisions are here; the line
 * itself is lambdas/store/ordering-lines.ts and the pipeline's part lambdas/pipeline/ordering.ts.
 */

export const ORDERING_MODES = ['none', 'per_key'] as const;
export type OrderingMode = (typeof ORDERING_MODES)[number];

export const ORDERING_KEY_MAX = 128;

/** Letters, marks, digits, punctuation and symbols: no spaces, no control or invisible characters. */
const VISIBLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]+$/u;

/** What SQS and SNS take as a FIFO `MessageGroupId`: 1-128 ASCII letters, digits and punctuation. */
const FIFO_GROUP = /^[\x21-\x7e]{1,128}$/;

/**
 * A FIFO target's message group for a try: the event's ordering key as it is when the services take
 * it, else a digest of it (a key may be any visible Unicode, which they refuse, and every try of such
 * an event would fail); the destination when the event has no key.
 */
export function fifoMessageGroup(orderingKey: string | null | undefined, destinationId: string): string {
  if (!orderingKey) return destinationId;
  return FIFO_GROUP.test(orderingKey) ? orderingKey : `k_${createHash('sha256').update(orderingKey, 'utf8').digest('base64url')}`;
}

/** Why a string is no ordering key (1-128 visible characters, counted as code points), or undefined when it is one. */
export function orderingKeyIssue(key: string, field = 'ordering_key'): string | undefined {
  const length = [...key].length;
  if (length === 0 || length > ORDERING_KEY_MAX) return `${field} must be 1 to ${ORDERING_KEY_MAX} characters`;
  if (!VISIBLE.test(key)) return `${field} must be visible characters only (no spaces or control characters)`;
  return undefined;
}

/**
 * An inbound event's ordering key, read with its source's pointer from its parsed JSON payload: a
 * string, or a number as its JSON text, that is a valid key. Null otherwise (no JSON, nothing there,
 * an object, an invalid key): a provider cannot act on a refusal, so such an event goes unordered
 * rather than being turned away.
 */
export function orderingKeyAt(json: unknown, pointer: string): string | null {
  const value = valueAtPointer(json, pointer);
  const key = typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value) ? JSON.stringify(value) : null;
  return key !== null && orderingKeyIssue(key) === undefined ? key : null;
}

/**
 * The destinations whose line a keyed event joins: those of its planned deliveries (not ended at
 * planning) whose destination orders per key. An unkeyed event joins none, and neither does any
 * delivery to a destination that does not order: they pay nothing for ordering.
 */
export function linesToJoin(
  key: string | null,
  deliveries: Readonly<Record<string, DeliveryState>>,
  orderingOf: (destinationId: string) => OrderingMode | undefined,
): string[] {
  if (key === null) return [];
  return Object.entries(deliveries)
    .filter(([destinationId, delivery]) => !isTerminalDelivery(delivery.status) && orderingOf(destinationId) === 'per_key')
    .map(([destinationId]) => destinationId);
}

/** What a lined delivery may do, given the event at its line's head (undefined: the line is empty, as when its own place was already given up). */
export type LineVerdict = { kind: 'go' } | { kind: 'wait'; behind: string };

export const lineVerdict = (head: string | undefined, eventId: string): LineVerdict =>
  head === undefined || head === eventId ? { kind: 'go' } : { kind: 'wait', behind: head };

/**
 * A line's head whose event is not written: an accept joins its lines, then sends its tasks and writes
 * its event within its missing-event grace (else it gives its places up), so a head still unwritten
 * twice that long after it joined was left by an accept that died: its place goes (`orphan`), or the
 * delivery looks again once it would (`recheck`). Twice: the grace counts from the tasks' sending,
 * which a large body's upload to S3 may delay after the join.
 */
export function unwrittenHead(joinedAt: number, now: Date, graceSeconds: number): { kind: 'orphan' } | { kind: 'recheck'; at: Date } {
  const givenUpAt = joinedAt + 2 * graceSeconds * 1000;
  return now.getTime() >= givenUpAt ? { kind: 'orphan' } : { kind: 'recheck', at: new Date(givenUpAt) };
}

/**
 * A delivery waiting for its line: no try spent and no due time of its own (its release sends its
 * task), showing the event it waits behind. Undefined when it no longer applies (ended, or in flight).
 */
export function orderedWait(current: DeliveryState, behind: string, now: Date, leaseMs: number): DeliveryState | undefined {
  const held = heldDelivery(current, 'ordering', null, now, leaseMs);
  if (!held) return undefined;
  // Already shown waiting behind this event: no write.
  if (current.waiting?.reason === 'ordering' && current.waiting.behind === behind && current.status === held.status) return undefined;
  return { ...held, waiting: { reason: 'ordering', until: null, behind } };
}
