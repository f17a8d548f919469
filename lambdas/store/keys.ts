/**
 * The key prefixes more than one item type shares; each item type declares its own key in the module
 * that owns it (see entity.ts). Tenant data lives in partitions that start with the account
 * (`ACCT#<id>`). The only other partitions are unique lookups reached by a secret the caller presents
 * (an API key's hash, a source's path token); they hold a pointer to the account, no data.
 */
export const LOOKUP_SK = 'LOOKUP';

export const accountPartition = (accountId: string) => `ACCT#${accountId}`;

/**
 * Everything routing reads sorts right after the account item (`ACCOUNT`), under `ACCOUNT#`, and
 * nothing else does (API keys, brand settings, export jobs, domains sort elsewhere): a query of routes
 * or destinations by prefix reads only them, however many keys or export jobs the account has. The
 * prefixes live here because several modules build these keys (the records, the breakers, the meter).
 */
export const ACCOUNT_SK = 'ACCOUNT';
/** The account item's key: accounts.ts writes it, routing-table.ts reads it with the range it opens. */
export const accountKey = (accountId: string) => ({ pk: accountPartition(accountId), sk: ACCOUNT_SK });
const ROUTING_PREFIX = `${ACCOUNT_SK}#`;
export const routingPrefix = {
  destinations: `${ROUTING_PREFIX}DEST#`,
  /** Each destination's breaker, read with its destination by the deliver path; a destination list by prefix does not read it. */
  breakers: `${ROUTING_PREFIX}HEALTH#`,
  routes: `${ROUTING_PREFIX}ROUTE#`,
} as const;
