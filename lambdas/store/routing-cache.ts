import { config } from '../shared/config';
import { ForgetfulCache } from './forgetful-cache';
import type { RoutingTable } from './routing-table';

// The routing table's cache: the account, destination, route and breaker writers forget entries
// here, and routing-table.ts reads through it, so no writer depends on the reader. Warm functions
// reuse an account's routing table for HOOKGATE_ROUTE_CACHE_SECONDS (default 5 s). Each Lambda
// function is its own process with its own cache, so what must not be stale is checked:
// accepting an event compares the cached table with the account's routing stamp (loadCurrentRoutingTable),
// and a delivery whose destination is missing from the cache reads again (reloadRoutingTable). Writes
// through this process forget the entry at once, even when a read was in flight during the write.
export const cache = new ForgetfulCache<RoutingTable | undefined>(() => config().routeCacheSeconds * 1000);

/**
 * How long a function instance reuses the account's routing stamp: a busy account costs one small
 * read a second per instance rather than one per event, and a route written through another process
 * applies here within that second. Never longer than the table cache: HOOKGATE_ROUTE_CACHE_SECONDS=0
 * still reads both every time.
 */
const STAMP_REUSE_MS = 1000;
export const stamps = new ForgetfulCache<number | undefined>(() => Math.min(STAMP_REUSE_MS, config().routeCacheSeconds * 1000));

export function forgetRoutingTable(accountId: string): void {
  cache.forget(accountId);
  stamps.forget(accountId);
}
