import type { BreakerState } from '../domain/breaker';
import { changesBetween, type ChangedSince } from '../domain/routing-changes';
import { destinationKey, destinationRecord, type DestinationRecord } from '../destinations/record';
import { routeKey, routeRecord, type RouteRecord } from '../routes/record';
import { accountStamp, type AccountRecord, type AccountStamp } from '../accounts/record';
import { batchGet, getItem, queryAll } from './table';
import { accountKey, accountPartition, routingPrefix } from './keys';
import { findBreaker } from './breakers';
import { config } from '../shared/config';
import { ForgetfulCache } from './forgetful-cache';
import { onRoutingWrite } from './routing-writes';

type Versioned = BreakerState & { version: number };

/** What ingest plans an event with: the account, its routes and the destinations they name. */
export interface RoutingTable {
  account: AccountRecord;
  /** The account's routing stamp the routes were read at (or after); every destination or route write raises it. */
  version: number;
  /** The destinations the routes name (and the one a single-destination accept asked for). */
  destinations: Map<string, DestinationRecord>;
  routes: RouteRecord[];
}

/** An account's routes and the destinations they name, as of `version` of its stamp. */
interface RoutesView {
  version: number;
  routes: RouteRecord[];
  destinations: Map<string, DestinationRecord>;
}

/** What a delivery needs of its destination: the destination (undefined: it does not exist) and its breaker. */
export interface DestinationRouting {
  destination: DestinationRecord | undefined;
  /** Closed, version 0, while the destination has none. */
  breaker: Versioned;
}

// Routing's per-process caches, read through below. The account, destination, route and breaker
// writers say what they wrote (routing-writes.ts) and entries here are updated or forgotten, so no
// writer depends on this reader. Each Lambda function is its own process with its own caches. Three:
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
const stamps = new ForgetfulCache<AccountStamp | undefined>(() => Math.min(STAMP_REUSE_MS, config().routeCacheSeconds * 1000));

/**
 * Routes are kept while the stamp says they are current; this bound only lets an account no longer
 * served go, and limits how long a view could outlive a change it was not told of.
 */
const ROUTES_VIEW_MAX_MS = 10 * 60_000;
const routesViews = new ForgetfulCache<RoutesView | undefined>(() => (config().routeCacheSeconds === 0 ? 0 : ROUTES_VIEW_MAX_MS));

const destinationEntries = new ForgetfulCache<DestinationRouting & { version: number }>(() => config().routeCacheSeconds * 1000);
const destinationEntryKey = (accountId: string, destinationId: string) => `${accountId}/${destinationId}`;

onRoutingWrite((write) => {
  switch (write.kind) {
    case 'account':
      routesViews.forget(write.accountId);
      stamps.forget(write.accountId);
      return;
    case 'stamp': {
      const stamp = accountStamp.parse(write.item);
      stamps.forget(write.accountId);
      void stamps.get(write.accountId, () => Promise.resolve(stamp));
      return;
    }
    case 'destination':
      destinationEntries.forget(destinationEntryKey(write.accountId, write.destinationId));
  }
});

/** Half a read unit, eventually consistent: a stamp a moment old only delays a route by that moment. */
const readStamp = (accountId: string) => getItem(accountKey(accountId), accountStamp, false);

/** The account's stamp, reused for a second per instance (`stamps`). */
const currentStamp = (accountId: string, now = Date.now()) => stamps.get(accountId, () => readStamp(accountId), now);

/**
 * The routing table with every destination and route written through this process, and every one
 * written elsewhere about a second before this call (the stamp's reuse, plus DynamoDB's replication
 * lag, usually milliseconds). The routes are kept until the stamp moves; then only the routes and
 * destinations its change log names are read again (all of them when this process is further behind
 * than the log reaches). `now` is the clock the stamp's reuse is measured on.
 */
export async function loadCurrentRoutingTable(accountId: string, now = Date.now()): Promise<RoutingTable | undefined> {
  const stamp = await currentStamp(accountId, now);
  if (stamp === undefined) {
    // An eventually consistent read can miss an account created a moment ago: a consistent read
    // decides, and the miss is not reused.
    stamps.forget(accountId);
    const whole = await readRoutesWhole(accountId);
    return whole && { account: whole.account, ...whole.view };
  }
  const view = await routesAt(accountId, stamp);
  return view && { account: stamp, ...view };
}

/** `table` with `destinationId` among its destinations, read if no route names it (an accept for that destination alone). */
export async function withDestination(table: RoutingTable, destinationId: string): Promise<RoutingTable> {
  if (table.destinations.has(destinationId)) return table;
  const { destination } = await destinationRouting(table.account.id, destinationId, { fresh: true });
  return destination ? { ...table, destinations: new Map([...table.destinations, [destinationId, destination]]) } : table;
}

