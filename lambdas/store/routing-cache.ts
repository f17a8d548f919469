import type { AccountStamp } from '../accounts/record';
import { config } from '../shared/config';
import { ForgetfulCache } from './forgetful-cache';
import type { DestinationRouting, RoutesView } from './routing-table';

// Routing's per-process caches: the account, destination, route and breaker writers update or forget
// entries here, and routing-table.ts reads through them, so no writer depends on the reader. Each
// Lambda function is its own process with its own caches. Three of them:
// - the account's stamp (the account item: its routing version and the log of recent changes), read
//   eventually consistent and reused for a second per instance;
// - each account's routes and the destinations they name (what ingest plans with), kept until the
//   stamp moves and then brought up to it by reading only what the change log names;
// - each destination with its breaker (what a delivery needs), reused for HOOKGATE_ROUTE_CACHE_SECONDS
//   (breakers change without the stamp) unless the stamp names the destination as changed; an absent
//   destination is remembered too, so deliveries to a deleted one do not read it again each time.
// Writes through this process apply at once, even when a read was in flight during the write.

/**
 * How long a function instance reuses the account's stamp: a busy account costs one small read a
 * second per instance rather than one per event, and a route written through another process applies
 * here within that second. Never longer than the route cache: HOOKGATE_ROUTE_CACHE_SECONDS=0 reads
 * everything every time.
 */
const STAMP_REUSE_MS = 1000;
export const stamps = new ForgetfulCache<AccountStamp | undefined>(() => Math.min(STAMP_REUSE_MS, config().routeCacheSeconds * 1000));

/**
 * Routes are kept while the stamp says they are current; this bound only lets an account no longer
 * served go, and limits how long a view could outlive a change it was not told of.
 */
const ROUTES_VIEW_MAX_MS = 10 * 60_000;
export const routesViews = new ForgetfulCache<RoutesView | undefined>(() => (config().routeCacheSeconds === 0 ? 0 : ROUTES_VIEW_MAX_MS));

export const destinationEntries = new ForgetfulCache<DestinationRouting & { version: number }>(() => config().routeCacheSeconds * 1000);
export const destinationEntryKey = (accountId: string, destinationId: string) => `${accountId}/${destinationId}`;

/** The account changed (its plan, retention): its stamp and routes are read again. */
export function forgetRoutingTable(accountId: string): void {
  routesViews.forget(accountId);
  stamps.forget(accountId);
}

/** The stamp a routing write through this process just wrote: the next read here starts from it. */
export function rememberStamp(accountId: string, stamp: AccountStamp): void {
  stamps.forget(accountId);
  void stamps.get(accountId, () => Promise.resolve(stamp));
}

/** A destination's item or breaker was written through this process. */
export function forgetDestinationRouting(accountId: string, destinationId: string): void {
  destinationEntries.forget(destinationEntryKey(accountId, destinationId));
}
