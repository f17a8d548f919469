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
 * nothing else does (API keys, brand settings, export jobs, domains sort elsewhere): the hot path's one
 * query reads exactly the routing table, however many keys or export jobs the account has. The
 * prefixes live here because routing-table.ts tells the items apart by them without importing their
 * modules (which import it).
 */
export const ACCOUNT_SK = 'ACCOUNT';
const ROUTING_PREFIX = `${ACCOUNT_SK}#`;
export const routingPrefix = {
  destinations: `${ROUTING_PREFIX}DEST#`,
  /** Each destination's breaker, read with the routing table; a destination list by prefix does not read it. */
  breakers: `${ROUTING_PREFIX}HEALTH#`,
  routes: `${ROUTING_PREFIX}ROUTE#`,
} as const;
export const routingRange = { from: ACCOUNT_SK, to: `${ROUTING_PREFIX}\uffff` } as const;

/** The item the readiness probe reads (it never exists): one small read proves the table answers. */
export const HEALTH_KEY = { pk: 'HEALTH', sk: 'HEALTH' } as const;

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
