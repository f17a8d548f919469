import * as z from 'zod/mini';
import {
  deleteEventSideItems,
  eventItemKind,
  eventRecord,
  readEventPartition as readStoredEvent,
  setEventBodyRef,
  setEventItemExpiry,
  type EventRecord,
} from '../events/record';
import { walkListIndex } from '../events/lists';
import { defineEntity, type Key } from './entity';
import { type Direction, DIRECTIONS, EVENT_STATUSES, type EventStatus } from '../domain/vocabulary';

/**
 * What the retention sweeper reads, and its checkpoint. Every write of another type's items is made by
 * the module that owns the type (events/record.ts, events/dedupe.ts, accounts.ts); the sweeper's side
 * items reach events/record.ts through opaque references. Everything is idempotent: deleting what is
 * already gone, or rewriting a TTL to the value it already has, is harmless, so a run that stopped
 * half-way can simply be repeated.
 */
export type { Direction };

// ---------------------------------------------------------------------------------------------------
// Events of one account (list index)

/**
 * One page of an account's events of one direction from the list index, OLDEST first, strictly after
 * the event `after` and (when `before` is given) with ids strictly below it, ids only: the sweeper reads
 * each event's partition before it touches it anyway. `before` goes into the key condition, so only old
 * entries are ever read. `next` is the id to continue after, if there is more.
 */
export async function listEventsOldestFirst(
  accountId: string,
  direction: Direction,
  options: { before?: string; after?: string | null; limit: number },
): Promise<{ items: Array<{ id: string }>; next: string | undefined }> {
  const items: Array<{ id: string }> = [];
  const walk = walkListIndex(accountId, direction, { newestFirst: false, after: options.after, below: options.before }, options.limit + 1);
  for await (const listed of walk) {
    if (items.length === options.limit) return { items, next: items.at(-1)?.id };
    items.push({ id: listed.id });
  }
  return { items, next: undefined };
}

/** An item stored beside an event's status item; its key stays opaque outside the store. */
export interface SideItem {
  readonly ref: SideItemRef;
  /** When its TTL counts from: an attempt's time, or null for the event's receipt (body, replay claims). */
  readonly countsFrom: string | null;
  readonly expiresAt: number | undefined;
}
declare const sideItemBrand: unique symbol;
export type SideItemRef = { readonly [sideItemBrand]: true };
const refOf = (key: Key) => key as unknown as SideItemRef;
const keyOf = (ref: SideItemRef) => ref as unknown as Key;

/** What the sweeper needs of one event's partition, read consistently. */
export interface StoredEventParts {
  /** The status item, undefined when it is gone (a sweep that stopped between deletes left the rest). */
  status: { status: EventStatus; dedupe_key: string | null } | 'unreadable' | undefined;
  /** The whole event, when its status item is a valid one. */
  event: EventRecord | undefined;
  /** The body item, the one item that points at the payload object (`payloadRef`) when there is one. */
  body: SideItem | undefined;
  payloadRef: string | undefined;
  attempts: number;
  /** Everything but the status item: body, deliveries, attempts, replay claims. */
  sideItems: SideItem[];
  /** Its deliveries that wait, from their own items where they have one (else as the status item plans them). */
  waits: Array<{ destinationId: string; reason: string; due: string | null }>;
}

const sweptStatus = z.object({ status: z.enum(EVENT_STATUSES), dedupe_key: z.optional(z.nullable(z.string())) });
const storedSide = z.object({
  pk: z.string(),
  sk: z.string(),
  body_ref: z.optional(z.string()),
  attempted_at: z.optional(z.string()),
  expires_at: z.optional(z.number()),
  /** A delivery's item holds its first try. */
  first_attempt: z.optional(z.unknown()),
  destination_id: z.optional(z.string()),
  next_attempt_at: z.optional(z.nullable(z.string())),
  waiting: z.optional(z.nullable(z.object({ reason: z.string() }))),
});

