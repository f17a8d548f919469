import * as z from 'zod/mini';
import { sideItemExpiresAt } from '../domain/retention';
import { newSubjectKey, subjectHmac } from '../shared/secrets';
import { defineEntity } from '../store/entity';
import { accountPartition } from '../store/keys';
import { ITEM_EXISTS, queryPage, updateItem } from '../store/table';
import type { EventRecord } from './record';

/**
 * Where an erasure finds a data subject's events without a scan: one entry per (account, subject,
 * event), in a partition per subject, written only for events given a subject. The subject is kept as
 * an HMAC under a key of the account's own (never in clear, and the same subject of two accounts
 * lands in two partitions that cannot be told to be the same person's).
 */
const subjectKeyEntity = defineEntity({
  name: 'subject_key',
  schema: z.object({ key: z.string() }),
  key: (accountId: string) => ({ pk: accountPartition(accountId), sk: 'SUBJECTKEY' }),
});

const subjectPartition = (accountId: string, subjectHash: string) => `${accountPartition(accountId)}#SUBJ#${subjectHash}`;
const subjectEntryEntity = defineEntity({
  name: 'subject_event',
  schema: z.object({ event_id: z.string(), expires_at: z.number() }),
  key: (accountId: string, subjectHash: string, eventId: string) => ({ pk: subjectPartition(accountId, subjectHash), sk: eventId }),
});

/** An account's key never changes once made, so a warm function reads it once. */
const keys = new Map<string, string>();

async function subjectKeyOf(accountId: string): Promise<string> {
  const known = keys.get(accountId);
  if (known) return known;
  const made = { key: newSubjectKey() };
  // The first writer wins; a writer that lost the race uses the winner's key.
  const key = (await subjectKeyEntity.create(made, subjectKeyEntity.key(accountId))) ? made.key : (await subjectKeyEntity.find(accountId))?.key;
  if (!key) throw new Error(`subject key of account ${accountId} vanished`);
  keys.set(accountId, key);
  return key;
}

/** The subject as the account's events and erasures store it. */
export const hashSubject = async (accountId: string, subject: string): Promise<string> => subjectHmac(await subjectKeyOf(accountId), subject);

/**
 * The index entry of a new event given a subject, written before the event (acceptEvent): an entry
 * whose event was never stored costs an erasure one read; an event without its entry would escape it.
 * TTL removes it with the event's side items.
 */
export async function indexSubjectEvent(event: EventRecord): Promise<void> {
  if (!event.subject_hash) return;
  await subjectEntryEntity.put(
    { event_id: event.id, expires_at: sideItemExpiresAt(event.received_at, event.retention_days) },
    subjectEntryEntity.key(event.account_id, event.subject_hash, event.id),
  );
}

/**
 * Re-times an event's entry for a new retention window (the sweeper, with the event's other items): an
 * entry that expired before its event would let that event escape an erasure. Never creates one.
 */
export async function setSubjectEntryExpiry(accountId: string, subjectHash: string, eventId: string, expiresAt: number): Promise<void> {
  await updateItem(subjectEntryEntity.key(accountId, subjectHash, eventId), { set: { expires_at: expiresAt } }, { condition: ITEM_EXISTS });
}

/** One page of a subject's event ids, in id order, after `after` (exclusive). */
export async function subjectEventPage(accountId: string, subjectHash: string, after: string | null, limit: number): Promise<string[]> {
  const { items } = await queryPage(
    {
      KeyConditionExpression: after === null ? 'pk = :pk' : 'pk = :pk AND sk > :after',
      ExpressionAttributeValues: { ':pk': subjectPartition(accountId, subjectHash), ...(after !== null && { ':after': after }) },
      ConsistentRead: true,
    },
    { limit },
  );
  return items.map((item) => subjectEntryEntity.schema.parse(item).event_id);
}
