/**
 * Every key of the table, built in one place. Tenant data lives in partitions that start with the
 * account (`ACCT#<id>`). The only other partitions are unique lookups reached by a secret the caller
 * presents (an API key's hash, a source's path token); they hold a pointer to the account, no data.
 */
export const LOOKUP_SK = 'LOOKUP';

/**
 * Everything routing reads sorts right after the account item (`ACCOUNT`), under `ACCOUNT#`, and
 * nothing else does (API keys, brand settings, export jobs, domains sort elsewhere): the hot path's one
 * query reads exactly the routing table, however many keys or export jobs the account has.
 */
const ROUTING_PREFIX = 'ACCOUNT#';
export const routingRange = { from: 'ACCOUNT', to: `${ROUTING_PREFIX}\uffff` } as const;

export const keys = {
  account: (accountId: string) => ({ pk: `ACCT#${accountId}`, sk: 'ACCOUNT' }),
  apiKey: (accountId: string, keyId: string) => ({ pk: `ACCT#${accountId}`, sk: `APIKEY#${keyId}` }),
  apiKeyLookup: (keyHash: string) => ({ pk: `APIKEYHASH#${keyHash}`, sk: LOOKUP_SK }),
  source: (accountId: string, sourceId: string) => ({ pk: `ACCT#${accountId}`, sk: `SOURCE#${sourceId}` }),
  sourceLookup: (pathToken: string) => ({ pk: `SOURCETOKEN#${pathToken}`, sk: LOOKUP_SK }),
  destination: (accountId: string, destinationId: string) => ({
    pk: `ACCT#${accountId}`,
    sk: `${ROUTING_PREFIX}DEST#${destinationId}`,
  }),
  /** Each destination's breaker, read with the routing table; a destination list by prefix does not read it. */
  breaker: (accountId: string, destinationId: string) => ({ pk: `ACCT#${accountId}`, sk: `${ROUTING_PREFIX}HEALTH#${destinationId}` }),
  route: (accountId: string, routeId: string) => ({ pk: `ACCT#${accountId}`, sk: `${ROUTING_PREFIX}ROUTE#${routeId}` }),
  health: () => ({ pk: 'HEALTH', sk: 'HEALTH' }),
};

/** Sort-key prefixes for listing one kind of item inside an account's partition. */
export const listPrefix = {
  apiKeys: 'APIKEY#',
  sources: 'SOURCE#',
  destinations: `${ROUTING_PREFIX}DEST#`,
  breakers: `${ROUTING_PREFIX}HEALTH#`,
  routes: `${ROUTING_PREFIX}ROUTE#`,
} as const;

export const accountPartition = (accountId: string) => `ACCT#${accountId}`;

/** Events live in their own partitions (one per event) so no account partition takes their writes. */
export const STATUS_SK = 'EVENT';
export const BODY_SK = 'BODY';
export const ATTEMPT_PREFIX = 'ATT#';

export const eventKeys = {
  partition: (accountId: string, eventId: string) => `ACCT#${accountId}#EVT#${eventId}`,
  status: (accountId: string, eventId: string) => ({ pk: eventKeys.partition(accountId, eventId), sk: STATUS_SK }),
  body: (accountId: string, eventId: string) => ({ pk: eventKeys.partition(accountId, eventId), sk: BODY_SK }),
  attempt: (accountId: string, eventId: string, attemptId: string) => ({
    pk: eventKeys.partition(accountId, eventId),
    sk: `${ATTEMPT_PREFIX}${attemptId}`,
  }),
  /**
   * List index: an account's events of one direction, in LIST_SHARDS partitions (by the id's last hex
   * digit, which is random in a UUIDv7) so one busy account spreads its index writes; merged on read.
   */
  listPartition: (accountId: string, direction: string, shard: number) => `ACCT#${accountId}#EVENTS#${direction}#${shard}`,
  /** Work index for the reconciler, spread over a few partitions so no single one is hot. */
  reconcilePartition: (shard: number) => `RECONCILE#${shard}`,
  dedupe: (accountId: string, scopeHash: string) => ({ pk: `ACCT#${accountId}#DEDUP#${scopeHash}`, sk: 'DEDUP' }),
};

