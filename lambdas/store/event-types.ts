import * as z from 'zod/mini';
import { defineEntity } from './entity';
import { accountPartition } from './keys';

/** An entry of the account's event type catalog; the JSON Schema is kept as its JSON text. */
export const eventTypeRecord = z.object({
  account_id: z.string(),
  name: z.string(),
  description: z.nullable(z.string()),
  schema_json: z.nullable(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
});
export type EventTypeRecord = z.infer<typeof eventTypeRecord>;

/** `TYPE#` sorts after `SITEDOMAIN#` and outside the routing range, so the routing query never reads types. */
const eventTypeKey = (accountId: string, name: string) => ({ pk: accountPartition(accountId), sk: `TYPE#${name}` });
const eventTypeEntity = defineEntity({
  name: 'event_type',
  schema: eventTypeRecord,
  key: eventTypeKey,
  keyOf: (record: EventTypeRecord) => eventTypeKey(record.account_id, record.name),
  collection: { partition: accountPartition, prefix: 'TYPE#' },
});

/**
 * Creates the type, or replaces its description and schema (keeping `created_at`). Returns whether
 * it was new. The create is conditional, so of two racing creates one is told it replaced.
 */
export async function putEventType(record: EventTypeRecord): Promise<boolean> {
  if (await eventTypeEntity.create(record)) return true;
  const existing = await findEventType(record.account_id, record.name);
  await eventTypeEntity.put({ ...record, created_at: existing?.created_at ?? record.created_at });
  return false;
}

export const findEventType = (accountId: string, name: string) => eventTypeEntity.find(accountId, name);

/** The catalog in name order. */
export async function listEventTypes(accountId: string): Promise<EventTypeRecord[]> {
  const types = await eventTypeEntity.list(accountId);
  return types.sort((a, b) => a.name.localeCompare(b.name));
}

export const deleteEventType = (accountId: string, name: string) => eventTypeEntity.remove(accountId, name);
