import * as z from 'zod/mini';
import { defineEntity } from '../store/entity';
import { accountPartition } from '../store/keys';
import { orphanClaimVerdict } from '../domain/dedupe';
import { config } from '../shared/config';
import { allOf, deleteItem, ITEM_EXISTS, updateItem } from '../store/table';
import { findEvent, type EventRecord } from './record';

/**
 * A claimed external id, in a partition of its own per (account, scope hash) so claims never meet an
 * account's other writes. It expires with the event that holds it (retention re-times it).
 */
const dedupeEntity = defineEntity({
  name: 'dedupe',
  /** `claimed_at`: epoch ms of the claim (orphanClaimVerdict). */
  schema: z.object({ event_id: z.string(), expires_at: z.optional(z.number()), claimed_at: z.optional(z.number()) }),
  key: (accountId: string, scopeHash: string) => ({ pk: `${accountPartition(accountId)}#DEDUP#${scopeHash}`, sk: 'DEDUP' }),
});

/**
 * Claims an external id for an event. Returns undefined when this event got it, or the claim that
 * already holds it.
 */
export async function claimExternalId(
  accountId: string,
  key: string,
  eventId: string,
  expiresAt: number,
  now: Date,
): Promise<{ event_id: string; claimed_at?: number } | undefined> {
  const claim = { event_id: eventId, expires_at: expiresAt, claimed_at: now.getTime() };
  // The holder can vanish between our write and our read (retention); then the id is free to claim again.
  for (let round = 0; round < 3; round++) {
    if (await dedupeEntity.create(claim, dedupeEntity.key(accountId, key))) return undefined;
    const existing = await dedupeEntity.find(accountId, key);
    if (existing) return existing;
  }
  throw new Error('external id claim kept racing with deletion');
}

/** How long an accept waits for a concurrent holder of its external id to write its event, and how often it looks. */
const HOLDER_WAIT_MS = 5_000;
const HOLDER_LOOK_MS = 100;

/**
 * Holds an external id for a new event before anything of it is sent or written, so a concurrent
 * repeat is refused before it has messages that could deliver it. Returns the event that holds the id
 * (the new one is its duplicate), or undefined when the new event holds it now. A holder not written
 * yet is waited for a moment (parallel repeats are answered as duplicates once it is); one still
 * missing after that throws (the caller answers 5xx, and its sender's retry finds it or takes over).
 */
export async function holdExternalId(accountId: string, key: string, eventId: string, expiresAt: number, now: Date): Promise<EventRecord | undefined> {
  for (let round = 0; round < 3; round++) {
    const holder = await claimExternalId(accountId, key, eventId, expiresAt, now);
    if (!holder) return undefined;
    const event = await writtenHolder(accountId, holder.event_id, orphanClaimVerdict(holder.claimed_at, now, config().missingEventGraceSeconds));
    if (event) return event;
    const taken = await updateItem(
      dedupeEntity.key(accountId, key),
      { set: { event_id: eventId, expires_at: expiresAt, claimed_at: now.getTime() } },
      { condition: heldBy(holder.event_id) },
    );
    if (taken !== false) return undefined;
  }
  throw new Error('external id claim kept changing hands');
}

/** The holder's event; while its accept may still be writing it, looked for again until it shows. Undefined: it failed. */
async function writtenHolder(accountId: string, holderId: string, verdict: 'in_progress' | 'take_over'): Promise<EventRecord | undefined> {
  const deadline = Date.now() + HOLDER_WAIT_MS;
  for (;;) {
    const event = await findEvent(accountId, holderId);
    if (event || verdict === 'take_over') return event;
    if (Date.now() >= deadline) throw new Error('the external id is held by an accept still in progress');
    await new Promise((resolve) => setTimeout(resolve, HOLDER_LOOK_MS));
  }
}

/** While the claim still names this event: the id may have been claimed again since. */
const heldBy = (eventId: string) => ({ expression: 'event_id = :id', values: { ':id': eventId } });

/** Re-times an event's claim (the sweeper, after a retention change), only while it names this event. */
export async function setDedupeExpiry(accountId: string, key: string, eventId: string, expiresAt: number): Promise<boolean> {
  const updated = await updateItem(dedupeEntity.key(accountId, key), { set: { expires_at: expiresAt } }, { condition: allOf(ITEM_EXISTS, heldBy(eventId)) });
  return updated !== false;
}

/** Deletes an event's claim (the sweeper, with the event), only while it names this event. */
export async function deleteDedupeIfOwned(accountId: string, key: string, eventId: string): Promise<void> {
  await deleteItem(dedupeEntity.key(accountId, key), { condition: heldBy(eventId) });
}
