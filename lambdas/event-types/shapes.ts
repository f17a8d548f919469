import * as z from 'zod';
import { isReservedType } from '../domain/operational-events';
import { eventTypeName, named } from '../api-kit/schemas';
import { hasControlChars, textField } from '../api-kit/validation';
import type { EventTypeRecord } from './record';

/** The event type catalog's API shapes, in the management API and the portal: request, answer, example. */

const timestamp = z.iso.datetime();

export const EVENT_TYPE_MESSAGE = 'name must be 1 to 200 letters, digits or . _ : / - (starting with a letter or digit)';
export const RESERVED_EVENT_TYPE_NAME_MESSAGE = 'name must not start with hookgate. (reserved for operational events)';

const jsonSchemaObject = z
  .record(z.string(), z.unknown())
  .refine((v) => JSON.stringify(v).length <= 65_536, { error: () => 'schema must be at most 65536 bytes of JSON' })
  .describe('A JSON Schema of the payload, shown to your customers. At most 64 KB.');

export const createEventTypeBody = named(
  'CreateEventTypeRequest',
  z.strictObject({
    name: eventTypeName('name', EVENT_TYPE_MESSAGE)
      .refine((name) => !isReservedType(name), { error: () => RESERVED_EVENT_TYPE_NAME_MESSAGE })
      .describe('The exact `event_type` you publish, such as `invoice.paid`.'),
    description: textField('description', 1000)
      .refine((v) => !hasControlChars(v))
      .nullable()
      .optional(),
    schema: jsonSchemaObject.nullable().optional(),
  }),
  'Creates the type, or replaces the description and schema of an existing one.',
);

export const eventTypeResponse = named(
  'EventType',
  z.strictObject({
    name: z.string(),
    description: z.string().nullable(),
    schema: z.record(z.string(), z.unknown()).nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

export type EventTypeResponse = z.output<typeof eventTypeResponse>;

export const presentEventType = (t: EventTypeRecord): EventTypeResponse => ({
  name: t.name,
  description: t.description,
  schema: t.schema_json === null ? null : (JSON.parse(t.schema_json) as Record<string, unknown>),
  created_at: t.created_at,
  updated_at: t.updated_at,
});

export const exampleEventType = {
  name: 'invoice.paid',
  description: 'An invoice was paid in full.',
  schema: { type: 'object', properties: { invoice: { type: 'string' }, total: { type: 'integer' } }, required: ['invoice'] },
  created_at: '2026-06-01T12:00:00.000Z',
  updated_at: '2026-06-01T12:00:00.000Z',
} satisfies EventTypeResponse;
