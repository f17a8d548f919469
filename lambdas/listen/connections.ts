import { findApiKeyByHash } from '../accounts/api-key-record';
import { LISTEN_MAX_RESPONSE_BODY_BYTES, truncateUtf8, type ListenReply } from '../domain/listen';
import type { NotFound } from '../domain/outcomes';
import { hashApiKey } from '../shared/secrets';
import { log } from '../shared/log';
import { deleteListenConnection, findConnection, findDestinationConnection, findListenSession, insertListenConnection, listListenSessions, putListenReply } from './record';

/**
 * `hookgate listen`'s WebSocket connections: what the listen function does on `$connect`,
 * `$disconnect` and each reply. Apart from ./index.ts (sessions, which create destinations and routes),
 * so the listen function starts without the destinations' and the queue's code.
 */

/** The account of an API key and the key's hash, or undefined: every failure looks the same to the caller. */
export async function keyOf(key: string | undefined): Promise<{ accountId: string; keyHash: string } | undefined> {
  if (!key || !/^hk_[A-Za-z0-9_-]{43}$/.test(key)) return undefined;
  const keyHash = hashApiKey(key);
  const found = await findApiKeyByHash(keyHash);
  return found && { accountId: found.account_id, keyHash };
}

/** Whether the key that connected still exists (consistent: a key revoked a moment ago does not). */
export const keyStillValid = async (connection: { key_hash?: string }): Promise<boolean> =>
  connection.key_hash !== undefined && (await findApiKeyByHash(connection.key_hash)) !== undefined;

/**
 * A WebSocket connection now serves the session's destination (its tries go to the newest), for as
 * long as the key that connected it lives.
 */
export async function connectListener(key: { accountId: string; keyHash: string }, sessionId: string, connectionId: string, now: Date): Promise<{ kind: 'connected' } | NotFound> {
  const session = await findListenSession(key.accountId, sessionId);
  if (!session) return { kind: 'not_found' };
  await insertListenConnection({ account_id: key.accountId, destination_id: session.destination_id, connection_id: connectionId, connected_at: now.toISOString(), key_hash: key.keyHash });
  return { kind: 'connected' };
}

type Close = (connectionId: string) => Promise<void>;
const closeThroughApiGateway: Close = async (connectionId) => (await import('../adapters/listen-connections')).closeConnection(connectionId);

/**
 * Ends the `hookgate listen` connections a revoked key opened. One that cannot be closed now (API
 * Gateway unreachable) is kept as it is: the key no longer exists, so the deliver function closes it
 * on its next try instead of sending (listen-sender), and the revocation itself has already happened.
 */
export async function closeKeyConnections(accountId: string, keyHash: string, close: Close = closeThroughApiGateway): Promise<void> {
  for (const session of await listListenSessions(accountId)) {
    const connection = await findDestinationConnection(accountId, session.destination_id);
    if (connection?.key_hash !== keyHash) continue;
    try {
      await close(connection.connection_id);
    } catch (error) {
      log.warn('could not close a revoked key’s hookgate listen connection; its next try closes it', { account_id: accountId, destination_id: session.destination_id }, error);
      continue;
    }
    await deleteListenConnection(connection);
  }
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
