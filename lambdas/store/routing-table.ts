import { CLOSED_BREAKER, type BreakerState } from '../domain/breaker';
import { destinationRecord, type DestinationRecord } from '../destinations/record';
import { routeRecord, type RouteRecord } from '../routes/record';
import { accountRecord, type AccountRecord } from '../accounts/record';
import { getItem, queryAll } from './table';
import { ACCOUNT_SK, accountKey, accountPartition, routingPrefix, routingRange } from './keys';
import { breakerRecord } from './records';
import { cache, stamps } from './routing-cache';
import * as z from 'zod/mini';

export interface RoutingTable {
  account: AccountRecord;
  /** The account's routing stamp when this table was read; every destination or route write raises it. */
  version: number;
  destinations: Map<string, DestinationRecord>;
  routes: RouteRecord[];
  /** Breakers of destinations that have one; the others are closed. */
  breakers: Map<string, BreakerState & { version: number }>;
}

export const loadRoutingTable = (accountId: string) => cache.get(accountId, () => readRoutingTable(accountId));

/** A consistent read now, which later cached reads in this process reuse. */
export function reloadRoutingTable(accountId: string): Promise<RoutingTable | undefined> {
  cache.forget(accountId);
  return loadRoutingTable(accountId);
}

/** The account's routing stamp, which accounts.ts raises (markRoutingChanged). */
const routingStamp = z.object({ routing_version: z.optional(z.int()) });

/**
 * The routing table with every destination and route written through this process, and every one
 * written elsewhere about a second before this call (the stamp's reuse in routing-cache.ts, plus
 * DynamoDB's replication lag, usually milliseconds): the cached table serves only if it is at least as
 * new as the stamp. `now` is the clock the stamp's reuse is measured on.
 */
export async function loadCurrentRoutingTable(accountId: string, now = Date.now()): Promise<RoutingTable | undefined> {
  const [cached, stamp] = await Promise.all([loadRoutingTable(accountId), stamps.get(accountId, () => readStamp(accountId), now)]);
  if (stamp === undefined) {
    // An eventually consistent read can miss an account created a moment ago: the consistent query
    // decides, and the miss is not reused.
    stamps.forget(accountId);
    return reloadRoutingTable(accountId);
  }
  if (cached && cached.version >= stamp) return cached;
  return reloadRoutingTable(accountId);
}

/** Half a read unit, eventually consistent: a stamp a moment old only delays a route by that moment. */
async function readStamp(accountId: string): Promise<number | undefined> {
  const item = await getItem(accountKey(accountId), routingStamp, false);
  return item && (item.routing_version ?? 0);
}

/** The account item, its destinations, their breakers and its routes sort together: one query reads them all. */
async function readRoutingTable(accountId: string): Promise<RoutingTable | undefined> {
  let account: AccountRecord | undefined;
  let version = 0;
  const destinations = new Map<string, DestinationRecord>();
  const breakers = new Map<string, BreakerState & { version: number }>();
  const routes: RouteRecord[] = [];
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': accountPartition(accountId), ':from': routingRange.from, ':to': routingRange.to },
    ConsistentRead: true,
  });
  for (const item of items) {
    const sk = String(item.sk);
    if (sk === ACCOUNT_SK) {
      account = accountRecord.parse(item);
      version = routingStamp.parse(item).routing_version ?? 0;
    } else if (sk.startsWith(routingPrefix.destinations)) {
      const destination = destinationRecord.parse(item);
      destinations.set(destination.id, destination);
    } else if (sk.startsWith(routingPrefix.breakers)) {
      const { destination_id, ...breaker } = breakerRecord.parse(item);
      breakers.set(destination_id, breaker);
    } else if (sk.startsWith(routingPrefix.routes)) routes.push(routeRecord.parse(item));
  }
  return account ? { account, version, destinations, routes, breakers } : undefined;
}

/** A destination's breaker as the table holds it (closed, version 0, when it has none yet). */
export const breakerOf = (table: RoutingTable | undefined, destinationId: string): BreakerState & { version: number } =>
  table?.breakers.get(destinationId) ?? { ...CLOSED_BREAKER, version: 0 };
