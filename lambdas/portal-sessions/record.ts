import * as z from 'zod/mini';
import { apiKeyItemKey } from '../accounts/api-key-record';
import { defineEntity } from '../store/entity';
import { accountPartition, LOOKUP_SK } from '../store/keys';
import { batchGet, updateItem } from '../store/table';

/** A portal link's session: only the SHA-256 of its secret is stored, as for API keys. */
const portalSessionRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  customer: z.string(),
  /**
   * The API key that created it, and the customer's link generation then (see `portalLinksEntity`).
   * Absent on sessions made before links could be ended: such a session names no key and is refused.
   */
  key_id: z.optional(z.string()),
  generation: z.optional(z.number()),
  created_at: z.string(),
  valid_until: z.string(),
});
export type PortalSessionRecord = z.infer<typeof portalSessionRecord>;

/**
 * A global lookup reached only by presenting the secret (its SHA-256), as API keys are. TTL removes it
 * some time after it stopped working; the check itself is `valid_until`.
 */
const portalSessionEntity = defineEntity({
  name: 'portal_session',
  schema: portalSessionRecord,
  key: (secretHash: string) => ({ pk: `PORTALSESSION#${secretHash}`, sk: LOOKUP_SK }),
  derived: (record) => ({ expires_at: Math.ceil(Date.parse(record.valid_until) / 1000) }),
});

/**
 * Per (account, customer): how many times the account ended that customer's links. Sessions live in
 * the global lookup keyed by their secret, so they cannot be found by customer; instead each session
 * keeps the generation it was made in, and one made before the current one is refused. Written on the
 * first revoke only, so customers never revoked have no item (generation 0).
 */
const portalLinksRecord = z.object({ account_id: z.string(), customer: z.string(), generation: z.number() });
const portalLinksEntity = defineEntity({
  name: 'portal_links',
  schema: portalLinksRecord,
  key: (accountId: string, customer: string) => ({ pk: accountPartition(accountId), sk: `PORTALLINKS#${customer}` }),
});

export async function insertPortalSession(secretHash: string, record: PortalSessionRecord): Promise<void> {
  const created = await portalSessionEntity.create(record, portalSessionEntity.key(secretHash));
  if (!created) throw new Error('portal session secret collision');
}

export const findPortalSession = (secretHash: string) => portalSessionEntity.find(secretHash);

/**
 * The generation a new link is made in. Read before the session is written, so a revoke that lands
 * in between ends the new link too (refusing a link made during a revoke is the safe side).
 */
export async function currentLinkGeneration(accountId: string, customer: string): Promise<number> {
  return (await portalLinksEntity.find(accountId, customer))?.generation ?? 0;
}

/** Ends every link of the customer made so far: raises its generation (creating the item the first time). */
export async function revokePortalLinks(accountId: string, customer: string): Promise<void> {
  await updateItem(portalLinksEntity.key(accountId, customer), {
    set: { entity: portalLinksEntity.name, account_id: accountId, customer },
    add: { generation: 1 },
  });
}

const standingItem = z.object({ sk: z.string(), generation: z.optional(z.number()) });

/**
 * Whether the session's API key still exists and its customer's current link generation: one
 * strongly consistent BatchGetItem of two small items (2 RCU) on every portal request, so a revoke
 * is refused on the very next request.
 */
export async function findSessionStanding(session: PortalSessionRecord): Promise<{ keyActive: boolean; currentGeneration: number }> {
  const links = portalLinksEntity.key(session.account_id, session.customer);
  const apiKey = session.key_id ? apiKeyItemKey(session.account_id, session.key_id) : undefined;
  const items = await batchGet(apiKey ? [links, apiKey] : [links], standingItem, { consistent: true });
  return {
    keyActive: items.some((item) => item.sk === apiKey?.sk),
    currentGeneration: items.find((item) => item.sk === links.sk)?.generation ?? 0,
  };
}
