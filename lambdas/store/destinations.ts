import { accountPartition, keys, listPrefix } from './keys';
import { destinationRecord, type DestinationRecord } from './records';
import { markRoutingChanged } from './routing-table';
import { deleteItem, getItem, putNew, queryPrefix, updateExisting } from './table';

export async function insertDestination(record: DestinationRecord): Promise<void> {
  const created = await putNew({ ...keys.destination(record.account_id, record.id), entity: 'destination', ...record });
  if (!created) throw new Error(`destination id collision: ${record.id}`);
  await markRoutingChanged(record.account_id);
}

export const findDestination = (accountId: string, destinationId: string) =>
  getItem(keys.destination(accountId, destinationId), destinationRecord);

export const listDestinations = (accountId: string) =>
  queryPrefix(accountPartition(accountId), listPrefix.destinations, destinationRecord);

export async function updateDestination(accountId: string, destinationId: string, changes: Partial<DestinationRecord>) {
  const updated = await updateExisting(keys.destination(accountId, destinationId), changes, destinationRecord);
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
  await deleteItem(keys.destination(accountId, destinationId));
  await deleteItem(keys.breaker(accountId, destinationId));
  await markRoutingChanged(accountId);
}
