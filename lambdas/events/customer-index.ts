import * as z from 'zod/mini';
import { customerView } from '../domain/portal';
import { sideItemExpiresAt } from '../domain/retention';
import { defineEntity } from '../store/entity';
import { eventEntity } from './record';
import { accountPartition } from '../store/keys';
import { eventRecord, withDeliveryStates, type EventRecord } from './record';
import { batchGet, ITEM_EXISTS, putItem, queryPage, updateItem, type Query, type StartKey } from '../store/table';
import type { EventStatus } from '../domain/vocabulary';

/**
 * A customer's event log: one entry per outbound event that has deliveries to the customer's
 * endpoints, in a partition per (account, customer). The entry names the endpoints the event was
 * planned for, so the portal shows those deliveries only; the status is read from the event itself.
 */
const customerEventEntry = z.object({
  event_id: z.string(),
  customer: z.string(),
  event_type: z.nullable(z.string()),
  destination_ids: z.array(z.string()),
  created_at: z.string(),
});
type CustomerEventEntry = z.infer<typeof customerEventEntry>;

/** A partition per (account, customer), sorted by event id (UUIDv7): newest first is a reverse query. */
const logPartition = (accountId: string, customer: string) => `${accountPartition(accountId)}#CUST#${customer}#EVENTS`;
const customerEventEntity = defineEntity({
  name: 'customer_event',
  schema: customerEventEntry,
  key: (accountId: string, customer: string, eventId: string) => ({ pk: logPartition(accountId, customer), sk: eventId }),
});

/** The customers an event's deliveries reach, each with its endpoints. */
function byCustomer(event: EventRecord, customerOf: (destinationId: string) => string | null | undefined): Map<string, string[]> {
  const grouped = new Map<string, string[]>();
  for (const destinationId of Object.keys(event.deliveries)) {
    const customer = customerOf(destinationId);
    if (!customer) continue;
    grouped.set(customer, [...(grouped.get(customer) ?? []), destinationId]);
  }
  return grouped;
}

/**
 * Writes the log entries of a new outbound event, one per customer it reaches (none for an account
 * without customers). Written before the event itself: an entry whose event was never stored is
 * skipped when read, while an event without its entry would be missing from the customer's log.
 * TTL removes entries with the event's side items.
 */
export async function logCustomerEvent(event: EventRecord, customerOf: (destinationId: string) => string | null | undefined): Promise<void> {
  if (event.direction !== 'outbound') return;
  const expiresAt = sideItemExpiresAt(event.received_at, event.retention_days);
  await Promise.all(
    [...byCustomer(event, customerOf)].map(([customer, destinationIds]) => {
      const entry: CustomerEventEntry = {
        event_id: event.id,
        customer,
        event_type: event.event_type,
        destination_ids: destinationIds.sort(),
        created_at: event.created_at,
      };
      // The TTL follows the event's retention, which the entry does not hold.
      return putItem({ ...customerEventEntity.item(entry, customerEventEntity.key(event.account_id, customer, event.id)), expires_at: expiresAt });
    }),
  );
}

/** Re-times a customer's log entry of an event (retention keeps a waiting event's), never creating one. */
export async function setCustomerEntryExpiry(accountId: string, customer: string, eventId: string, expiresAt: number): Promise<void> {
  await updateItem(customerEventEntity.key(accountId, customer, eventId), { set: { expires_at: expiresAt } }, { condition: ITEM_EXISTS });
}

export const findCustomerEvent = (accountId: string, customer: string, eventId: string) =>
  customerEventEntity.find(accountId, customer, eventId);

export interface CustomerLogQuery {
  limit: number;
  /** The last event id of the previous page. */
  after?: string;
  event_type?: string;
  /** The status of the customer's own deliveries (not of the whole event). */
  status?: EventStatus;
}

export interface CustomerLogItem {
  entry: CustomerEventEntry;
  event: EventRecord;
  view: ReturnType<typeof customerView>;
}

const MAX_PAGES = 10;

/**
 * A page of the customer's log, newest first. The type filter runs in DynamoDB on the entries; the
 * status needs each event's status item (one BatchGetItem per page of entries), so a sparse status
 * filter walks a bounded number of pages and hands back a cursor wherever it stopped.
 */
export async function listCustomerEvents(
  accountId: string,
  customer: string,
  query: CustomerLogQuery,
): Promise<{ items: CustomerLogItem[]; nextAfter: string | null }> {
  const partition = logPartition(accountId, customer);
  const items: CustomerLogItem[] = [];
  let startKey: StartKey | undefined = query.after ? customerEventEntity.key(accountId, customer, query.after) : undefined;
  let lastSeen: string | null = null;
  const log: Query =
    query.event_type === undefined
      ? { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': partition }, ScanIndexForward: false }
      : {
          KeyConditionExpression: 'pk = :pk',
          FilterExpression: 'event_type = :type',
          ExpressionAttributeValues: { ':pk': partition, ':type': query.event_type },
          ScanIndexForward: false,
        };
  for (let page = 0; page < MAX_PAGES; page++) {
    const out = await queryPage(log, { limit: query.limit + 1, startKey });
    const entries = out.items.map((item) => customerEventEntry.parse(item));
    const events = new Map(
      (await withDeliveryStates(accountId, await batchGet(entries.map((e) => eventEntity.key(accountId, e.event_id)), eventRecord))).map((e) => [e.id, e]),
    );
    for (const entry of entries) {
      const event = events.get(entry.event_id);
      if (items.length === query.limit) return { items, nextAfter: lastSeen };
      lastSeen = entry.event_id;
      // Only events addressed to the customer: an entry is never trusted alone to widen what it sees.
      if (!event || event.customer !== customer) continue;
      const view = customerView(event.deliveries, entry.destination_ids);
      if (query.status !== undefined && view.status !== query.status) continue;
      items.push({ entry, event, view });
    }
    startKey = out.next;
    if (!startKey) return { items, nextAfter: null };
    lastSeen = typeof startKey.sk === 'string' ? startKey.sk : lastSeen;
  }
  return { items, nextAfter: lastSeen };
}
