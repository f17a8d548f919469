import { accountPartition, keys, listPrefix } from './keys';
import { routeRecord, type RouteRecord } from './records';
import { deleteItem, getItem, putNew, queryPrefix, updateExisting } from './table';

export async function insertRoute(record: RouteRecord): Promise<void> {
  const created = await putNew({ ...keys.route(record.account_id, record.id), entity: 'route', ...record });
  if (!created) throw new Error(`route id collision: ${record.id}`);
}

export const findRoute = (accountId: string, routeId: string) => getItem(keys.route(accountId, routeId), routeRecord);

export const listRoutes = (accountId: string) => queryPrefix(accountPartition(accountId), listPrefix.routes, routeRecord);

export const updateRoute = (accountId: string, routeId: string, changes: Partial<RouteRecord>) =>
  updateExisting(keys.route(accountId, routeId), changes, routeRecord);

export const deleteRoute = (accountId: string, routeId: string) => deleteItem(keys.route(accountId, routeId));
