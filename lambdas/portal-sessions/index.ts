import { randomBytes } from 'node:crypto';
import { PORTAL_SESSION_SECONDS, portalLinkBase, sessionValidUntil } from '../domain/portal';
import { hashApiKey, newId } from '../shared/secrets';
import { listCustomDomains } from '../custom-domains/record';
import { currentLinkGeneration, insertPortalSession, revokePortalLinks } from './record';

/**
 * Portal links: an API key makes one for a customer (its secret shown once, only its hash stored),
 * and the account ends every link of a customer at once.
 */

export interface PortalLinkRequest {
  customer: string;
  expires_in_seconds?: number;
}

/** A new link's secret, when it stops working, and the origin it opens on (a verified custom domain, else the gateway's). */
export interface OpenedPortalSession {
  kind: 'created';
  secret: string;
  validUntil: string;
  origin: string;
}

export async function openPortalSession(
  principal: { accountId: string; keyId: string },
  request: PortalLinkRequest,
  gatewayBase: string,
  now: Date,
): Promise<OpenedPortalSession> {
  const secret = `ps_${randomBytes(32).toString('base64url')}`;
  const validUntil = sessionValidUntil(now, request.expires_in_seconds ?? PORTAL_SESSION_SECONDS.default).toISOString();
  await insertPortalSession(hashApiKey(secret), {
    id: newId(),
    account_id: principal.accountId,
    customer: request.customer,
    key_id: principal.keyId,
    generation: await currentLinkGeneration(principal.accountId, request.customer),
    created_at: now.toISOString(),
    valid_until: validUntil,
  });
  return { kind: 'created', secret, validUntil, origin: portalLinkBase(await listCustomDomains(principal.accountId), gatewayBase) };
}

/** Every link made so far for the customer stops working, whichever key made it. */
export const endPortalLinks = (accountId: string, customer: string): Promise<void> => revokePortalLinks(accountId, customer);