const catchingUp = new Map<string, Promise<RoutesView | undefined>>();

/** The account's routes at least as new as `stamp`, from this process's view brought up to it. */
async function routesAt(accountId: string, stamp: AccountStamp): Promise<RoutesView | undefined> {
  const cached = await routesViews.get(accountId, async () => (await readRoutesWhole(accountId))?.view);
  if (!cached || cached.version >= stamp.routing_version) return cached;
  const key = `${accountId}@${stamp.routing_version}`;
  let pending = catchingUp.get(key);
  if (!pending) {
    const changed = changesBetween(stamp.routing_changes, stamp.routing_version, cached.version);
    pending = (changed ? readChanges(accountId, cached, changed, stamp.routing_version) : readRoutesWhole(accountId).then((whole) => whole?.view)).finally(() =>
      catchingUp.delete(key),
    );
    catchingUp.set(key, pending);
    const next = await pending;
    routesViews.forget(accountId);
    await routesViews.get(accountId, () => Promise.resolve(next));
  }
  return pending;
}

/**
 * Every route of the account and the destinations they name, read consistently after the account
 * item: a write raises the stamp after its item, so these are at least as new as the stamp read.
 */
async function readRoutesWhole(accountId: string): Promise<{ account: AccountRecord; view: RoutesView } | undefined> {
  const account = await getItem(accountKey(accountId), accountStamp);
  if (!account) return undefined;
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': accountPartition(accountId), ':prefix': routingPrefix.routes },
    ConsistentRead: true,
  });
  const routes = items.map((item) => routeRecord.parse(item));
  return { account, view: { version: account.routing_version, routes, destinations: await readDestinations(accountId, routes, new Map()) } };
}

/** `base` brought to `version`: the routes and destinations `changed` names read again, nothing else. */
async function readChanges(accountId: string, base: RoutesView, changed: ChangedSince, version: number): Promise<RoutesView> {
  const routes = new Map(base.routes.map((route) => [route.id, route]));
  const reread = await batchGet(
    [...changed.routes].map((id) => routeKey(accountId, id)),
    routeRecord,
    { consistent: true },
  );
  for (const id of changed.routes) routes.delete(id);
  for (const route of reread) routes.set(route.id, route);
  const kept = new Map([...base.destinations].filter(([id]) => !changed.destinations.has(id)));
  const next = [...routes.values()];
  return { version, routes: next, destinations: await readDestinations(accountId, next, kept) };
}

/** The destinations `routes` name: those in `known` as they are, the others read consistently. */
async function readDestinations(accountId: string, routes: RouteRecord[], known: Map<string, DestinationRecord>): Promise<Map<string, DestinationRecord>> {
  const named = new Set(routes.map((route) => route.destination_id));
  const missing = [...named].filter((id) => !known.has(id));
  const read = await batchGet(
    missing.map((id) => destinationKey(accountId, id)),
    destinationRecord,
    { consistent: true },
  );
  const destinations = new Map([...known].filter(([id]) => named.has(id)));
  for (const destination of read) destinations.set(destination.id, destination);
  return destinations;
}

/**
 * A destination and its breaker, as a delivery needs them: two consistent reads of its own items,
 * reused for HOOKGATE_ROUTE_CACHE_SECONDS unless the account's stamp names the destination as changed
 * (or moved further than its change log reaches). `fresh` reads again now, except when the destination
 * was found absent and the stamp has not moved since: a storm of deliveries to a deleted destination
 * reads it once, not once each.
 */
export async function destinationRouting(accountId: string, destinationId: string, { fresh = false }: { fresh?: boolean } = {}): Promise<DestinationRouting> {
  const key = destinationEntryKey(accountId, destinationId);
  const stamp = await currentStamp(accountId);
  const version = stamp?.routing_version ?? 0;
  let readNow = false;
  const read = () => {
    readNow = true;
    return readDestinationRouting(accountId, destinationId, version);
  };
  const entry = await destinationEntries.get(key, read);
  if (readNow) return entry;
  const unchanged = stamp !== undefined && changesBetween(stamp.routing_changes, version, entry.version)?.destinations.has(destinationId) === false;
  if (unchanged && (!fresh || entry.destination === undefined)) return entry;
  destinationEntries.forget(key);
  return destinationEntries.get(key, read);
}

async function readDestinationRouting(accountId: string, destinationId: string, version: number): Promise<DestinationRouting & { version: number }> {
  const [destination, breaker] = await Promise.all([getItem(destinationKey(accountId, destinationId), destinationRecord), findBreaker(accountId, destinationId)]);
  return { destination, breaker, version };
}
