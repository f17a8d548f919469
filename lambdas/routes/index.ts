import { invalid } from '../domain/errors';
import { findDestination } from '../destinations/record';
import { refused, type NotFound, type Refused } from '../domain/outcomes';
import { newId } from '../shared/secrets';
import { findSource } from '../sources/record';
import { deleteRoute, findRoute, insertRoute, listRoutes, updateRoute, type RouteRecord } from './record';

/**
 * A route's life through the management API: create (its references checked inside the caller's
 * account), show, change, delete. The portal's own routes (an endpoint's event types) are made by
 * lambdas/destinations/subscriptions.ts through the same record module.
 */

export type RouteInput = Partial<Pick<RouteRecord, 'source_id' | 'event_type_pattern' | 'active' | 'filter'>>;

export async function createRoute(accountId: string, request: RouteInput & { destination_id: string }, now: Date): Promise<{ kind: 'created'; route: RouteRecord } | Refused> {
  // References are checked inside the caller's account: another account's ids do not exist here.
  if (!(await findDestination(accountId, request.destination_id))) return refused(invalid('destination_id does not match a destination of this account'));
  if (request.source_id && !(await findSource(accountId, request.source_id))) return refused(invalid('source_id does not match a source of this account'));
  const at = now.toISOString();
  const route: RouteRecord = {
    id: newId(),
    account_id: accountId,
    source_id: request.source_id ?? null,
    destination_id: request.destination_id,
    event_type_pattern: request.event_type_pattern ?? null,
    active: request.active ?? true,
    filter: request.filter ?? null,
    created_at: at,
    updated_at: at,
  };
  await insertRoute(route);
  return { kind: 'created', route };
}

export { findRoute, listRoutes };

const CHANGEABLE = ['active', 'event_type_pattern', 'filter'] as const;

export async function changeRoute(accountId: string, routeId: string, request: RouteInput, now: Date): Promise<{ kind: 'changed'; route: RouteRecord } | NotFound> {
  const changes: Partial<RouteRecord> = { updated_at: now.toISOString() };
  for (const field of CHANGEABLE) if (request[field] !== undefined) Object.assign(changes, { [field]: request[field] });
  const route = await updateRoute(accountId, routeId, changes);
  return route ? { kind: 'changed', route } : { kind: 'not_found' };
}

export async function removeRoute(accountId: string, routeId: string): Promise<{ kind: 'deleted' } | NotFound> {
  if (!(await findRoute(accountId, routeId))) return { kind: 'not_found' };
  await deleteRoute(accountId, routeId);
  return { kind: 'deleted' };
}
