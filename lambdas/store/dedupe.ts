import { createHash } from 'node:crypto';
import { eventKeys } from './keys';
import { dedupeRecord } from './records';
import { deleteItem, getItem, putNew } from './table';

/** Provider delivery ids are de-duplicated per source (inbound) or per account (outbound). */
export function dedupeKey(direction: 'inbound' | 'outbound', scopeId: string, externalId: string): string {
  return createHash('sha256').update(`${direction}\n${scopeId}\n${externalId}`).digest('hex');
}

/**
 * Claims an external id for an event. Returns undefined when this event got it, or the id of the
 * event that already holds it.
 */
export async function claimExternalId(
  accountId: string,
  key: string,
  eventId: string,
  expiresAt: number,
): Promise<string | undefined> {
  const item = { ...eventKeys.dedupe(accountId, key), entity: 'dedupe', event_id: eventId, expires_at: expiresAt };
  // The holder can vanish between our write and our read (retention); then the id is free to claim again.
  for (let round = 0; round < 3; round++) {
    if (await putNew(item)) return undefined;
    const existing = await getItem(eventKeys.dedupe(accountId, key), dedupeRecord);
    if (existing) return existing.event_id;
  }
  throw new Error('external id claim kept racing with deletion');
}

export const releaseExternalId = (accountId: string, key: string) => deleteItem(eventKeys.dedupe(accountId, key));
