import { normalizeHostname } from './hostname';

/**
 * Who owns a custom domain's hostname, and what that means for requests on it. Several accounts may
 * hold pending registrations of one hostname; the first to prove it (the TXT record) takes the
 * hostname's lookup and owns it. From then on its host serves that account alone.
 */

/** A registration's status, as far as ownership goes (`deleting`: deleted, its AWS resources still being removed). */
export type RegistrationStatus = 'pending_verification' | 'verified' | 'failed' | 'deleting';

/**
 * A lookup is written just before its registration is marked verified, and a registration's items
 * are deleted just before its lookup; a lookup younger than this whose registration is not (or no
 * longer) there is one of those steps in flight. Above the api function's 29 s timeout, so a step
 * that is not finished by then died.
 */
export const CLAIM_GRACE_MS = 60_000;

/**
 * What a hostname's lookup stands for. `owned`: a verified registration, or a deleted one whose
 * teardown is not done (API Gateway may still serve it). `claiming`: a verification or deletion in
 * flight (see CLAIM_GRACE_MS). `released`: the lookup is left over (its registration failed, is gone,
 * or never finished verifying) and the next verification may take it.
 */
export type HostnameStanding = 'owned' | 'claiming' | 'released';

export function hostnameStanding(holder: RegistrationStatus | undefined, lookupAgeMs: number): HostnameStanding {
  if (holder === 'verified' || holder === 'deleting') return 'owned';
  if (holder === 'failed') return 'released';
  return lookupAgeMs <= CLAIM_GRACE_MS ? 'claiming' : 'released';
}

/** Why a pending registration failed when it tried to verify a hostname someone else verified first. */
export const VERIFIED_ELSEWHERE = 'another registration of this domain was verified first; only the first to verify owns a hostname';

/**
 * The custom-domain hostname a request's host could be, or null when it cannot be one (an IP
 * address, `localhost`, anything else registration refuses), so that such hosts need no lookup.
 * A port, which a Host header may carry locally, is not part of the name.
 */
export function customDomainHostname(host: string): string | null {
  const result = normalizeHostname(host.replace(/:\d*$/, ''));
  return result.ok ? result.hostname : null;
}

/** Who a request acts for: an account (by its API key, portal session or ingest token), or a sign-up. */
export type HostCaller = { kind: 'account'; accountId: string } | { kind: 'sign_up' };

/**
 * Whether a request may be served on a host whose owner is `hostOwner` (null: not a verified custom
 * domain). A custom domain serves its owner only, and no sign-up: a customer's branded hostname is
 * not Hookgate's front door. Anything else is served on any other host, as without custom domains.
 */
export function servesOnHost(hostOwner: string | null, caller: HostCaller): boolean {
  if (hostOwner === null) return true;
  return caller.kind === 'account' && caller.accountId === hostOwner;
}
