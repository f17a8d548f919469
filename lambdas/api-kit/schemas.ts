import * as z from 'zod';
import { isSubject, SUBJECT_MAX_LENGTH } from '../domain/erasure';
import { isCustomerId, isEventTypeName } from '../domain/portal';
import { EVENT_STATUSES } from '../domain/vocabulary';

/**
 * The OpenAPI document is generated from the very zod schemas the handlers parse with and the
 * presenters are typed by. zod's metadata (`.meta()`, `.describe()`) carries what the document adds:
 * a component name (`id`), a description, JSON Schema keywords that a refinement cannot express.
 */
export const CUSTOMER_MESSAGE = 'customer must be 1 to 128 letters, digits or . _ : @ + - (starting with a letter or digit)';
/** The account's own id for one of its customers: a destination's owner, an outbound event's recipient. */
export const customerField = z.string().refine(isCustomerId, { error: () => CUSTOMER_MESSAGE }).meta({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.:@+-]{0,127}$' });

export const SUBJECT_MESSAGE = `subject must be 1 to ${SUBJECT_MAX_LENGTH} characters`;
/** A data subject (a person's id in the account's own terms), for erasure; stored only as its HMAC. */
export const subjectField = z.string().refine(isSubject, { error: () => SUBJECT_MESSAGE }).meta({ minLength: 1, maxLength: SUBJECT_MAX_LENGTH });

export interface SchemaDoc {
  description?: string;
  format?: string;
  pattern?: string;
}

/** A named component of the OpenAPI document (`#/components/schemas/<id>`): a documented copy of `schema`. */
export function named<T extends z.ZodType>(id: string, schema: T, description?: string): T {
  return schema.meta(description === undefined ? { id } : { id, description }) as T;
}

/** A copy of `schema` documented with JSON Schema keywords (for refinements zod cannot express). */
export function documented<T extends z.ZodType>(schema: T, doc: SchemaDoc): T {
  return schema.meta({ ...doc }) as T;
}

// ---------------------------------------------------------------------------------------------
// Response shapes. The presenters are typed by these (`z.output<typeof ...>`), so what the code
// returns and what the document says cannot drift apart; a test checks real responses against the
// generated document as well.
// ---------------------------------------------------------------------------------------------

export const durationMs = named('DurationMs', z.int().min(0), 'The server’s processing time in milliseconds.');

export const errorResponse = named(
  'Error',
  z.strictObject({ error: z.string().describe('The exact message; validation messages name the field.'), duration_ms: durationMs }),
  'Every error answer.',
);

const uuid = z.uuid();
export const eventStatus = named('EventStatus', z.enum(EVENT_STATUSES), 'Event status; terminal: delivered, dead_letter, replayed.');

export const replayResponse = named(
  'ReplayResult',
  z.strictObject({
    original_event_id: uuid,
    replay_event_id: uuid,
    status: z.literal('queued').describe('Always `queued`; a replay no route matches then ends `accepted` (its detail shows it).'),
  }),
);

export const healthResponse = z.strictObject({ status: z.literal('ok') });
export const readyResponse = z.strictObject({ status: z.literal('ready') });

/** An event type's name, as the API and the portal take it. */
export const eventTypeName = (field: string, message: string) =>
  z.string({ error: () => `${field} is required` }).refine(isEventTypeName, { error: () => message });
