import { accountPartition, keys, listPrefix } from './keys';
import { routeRecord, type RouteRecord } from './records';
import { markRoutingChanged } from './routing-table';
import { deleteItem, getItem, putNew, queryPrefix, updateExisting } from './table';

export async function insertRoute(record: RouteRecord): Promise<void> {
  const created = await putNew({ ...keys.route(record.account_id, record.id), entity: 'route', ...record });
  if (!created) throw new Error(`route id collision: ${record.id}`);
  await markRoutingChanged(record.account_id);
}

export const findRoute = (accountId: string, routeId: string) => getItem(keys.route(accountId, routeId), routeRecord);

export const listRoutes = (accountId: string) => queryPrefix(accountPartition(accountId), listPrefix.routes, routeRecord);

export async function updateRoute(accountId: string, routeId: string, changes: Partial<RouteRecord>) {
  const updated = await updateExisting(keys.route(accountId, routeId), changes, routeRecord);
  await markRoutingChanged(accountId);
  return updated;
}

export async function deleteRoute(accountId: string, routeId: string): Promise<void> {
  await deleteItem(keys.route(accountId, routeId));
  await markRoutingChanged(accountId);
}
