import * as z from 'zod/mini';
import { defineEntity } from '../store/entity';
import { accountPartition, LOOKUP_SK } from '../store/keys';
import { deleteItem } from '../store/table';

/**
 * `hookgate listen` as stored: a session (the CLI's id for itself, and the destination and route it
 * made), the WebSocket connection that serves a session's destination now, and the CLI's answers to
 * the tries posted to it.
 */

/** A listen session: what a CLI that comes back with the same id resumes. */
const listenSessionRecord = z.object({
  account_id: z.string(),
  session_id: z.string(),
  destination_id: z.string(),
  route_id: z.string(),
  created_at: z.string(),
});
export type ListenSessionRecord = z.infer<typeof listenSessionRecord>;

/** Outside the routing range (`ACCOUNT#…`), so the routing table's query never reads it. */
const sessionKey = (accountId: string, sessionId: string) => ({ pk: accountPartition(accountId), sk: `LISTEN#${sessionId}` });
const sessionEntity = defineEntity({
  name: 'listen_session',
  schema: listenSessionRecord,
  key: sessionKey,
  keyOf: (record: ListenSessionRecord) => sessionKey(record.account_id, record.session_id),
  collection: { partition: accountPartition, prefix: 'LISTEN#' },
});

export const findListenSession = (accountId: string, sessionId: string) => sessionEntity.find(accountId, sessionId);
export const listListenSessions = (accountId: string) => sessionEntity.list(accountId);
export const putListenSession = (record: ListenSessionRecord) => sessionEntity.put(record);
export const deleteListenSession = (accountId: string, sessionId: string) => sessionEntity.remove(accountId, sessionId);

/**
 * API Gateway closes a WebSocket connection after 2 hours; its items outlive it a little in case the
 * $disconnect never ran (TTL, in AWS; the connection's absence is what the sender relies on).
 */
const CONNECTION_TTL_SECONDS = 3 * 3600;
const connectionExpiry = (connectedAt: string) => ({ expires_at: Math.ceil(Date.parse(connectedAt) / 1000) + CONNECTION_TTL_SECONDS });

const connectionRecord = z.object({
  account_id: z.string(),
  destination_id: z.string(),
  connection_id: z.string(),
  connected_at: z.string(),
  /** The hash of the API key that connected it: each try checks the key still exists (a revoke ends the connection). */
  key_hash: z.optional(z.string()),
});
export type ListenConnectionRecord = z.infer<typeof connectionRecord>;

/**
 * A destination's partition of its own for everything listen writes (its connection, the answers), so
 * those writes (two per try) never land in the account partition the routing table is read from.
 */
const listenPartition = (accountId: string, destinationId: string) => `${accountPartition(accountId)}#LISTEN#${destinationId}`;

/** The connection a destination's tries go to: the newest; a CLI that connects again replaces it. */
const connectionEntity = defineEntity({
  name: 'listen_connection',
  schema: connectionRecord,
  key: (accountId: string, destinationId: string) => ({ pk: listenPartition(accountId, destinationId), sk: 'CONNECTION' }),
  derived: (record) => connectionExpiry(record.connected_at),
});

/** From a connection id (all API Gateway gives $disconnect and the response route) to its destination. */
const connectionLookupEntity = defineEntity({
  name: 'listen_connection_lookup',
  schema: connectionRecord,
  key: (connectionId: string) => ({ pk: `LISTENCONNECTION#${connectionId}`, sk: LOOKUP_SK }),
  derived: (record) => connectionExpiry(record.connected_at),
});

export async function insertListenConnection(record: ListenConnectionRecord): Promise<void> {
  await connectionLookupEntity.put(record, connectionLookupEntity.key(record.connection_id));
  await connectionEntity.put(record, connectionEntity.key(record.account_id, record.destination_id));
}

export const findDestinationConnection = (accountId: string, destinationId: string) => connectionEntity.find(accountId, destinationId);
export const findConnection = (connectionId: string) => connectionLookupEntity.find(connectionId);

/** Forgets a connection; the destination's entry only while it is still this connection (a newer one stays). */
export async function deleteListenConnection(record: ListenConnectionRecord): Promise<void> {
  await connectionLookupEntity.remove(record.connection_id);
  await deleteItem(connectionEntity.key(record.account_id, record.destination_id), {
    condition: { expression: 'connection_id = :connection', values: { ':connection': record.connection_id } },
  });
}

/** Answers are read within a destination's timeout (30 s at most); an hour covers a deliver function that died. */
const REPLY_TTL_SECONDS = 3600;

const replyRecord = z.object({
  request_id: z.string(),
  status: z.optional(z.int()),
  headers: z.optional(z.record(z.string(), z.string())),
  body: z.optional(z.string()),
  error: z.optional(z.string()),
  answered_at: z.string(),
});
export type ListenReplyRecord = z.infer<typeof replyRecord>;

/** Under the answering connection's destination: a CLI can answer only the tries posted to it. */
const replyEntity = defineEntity({
  name: 'listen_reply',
  schema: replyRecord,
  key: (accountId: string, destinationId: string, requestId: string) => ({ pk: listenPartition(accountId, destinationId), sk: `REPLY#${requestId}` }),
  derived: (record) => ({ expires_at: Math.ceil(Date.parse(record.answered_at) / 1000) + REPLY_TTL_SECONDS }),
});

export const putListenReply = (accountId: string, destinationId: string, record: ListenReplyRecord) =>
  replyEntity.put(record, replyEntity.key(accountId, destinationId, record.request_id));
export const findListenReply = (accountId: string, destinationId: string, requestId: string) => replyEntity.find(accountId, destinationId, requestId);
export const deleteListenReply = (accountId: string, destinationId: string, requestId: string) => replyEntity.remove(accountId, destinationId, requestId);
