import { invalid } from '../domain/errors';
import { customerView } from '../domain/portal';
import { firstIdAt, lastIdAt } from '../domain/time-bounds';
import type { Direction, EventStatus } from '../domain/vocabulary';
import { payloadUrl, readStoredBody } from '../adapters/payloads';
import { refused, type Refused } from '../domain/outcomes';
import { findCustomerEvent } from './customer-index';
import { listEvents as listEventPage, type EventListItem } from './lists';
import { findEventDetail, type AttemptRecord, type EventBodyRecord, type EventRecord } from './record';

/**
 * Reading events, for the management API (one direction of the account's events) and for the portal
 * (the events addressed to one customer, with that customer's deliveries only). Both show an event
 * through `showEvent`, so what a detail holds is read one way.
 */

/** The customer's event log (newest first) and one entry of it. */
export { findCustomerEvent, listCustomerEvents } from './customer-index';

export interface EventFilters {
  limit: number;
  /** The last event id of the previous page. */
  after?: string;
  status?: EventStatus;
  event_type?: string;
  source_id?: string;
  external_event_id?: string;
  customer?: string;
  /** ISO 8601, inclusive bounds on `created_at`. */
  date_from?: string;
  date_to?: string;
}

/** A page of the account's events of one direction, newest first. */
export async function listAccountEvents(
  accountId: string,
  direction: Direction,
  filters: EventFilters,
): Promise<{ kind: 'page'; items: EventListItem[]; nextAfter: string | null } | Refused> {
  const { date_from: from, date_to: to, ...rest } = filters;
  if (from && to && from > to) return refused(invalid('date_from must not be after date_to'));
  const page = await listEventPage(accountId, direction, {
    ...rest,
    from: from ? firstIdAt(Date.parse(from)) : undefined,
    to: to ? lastIdAt(Date.parse(to)) : undefined,
  });
  return { kind: 'page', ...page };
}

/** Whose view of an event: the account's, of one direction; or one customer's, of its own deliveries. */
export type EventScope = { direction: Direction } | { customer: string };

export interface ShownEvent {
  /** For a customer: its deliveries only, and the status and attempt count they add up to. */
  event: EventRecord;
  body: EventBodyRecord;
  bytes: Buffer;
  /** Oldest first; for a customer, to its endpoints only. */
  attempts: AttemptRecord[];
}

/** An event with its payload and attempts, or undefined when it is not in the scope (as an unknown id is). */
export async function showEvent(accountId: string, eventId: string, scope: EventScope): Promise<ShownEvent | undefined> {
  if ('direction' in scope) {
    const detail = await findEventDetail(accountId, eventId);
    if (!detail || detail.event.direction !== scope.direction) return undefined;
    return { ...detail, bytes: await readStoredBody(detail.body) };
  }
  const entry = await findCustomerEvent(accountId, scope.customer, eventId);
  const detail = entry && (await findEventDetail(accountId, eventId));
  if (!entry || !detail || detail.event.customer !== scope.customer) return undefined;
  const view = customerView(detail.event.deliveries, entry.destination_ids);
  return {
    event: { ...detail.event, deliveries: view.deliveries, status: view.status, attempts_count: view.attempts },
    body: detail.body,
    bytes: await readStoredBody(detail.body),
    attempts: detail.attempts.filter((a) => entry.destination_ids.includes(a.destination_id)),
  };
}

/** A pre-signed link to a payload kept in the payload bucket (undefined: it is stored inline). */
export const payloadLink = async (body: EventBodyRecord): Promise<string | undefined> => (body.body_ref ? payloadUrl(body.body_ref) : undefined);
