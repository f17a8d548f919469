import * as z from 'zod/mini';
import { breakerEntity } from './breakers';
import { defineEntity } from './entity';
import { accountPartition, routingPrefix } from './keys';
import { destinationRecord, type DestinationRecord } from './records';
import { markRoutingChanged } from './accounts';
import { queryAll } from './table';

/** In the routing range, so the routing table's one query reads it. */
const destinationKey = (accountId: string, destinationId: string) => ({
  pk: accountPartition(accountId),
  sk: `${routingPrefix.destinations}${destinationId}`,
});
const destinationEntity = defineEntity({
  name: 'destination',
  schema: destinationRecord,
  key: destinationKey,
  keyOf: (record: DestinationRecord) => destinationKey(record.account_id, record.id),
  collection: { partition: accountPartition, prefix: routingPrefix.destinations },
});

export async function insertDestination(record: DestinationRecord): Promise<void> {
  const created = await destinationEntity.create(record);
  if (!created) throw new Error(`destination id collision: ${record.id}`);
  await markRoutingChanged(record.account_id);
}

export const findDestination = (accountId: string, destinationId: string) => destinationEntity.find(accountId, destinationId);

export const listDestinations = (accountId: string) => destinationEntity.list(accountId);

const ownerOnly = z.object({ customer: destinationRecord.shape.customer });

/**
 * The customer of each of the account's destinations (null: the account's own), to count them: the
 * query of the destination list, consistent (a destination just created counts), fetching one attribute.
 */
export async function destinationOwners(accountId: string): Promise<Array<string | null>> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': accountPartition(accountId), ':prefix': routingPrefix.destinations },
    ExpressionAttributeNames: { '#customer': 'customer' },
    ProjectionExpression: '#customer',
    ConsistentRead: true,
  });
  return items.map((item) => ownerOnly.parse(item).customer);
}

export async function updateDestination(accountId: string, destinationId: string, changes: Partial<DestinationRecord>) {
  const updated = await destinationEntity.update([accountId, destinationId], changes);
  await markRoutingChanged(accountId);
  return updated;
}

/** Hookgate switches a destination off by itself (its endpoint answered 410 Gone). */
export const disableDestination = (accountId: string, destinationId: string, reason: string, at: Date) =>
  updateDestination(accountId, destinationId, { active: false, disabled_reason: reason, updated_at: at.toISOString() });

/**
 * Deletes a destination and its breaker (the caller removes its routes first, so no new event plans
 * a delivery to it); deliveries already planned end `destination_deleted`.
 */
export async function deleteDestination(accountId: string, destinationId: string): Promise<void> {
  await destinationEntity.remove(accountId, destinationId);
  await breakerEntity.remove(accountId, destinationId);
  await markRoutingChanged(accountId);
}
