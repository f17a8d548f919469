import { customDomainHostname, servesOnHost, type HostCaller } from '../domain/domain-ownership';
import { findHostOwner } from './record';

/**
 * Whether a request on `host` may be served for `caller`: a verified custom domain serves only the
 * account that owns it. Asked only once the caller is known (or for a sign-up, throttled to 1/s by API
 * Gateway), so an anonymous flood of made-up hosts costs no reads; a host that cannot be a custom
 * domain (an IP address, localhost) costs none either.
 */
export async function servedOnHost(host: string, caller: HostCaller, now: Date): Promise<boolean> {
  const hostname = customDomainHostname(host);
  return servesOnHost(hostname === null ? null : await findHostOwner(hostname, now), caller);
}
