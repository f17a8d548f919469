import { unauthorized } from '../domain/errors';
import { sessionVerdict } from '../domain/portal';
import { log } from '../shared/log';
import { hashApiKey } from '../shared/secrets';
import { findPortalSession, findSessionStanding } from '../portal-sessions/record';
import type { DestinationActor } from '../destinations/changes';
import type { ApiRequest } from './http';

export interface PortalPrincipal {
  accountId: string;
  customer: string;
  sessionId: string;
  validUntil: string;
}

/** Who a portal session acts as in the use cases: its customer, within its account. */
export const portalActor = (portal: PortalPrincipal): DestinationActor => ({ kind: 'customer', customer: portal.customer });

/** Portal secrets (`ps_…`) and API keys (`hk_…`) never pass for each other: each scheme has its own pattern. */
const PORTAL_BEARER = /^[Bb][Ee][Aa][Rr][Ee][Rr]\s+(ps_[A-Za-z0-9_-]{43})\s*$/;

/**
 * A portal link's session: the only credential the portal API takes. Every failure is the same 401;
 * only the log says which rule refused it. Costs two reads per request: the session (one consistent
 * GetItem) and then its key and its customer's link generation (one consistent BatchGetItem).
 */
export async function authenticatePortal(request: ApiRequest, now: Date): Promise<PortalPrincipal> {
  const match = PORTAL_BEARER.exec(request.headers.authorization ?? '');
  if (!match?.[1]) throw unauthorized();
  const session = await findPortalSession(hashApiKey(match[1]));
  if (!session) throw unauthorized();
  const standing = await findSessionStanding(session);
  const verdict = sessionVerdict(
    { validUntil: session.valid_until, issuedGeneration: session.generation ?? 0, ...standing },
    now,
  );
  if (verdict !== 'live') {
    log.info('portal link refused', { account_id: session.account_id, portal_session_id: session.id, reason: verdict });
    throw unauthorized();
  }
  return { accountId: session.account_id, customer: session.customer, sessionId: session.id, validUntil: session.valid_until };
}
