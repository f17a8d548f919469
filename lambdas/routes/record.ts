import * as z from 'zod/mini';
import { defineEntity } from '../store/entity';
import { accountPartition, routingPrefix } from '../store/keys';
import { jsonText } from '../store/records';
import { markRoutingChanged } from '../accounts/record';

/** A route as stored: which events (by source, type and payload) go to which destination. */
export const routeRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  source_id: z.nullable(z.string()),
  destination_id: z.string(),
  event_type_pattern: z.nullable(z.string()),
  active: z.boolean(),
  /** `portal`: made by the consumer portal, which may remove it again; matches outbound events only. */
  managed_by: z.optional(z.nullable(z.literal('portal'))),
  /** A payload filter (lambdas/domain/payload-filter.ts), validated when written; absent or null: none. */
  filter: z.optional(z.nullable(jsonText(z.record(z.string(), z.unknown())))),
  created_at: z.string(),
  updated_at: z.string(),
});
export type RouteRecord = z.infer<typeof routeRecord>;

/** In the routing range: ingest reads them all by prefix once, then each one its change names. */
export const routeKey = (accountId: string, routeId: string) => ({ pk: accountPartition(accountId), sk: `${routingPrefix.routes}${routeId}` });
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
  await markRoutingChanged(record.account_id, { kind: 'route', id: record.id });
}

export const findRoute = (accountId: string, routeId: string) => routeEntity.find(accountId, routeId);

export const listRoutes = (accountId: string) => routeEntity.list(accountId);

export async function updateRoute(accountId: string, routeId: string, changes: Partial<RouteRecord>) {
  const updated = await routeEntity.update([accountId, routeId], changes);
  await markRoutingChanged(accountId, { kind: 'route', id: routeId });
  return updated;
}

export async function deleteRoute(accountId: string, routeId: string): Promise<void> {
  await routeEntity.remove(accountId, routeId);
  await markRoutingChanged(accountId, { kind: 'route', id: routeId });
}
