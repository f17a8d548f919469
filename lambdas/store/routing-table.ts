import { config } from '../shared/config';
import { ForgetfulCache } from './forgetful-cache';
import { queryAll } from './table';
import { accountPartition } from './keys';
import {
  accountRecord,
  destinationRecord,
  routeRecord,
  type AccountRecord,
  type DestinationRecord,
  type RouteRecord,
} from './records';

export interface RoutingTable {
  account: AccountRecord;
  destinations: Map<string, DestinationRecord>;
  routes: RouteRecord[];
}

// Warm functions reuse an account's routing table for HOOKGATE_ROUTE_CACHE_SECONDS (default 5 s): a
// route or destination change reaches other functions' new events within that time. Writes through
// this process forget the entry at once, so the local gateway (one process) is never stale, even when
// a read was in flight during the write.
const cache = new ForgetfulCache<RoutingTable | undefined>(() => config().routeCacheSeconds * 1000);

export const loadRoutingTable = (accountId: string) => cache.get(accountId, () => readRoutingTable(accountId));

export function forgetRoutingTable(accountId: string): void {
  cache.forget(accountId);
}

/** The account item, its destinations and its routes sort together: one query reads them all. */
async function readRoutingTable(accountId: string): Promise<RoutingTable | undefined> {
  let account: AccountRecord | undefined;
  const destinations = new Map<string, DestinationRecord>();
  const routes: RouteRecord[] = [];
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': accountPartition(accountId), ':from': 'ACCOUNT', ':to': 'ROUTE#\uffff' },
    ConsistentRead: true,
  });
  for (const item of items) {
    const sk = String(item.sk);
    if (sk === 'ACCOUNT') account = accountRecord.parse(item);
    else if (sk.startsWith('DEST#')) {
      const destination = destinationRecord.parse(item);
      destinations.set(destination.id, destination);
    } else if (sk.startsWith('ROUTE#')) routes.push(routeRecord.parse(item));
  }
  return account ? { account, destinations, routes } : undefined;
}