/**
 * The work index's sort key is a due time, which only grows, so DynamoDB cannot split a shard for heat:
 * 32 shards × 1,000 writes/s, at 2 index writes per webhook, carry 16,000 webhooks/s.
 */
export const RECONCILE_SHARDS = 32;
/** 1,000 webhooks/s for one account is 250 index writes/s per shard, a quarter of a partition's limit. */
export const LIST_SHARDS = 4;

export const listShard = (eventId: string) => parseInt(eventId.slice(-1), 16) % LIST_SHARDS;

export function reconcileShard(eventId: string): number {
  return parseInt(eventId.slice(-2), 16) % RECONCILE_SHARDS;
}

export const exportKeys = {
  job: (accountId: string, jobId: string) => ({ pk: `ACCT#${accountId}`, sk: `EXPORT#${jobId}` }),
  listPrefix: 'EXPORT#',
  /** Work index partitions: jobs waiting for a worker, and jobs a worker holds (to recover a dead one). */
  queued: 'EXPORTS#queued',
  processing: 'EXPORTS#processing',
};

/**
 * Brand settings: one item per account. Custom domains: one item per domain in the account's
 * partition (outside `routingRange`, so the routing table's query never reads them), plus a global lookup per hostname (`DOMAIN#<hostname>`) that makes a hostname belong to one
 * registration at a time. The lookup holds a pointer, no tenant data.
 */
export const brandKeys = {
  settings: (accountId: string) => ({ pk: `ACCT#${accountId}`, sk: 'BRAND' }),
};

export const domainKeys = {
  domain: (accountId: string, domainId: string) => ({ pk: `ACCT#${accountId}`, sk: `SITEDOMAIN#${domainId}` }),
  listPrefix: 'SITEDOMAIN#',
  lookup: (hostname: string) => ({ pk: `DOMAIN#${hostname}`, sk: LOOKUP_SK }),
  /** Work index partition: verified domains whose certificate and API Gateway domain are not done yet. */
  tlsPending: 'DOMAINS#tls_pending',
  /** Work index partition: deleted domains whose certificate and API Gateway domain the provisioner removes. */
  deleting: 'DOMAINS#deleting',
};

/**
 * The consumer portal (issue 16). A session is a global lookup reached only by presenting its
 * secret (its SHA-256), as API keys are. Event types sort after `SITEDOMAIN#` (`TYPE#` > `SITE…`),
 * so the routing table's range query never reads them. A customer's event log is a partition of
 * its own per (account, customer): one entry per outbound event delivered to its endpoints, newest
 * first (ids are UUIDv7), so a customer's page never walks the account's other events.
 */
export const portalKeys = {
  session: (secretHash: string) => ({ pk: `PORTALSESSION#${secretHash}`, sk: LOOKUP_SK }),
  eventType: (accountId: string, name: string) => ({ pk: `ACCT#${accountId}`, sk: `TYPE#${name}` }),
  eventTypesPrefix: 'TYPE#',
  customerLogPartition: (accountId: string, customer: string) => `ACCT#${accountId}#CUST#${customer}#EVENTS`,
  customerLogEntry: (accountId: string, customer: string, eventId: string) => ({
    pk: portalKeys.customerLogPartition(accountId, customer),
    sk: eventId,
  }),
};

/**
 * A rate-limited destination's send schedule (lambdas/store/rate-limits.ts): one small item in a
 * partition of its own, so its writes (one per delivery, only for destinations with a limit) never
 * land in the account partition the routing table is read from.
 */
export const rateKeys = {
  destination: (accountId: string, destinationId: string) => ({ pk: `ACCT#${accountId}#RATE#${destinationId}`, sk: 'RATE' }),
};
