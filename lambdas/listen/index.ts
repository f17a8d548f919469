import { findApiKeyByHash } from '../accounts/api-key-record';
import { ACCOUNT_ACTOR } from '../destinations/changes';
import { changeDestination, createDestination, removeDestination } from '../destinations';
import { findDestination, type DestinationRecord } from '../destinations/record';
import { LISTEN_MAX_RESPONSE_BODY_BYTES, truncateUtf8, type ListenReply } from '../domain/listen';
import type { NotFound, Refused } from '../pipeline/outcomes';
import { createRoute, removeRoute } from '../routes';
import { findRoute, type RouteRecord } from '../routes/record';
import { hashApiKey } from '../shared/secrets';
import {
  deleteListenConnection,
  deleteListenSession,
  findConnection,
  findListenSession,
  insertListenConnection,
  putListenSession,
  putListenReply,
  type ListenSessionRecord,
} from './record';

/**
 * `hookgate listen`'s sessions and connections. A session is the CLI's: a `cli` destination of the
 * account and one route to it with the CLI's filters. The CLI opens it (again, after a restart: same
 * session id, same destination, so deliveries that waited as retries reach it), connects its
 * WebSocket to it, and closes it when it exits. Only an API key opens one, for its own account.
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

/** The account of an API key, or undefined: every failure looks the same to the caller. */
export async function accountOfKey(key: string | undefined): Promise<string | undefined> {
  if (!key || !/^hk_[A-Za-z0-9_-]{43}$/.test(key)) return undefined;
  return (await findApiKeyByHash(hashApiKey(key)))?.account_id;
}

/** A WebSocket connection now serves the session's destination (its tries go to the newest). */
export async function connectListener(accountId: string, sessionId: string, connectionId: string, now: Date): Promise<{ kind: 'connected' } | NotFound> {
  const session = await findListenSession(accountId, sessionId);
  if (!session) return { kind: 'not_found' };
  await insertListenConnection({ account_id: accountId, destination_id: session.destination_id, connection_id: connectionId, connected_at: now.toISOString() });
  return { kind: 'connected' };
}

export async function disconnectListener(connectionId: string): Promise<void> {
  const connection = await findConnection(connectionId);
  if (connection) await deleteListenConnection(connection);
}

const MAX_REPLY_HEADERS = 100;

/**
 * Stores the CLI's answer to one try, under the destination the connection serves, for the deliver
 * function that waits for it. What an attempt keeps is cut here already, as the HTTP sender cuts it.
 */
export async function storeReply(connectionId: string, reply: ListenReply, now: Date): Promise<{ kind: 'stored' } | NotFound> {
  const connection = await findConnection(connectionId);
  if (!connection) return { kind: 'not_found' };
  const headers = reply.headers && Object.fromEntries(Object.entries(reply.headers).slice(0, MAX_REPLY_HEADERS).map(([name, value]) => [name, truncateUtf8(value, 1024)]));
  await putListenReply(connection.account_id, connection.destination_id, {
    request_id: reply.request_id,
    status: reply.status,
    headers,
    body: reply.body === undefined ? undefined : truncateUtf8(reply.body, LISTEN_MAX_RESPONSE_BODY_BYTES),
    error: reply.error === undefined ? undefined : truncateUtf8(reply.error, 1024),
    answered_at: now.toISOString(),
  });
  return { kind: 'stored' };
}
