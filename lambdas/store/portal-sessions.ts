import * as z from 'zod/mini';
import { portalKeys } from './keys';
import { getItem, putNew } from './table';

/** A portal link's session: only the SHA-256 of its secret is stored, as for API keys. */
export const portalSessionRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  customer: z.string(),
  created_at: z.string(),
  valid_until: z.string(),
});
export type PortalSessionRecord = z.infer<typeof portalSessionRecord>;

/** TTL removes the lookup some time after it stopped working; the check itself is `valid_until`. */
export async function insertPortalSession(secretHash: string, record: PortalSessionRecord): Promise<void> {
  const created = await putNew({
    ...portalKeys.session(secretHash),
    entity: 'portal_session',
    ...record,
    expires_at: Math.ceil(Date.parse(record.valid_until) / 1000),
  });
  if (!created) throw new Error('portal session secret collision');
}

export const findPortalSession = (secretHash: string) => getItem(portalKeys.session(secretHash), portalSessionRecord);
