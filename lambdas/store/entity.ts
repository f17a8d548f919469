import * as z from 'zod/mini';
import { deleteItem, getItem, putItem, putNew, queryPrefix, updateExisting } from './table';

export type Key = { pk: string; sk: string };
type Attributes = Record<string, unknown>;

/**
 * An item type as its module declares it (after ElectroDB's entities): its key, its schema, the index
 * and TTL attributes its state implies, and the account collection it is listed from. Every write of
 * the type goes through `item`, so the stored shape is written down once.
 */
export interface EntityDefinition<T, Ids extends unknown[]> {
  /** The `entity` attribute every item of the type carries. */
  name: string;
  /** The stored shape; a field that is a codec (JSON kept as text) is encoded on every write. */
  schema: z.ZodMiniObject & z.ZodMiniType<T>;
  key: (...ids: Ids) => Key;
  /** The key of a record that carries its own ids; types keyed by something outside the record omit it. */
  keyOf?: (record: T) => Key;
  derived?: (record: T) => Attributes;
  /** Where the account's items of this type sort together, for `list`. */
  collection?: { partition: (accountId: string) => string; prefix: string };
}

export function defineEntity<T extends Attributes, Ids extends unknown[]>(definition: EntityDefinition<T, Ids>) {
  const { name, schema, key, keyOf, derived, collection } = definition;
  const fields: Readonly<Record<string, z.core.$ZodType>> = schema.def.shape;
  const encodeChanges = (changes: Partial<T>) =>
    Object.fromEntries(Object.entries(changes).map(([field, value]) => [field, fields[field] ? z.encode(fields[field], value) : value]));
  const item = (record: T, at?: Key) => {
    const itemKey = at ?? keyOf?.(record);
    if (!itemKey) throw new Error(`${name} items are keyed by ids the record does not hold: pass the key`);
    return { ...itemKey, entity: name, ...z.encode(schema, record), ...derived?.(record) };
  };
  return {
    name,
    schema,
    key,
    item,
    find: (...ids: Ids) => getItem(key(...ids), schema),
    /** False when the key was already taken. */
    create: (record: T, at?: Key) => putNew(item(record, at)),
    /** Writes the record whole, whatever the key held. */
    put: async (record: T, at?: Key): Promise<void> => {
      await putItem(item(record, at));
    },
    update: (ids: Ids, changes: Partial<T>, removals: string[] = [], when: Attributes = {}) =>
      updateExisting(key(...ids), encodeChanges(changes), schema, removals, when),
    remove: async (...ids: Ids): Promise<void> => {
      await deleteItem(key(...ids));
    },
    /** Newest first (ids are UUIDv7). */
    list: (accountId: string, max = Infinity) => {
      if (!collection) throw new Error(`${name} items are not listed by account`);
      return queryPrefix(collection.partition(accountId), collection.prefix, schema, max);
    },
  };
}
