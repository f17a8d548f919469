import { ACCOUNT_ACTOR } from '../destinations/changes';
import { changeDestination, createDestination, removeDestination } from '../destinations';
import { findDestination, type DestinationRecord } from '../destinations/record';
import type { NotFound, Refused } from '../domain/outcomes';
import { createRoute, removeRoute } from '../routes';
import { findRoute, type RouteRecord } from '../routes/record';
import { deleteListenSession, findListenSession, putListenSession, type ListenSessionRecord } from './record';

/**
 * `hookgate listen`'s sessions (its WebSocket connections: ./connections.ts). A session is the CLI's:
 * a `cli` destination of the account and one route to it with the CLI's filters. The CLI opens it
 * (again, after a restart: same session id, same destination, so deliveries that waited as retries
 * reach it), connects its WebSocket to it, and closes it when it exits. Only an API key opens one,
 * for its own account.
 */

export interface ListenSessionRequest {
  session_id: string;
  event_type_pattern?: string | null;
  source_id?: string | null;
  customer?: string | null;
  timeout_ms?: number;
}

export interface OpenedSession {
  kind: 'created' | 'resumed';
  session: ListenSessionRecord;
  destination: DestinationRecord;
  route: RouteRecord;
}

const NAME = 'hookgate listen';

/** Creates the session, or resumes it with the filters asked for now. */
export async function openListenSession(accountId: string, request: ListenSessionRequest, now: Date): Promise<OpenedSession | Refused> {
  const found = await findListenSession(accountId, request.session_id);
  const current = found && (await findDestination(accountId, found.destination_id));
  if (!found || !current) return createSession(accountId, request, now);
  let destination = current;
  const customer = request.customer ?? null;
  if (destination.customer !== customer || (request.timeout_ms !== undefined && destination.timeout_ms !== request.timeout_ms)) {
    const changed = await changeDestination(destination, { customer, timeout_ms: request.timeout_ms }, ACCOUNT_ACTOR, now);
    if (changed.kind === 'refused') return changed;
    if (changed.kind === 'changed') destination = changed.destination;
  }
  const route = await findRoute(accountId, found.route_id);
  if (route && route.source_id === (request.source_id ?? null) && route.event_type_pattern === (request.event_type_pattern ?? null)) {
    return { kind: 'resumed', session: found, destination, route };
  }
  // Other filters: a new route, then the old one goes, so no event falls between the two.
  const made = await createRoute(accountId, { destination_id: destination.id, source_id: request.source_id, event_type_pattern: request.event_type_pattern }, now);
  if (made.kind === 'refused') return made;
  if (route) await removeRoute(accountId, route.id);
  const session = { ...found, route_id: made.route.id };
  await putListenSession(session);
  return { kind: 'resumed', session, destination, route: made.route };
}

async function createSession(accountId: string, request: ListenSessionRequest, now: Date): Promise<OpenedSession | Refused> {
  const created = await createDestination(
    accountId,
    { name: NAME, listen_session: request.session_id, customer: request.customer, timeout_ms: request.timeout_ms },
    ACCOUNT_ACTOR,
    now,
  );
  if (created.kind === 'refused') return created;
  const { destination } = created;
  const made = await createRoute(accountId, { destination_id: destination.id, source_id: request.source_id, event_type_pattern: request.event_type_pattern }, now);
  if (made.kind === 'refused') {
    await removeDestination(destination, ACCOUNT_ACTOR);
    return made;
  }
  const session: ListenSessionRecord = {
    account_id: accountId,
    session_id: request.session_id,
    destination_id: destination.id,
    route_id: made.route.id,
    created_at: now.toISOString(),
  };
  await putListenSession(session);
  return { kind: 'created', session, destination, route: made.route };
}

/** Removes the session's destination and its routes (deliveries still waiting end `destination_deleted`). */
export async function closeListenSession(accountId: string, sessionId: string): Promise<{ kind: 'deleted' } | NotFound> {
  const found = await findListenSession(accountId, sessionId);
  if (!found) return { kind: 'not_found' };
  const destination = await findDestination(accountId, found.destination_id);
  if (destination) await removeDestination(destination, ACCOUNT_ACTOR);
  await deleteListenSession(accountId, sessionId);
  return { kind: 'deleted' };
}
