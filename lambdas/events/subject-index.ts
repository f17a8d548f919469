import * as z from 'zod/mini';
import { sideItemExpiresAt } from '../domain/retention';
import { kmsOpen, kmsSeal } from '../adapters/kms';
import { SUBJECT_KEY_CONTEXT } from '../shared/resource-definitions';
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
  // `sealed_key`: encrypted with KMS, so the table (or a backup of it) alone cannot hash a guess and
  // confirm whose events these are, or who was erased. `key`: in clear, as stored before; sealed on first use.
  schema: z.object({ sealed_key: z.optional(z.string()), key: z.optional(z.string()) }),
  key: (accountId: string) => ({ pk: accountPartition(accountId), sk: 'SUBJECTKEY' }),
});

const subjectPartition = (accountId: string, subjectHash: string) => `${accountPartition(accountId)}#SUBJ#${subjectHash}`;
const subjectEntryEntity = defineEntity({
  name: 'subject_event',
  schema: z.object({ event_id: z.string(), expires_at: z.number() }),
  key: (accountId: string, subjectHash: string, eventId: string) => ({ pk: subjectPartition(accountId, subjectHash), sk: eventId }),
});

/** An account's key never changes once made, so a warm function opens it once. */
const keys = new Map<string, string>();

/** The context it is sealed under; the only one the api and ingest functions may decrypt (lib/service-stack.ts). */
const contextOf = (accountId: string) => ({ ...SUBJECT_KEY_CONTEXT, account_id: accountId });
const seal = (accountId: string, key: string) => kmsSeal(Buffer.from(key, 'base64'), contextOf(accountId));
const open = async (accountId: string, sealed: string) => (await kmsOpen(sealed, contextOf(accountId))).toString('base64');

async function subjectKeyOf(accountId: string): Promise<string> {
  const known = keys.get(accountId) ?? (await storedSubjectKey(accountId));
  keys.set(accountId, known);
  return known;
}

async function storedSubjectKey(accountId: string): Promise<string> {
  const found = await subjectKeyEntity.find(accountId);
  if (found?.sealed_key) return open(accountId, found.sealed_key);
  if (found?.key) {
    // Stored in clear before keys were sealed: sealed now, in place (a concurrent sealing of the same key is as good).
    await updateItem(subjectKeyEntity.key(accountId), { set: { sealed_key: await seal(accountId, found.key) }, remove: ['key'] }, { condition: ITEM_EXISTS });
    return found.key;
  }
  const made = newSubjectKey();
  // The first writer wins; a writer that lost the race uses the winner's key.
  if (await subjectKeyEntity.create({ sealed_key: await seal(accountId, made) }, subjectKeyEntity.key(accountId))) return made;
  const winner = await subjectKeyEntity.find(accountId);
  if (!winner?.sealed_key) throw new Error(`subject key of account ${accountId} vanished`);
  return open(accountId, winner.sealed_key);
}

/** The subject as the account's events and erasures store it. */
export const hashSubject = async (accountId: string, subject: string): Promise<string> => subjectHmac(await subjectKeyOf(accountId), subject);

/**
 * An ordering key as its lines' partitions are named (lambdas/store/ordering-lines.ts): under the same
 * account key, apart from subjects, so a key read from a payload (an email) is stored in clear only on
 * its event, where an erasure clears it.
 */
export const hashOrderingKey = async (accountId: string, orderingKey: string): Promise<string> => subjectHmac(await subjectKeyOf(accountId), `ordering_key:${orderingKey}`);

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
