import { isEventTypeName } from '../domain/portal';
import type { NotFound } from '../domain/outcomes';
import { deleteEventType, findEventType, listEventTypes, putEventType as storeEventType, type EventTypeRecord } from './record';

/** The account's event type catalog: what its customers may subscribe their endpoints to. */

export interface EventTypeInput {
  name: string;
  description?: string | null;
  schema?: Record<string, unknown> | null;
}

/** Adds the type, or replaces its description and schema (keeping when it was first added). */
export async function putEventType(accountId: string, input: EventTypeInput, now: Date): Promise<{ kind: 'created' | 'replaced'; eventType: EventTypeRecord }> {
  const at = now.toISOString();
  const record: EventTypeRecord = {
    account_id: accountId,
    name: input.name,
    description: input.description ?? null,
    schema_json: input.schema ? JSON.stringify(input.schema) : null,
    created_at: at,
    updated_at: at,
  };
  if (await storeEventType(record)) return { kind: 'created', eventType: record };
  return { kind: 'replaced', eventType: (await findEventType(accountId, input.name)) ?? record };
}

export { listEventTypes };

/** A name that is no valid type name cannot be in the catalog: it is as unknown as a missing one. */
export async function removeEventType(accountId: string, name: string): Promise<{ kind: 'deleted' } | NotFound> {
  if (!isEventTypeName(name) || !(await findEventType(accountId, name))) return { kind: 'not_found' };
  await deleteEventType(accountId, name);
  return { kind: 'deleted' };
}
