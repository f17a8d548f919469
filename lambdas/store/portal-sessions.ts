import * as z from 'zod/mini';
import { defineEntity } from './entity';
import { LOOKUP_SK } from './keys';

/** A portal link's session: only the SHA-256 of its secret is stored, as for API keys. */
export const portalSessionRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  customer: z.string(),
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

export async function insertPortalSession(secretHash: string, record: PortalSessionRecord): Promise<void> {
  const created = await portalSessionEntity.create(record, portalSessionEntity.key(secretHash));
  if (!created) throw new Error('portal session secret collision');
}

export const findPortalSession = (secretHash: string) => portalSessionEntity.find(secretHash);
