import { invalid, type Refusal } from './errors';

/** How many endpoints an account, and each of its customers, may have (HOOKGATE_MAX_ENDPOINTS_PER_*). */
export interface EndpointCaps {
  perCustomer: number;
  perAccount: number;
}

export const DEFAULT_ENDPOINT_CAPS: EndpointCaps = { perCustomer: 20, perAccount: 10_000 };

export const customerCapMessage = (customer: string, cap: number) => `customer ${customer} has reached its limit of ${cap} endpoints`;
export const accountCapMessage = (cap: number) => `the account has reached its limit of ${cap} endpoints`;

/**
 * Whether one more endpoint fits: a new destination (counted against the account, and against its
 * customer if it has one) or an existing one moved to a customer (`newDestination: false`). `owners`
 * is the customer of each destination the account has now (null: the account's own). The message
 * names the limit, not the count, so a customer learns nothing about the account's other endpoints
 * beyond its being full.
 */
export function endpointCapRefusal(
  owners: readonly (string | null)[],
  arrival: { customer: string | null; newDestination: boolean },
  caps: EndpointCaps,
): Refusal | undefined {
  if (arrival.newDestination && owners.length >= caps.perAccount) return invalid(accountCapMessage(caps.perAccount));
  const customer = arrival.customer;
  if (customer !== null && owners.filter((owner) => owner === customer).length >= caps.perCustomer) {
    return invalid(customerCapMessage(customer, caps.perCustomer));
  }
  return undefined;
}