export async function readEventParts(accountId: string, eventId: string): Promise<StoredEventParts> {
  const items = await readStoredEvent(accountId, eventId);
  const statusItem = items.find((item) => eventItemKind(item) === 'status');
  const loose = statusItem === undefined ? undefined : sweptStatus.safeParse(statusItem);
  const event = statusItem === undefined ? undefined : eventRecord.safeParse(statusItem);
  const sides = items.filter((item) => eventItemKind(item) !== 'status').map((item) => storedSide.parse(item));
  const sideItems = sides.map((item) => ({
    ref: refOf({ pk: item.pk, sk: item.sk }),
    countsFrom: eventItemKind(item) === 'attempt' ? (item.attempted_at ?? null) : null,
    expiresAt: item.expires_at,
  }));
  const planned = event?.success ? event.data.deliveries : {};
  const deliveryItems = new Map(sides.filter((item) => eventItemKind(item) === 'delivery' && item.destination_id).map((item) => [item.destination_id as string, item]));
  const waits = Object.entries(planned).flatMap(([destinationId, state]) => {
    const stored = deliveryItems.get(destinationId) ?? state;
    return stored.waiting ? [{ destinationId, reason: stored.waiting.reason, due: stored.next_attempt_at ?? null }] : [];
  });
  return {
    waits,
    status: loose === undefined ? undefined : loose.success ? { status: loose.data.status, dedupe_key: loose.data.dedupe_key ?? null } : 'unreadable',
    event: event?.success ? event.data : undefined,
    payloadRef: sides.find((item) => eventItemKind(item) === 'body')?.body_ref,
    attempts: sides.filter((item) => eventItemKind(item) === 'attempt' || item.first_attempt !== undefined).length + (event?.success ? (event.data.first_attempts?.length ?? 0) : 0),
    body: sideItems[sides.findIndex((item) => eventItemKind(item) === 'body')],
    sideItems,
  };
}

export const deleteSideItems = (items: readonly SideItem[]) => deleteEventSideItems(items.map((item) => keyOf(item.ref)));

export const setSideItemExpiry = (item: SideItem, expiresAt: number) => setEventItemExpiry(keyOf(item.ref), expiresAt);

export const setPayloadRef = (body: SideItem, from: string, to: string) => setEventBodyRef(keyOf(body.ref), from, to);

// ---------------------------------------------------------------------------------------------------
// Checkpoint

/** Where a run that ran out of time stopped: one item, which only the sweeper reads or writes. */
export const SWEEPER_CHECKPOINT_KEY = { pk: 'SWEEPER', sk: 'CHECKPOINT' } as const;

const sweepCursor = z.object({
  account_id: z.string(),
  phase: z.enum(['delete', 'resync']),
  direction: z.enum(DIRECTIONS),
  /** The last event handled in this phase and direction; null to start at the oldest. */
  after: z.nullable(z.string()),
  /** The account's retention when the cursor was written; a different window restarts the account. */
  retention_days: z.int(),
});
export type SweepCursor = z.infer<typeof sweepCursor>;

const sweepCheckpoint = z.object({
  /** The last account that was fully swept in the current pass; null before the first. */
  last_account_id: z.nullable(z.string()),
  /** Position inside the account after `last_account_id`, when the run stopped part-way through it. */
  cursor: z.optional(z.nullable(sweepCursor)),
  updated_at: z.string(),
});
export type SweepCheckpoint = z.infer<typeof sweepCheckpoint>;

const checkpointEntity = defineEntity({
  name: 'sweeper_checkpoint',
  schema: sweepCheckpoint,
  key: () => SWEEPER_CHECKPOINT_KEY,
  keyOf: () => SWEEPER_CHECKPOINT_KEY,
});

export const readCheckpoint = (): Promise<SweepCheckpoint | undefined> => checkpointEntity.find();

export const writeCheckpoint = (checkpoint: SweepCheckpoint): Promise<void> => checkpointEntity.put({ ...checkpoint, cursor: checkpoint.cursor ?? null });

export const clearCheckpoint = (): Promise<void> => checkpointEntity.remove();
