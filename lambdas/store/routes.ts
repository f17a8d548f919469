import { defineEntity } from './entity';
import { accountPartition, routingPrefix } from './keys';
import { routeRecord, type RouteRecord } from './records';
import { markRoutingChanged } from './accounts';

/** In the routing range, so the routing table's one query reads it. */
const routeKey = (accountId: string, routeId: string) => ({ pk: accountPartition(accountId), sk: `${routingPrefix.routes}${routeId}` });
const routeEntity = defineEntity({
  name: 'route',
  schema: routeRecord,
  key: routeKey,
  keyOf: (record: RouteRecord) => routeKey(record.account_id, record.id),
  collection: { partition: accountPartition, prefix: routingPrefix.routes },
});

export async function insertRoute(record: RouteRecord): Promise<void> {
  const created = await routeEntity.create(record);
  if (!created) throw new Error(`route id collision: ${record.id}`);
  await markRoutingChanged(record.account_id);
}

export const findRoute = (accountId: string, routeId: string) => routeEntity.find(accountId, routeId);

export const listRoutes = (accountId: string) => routeEntity.list(accountId);

export async function updateRoute(accountId: string, routeId: string, changes: Partial<RouteRecord>) {
  const updated = await routeEntity.update([accountId, routeId], changes);
  await markRoutingChanged(accountId);
  return updated;
}

export async function deleteRoute(accountId: string, routeId: string): Promise<void> {
  await routeEntity.remove(accountId, routeId);
  await markRoutingChanged(accountId);
}
