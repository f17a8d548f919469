import { performance } from 'node:perf_hooks';
import {
  CONNECTION_GONE,
  KEY_REVOKED,
  LISTEN_MAX_BODY_BYTES,
  noAnswerWithin,
  NOT_CONNECTED,
  replyOutcome,
  replyPolls,
  tooLargeForListen,
  type ListenOutcome,
  type ListenRequest,
} from '../domain/listen';
import { keyStillValid } from '../listen/connections';
import { deleteListenConnection, deleteListenReply, findDestinationConnection, findListenReply } from '../listen/record';
import { newId } from '../shared/secrets';
import type { DeliveryRequest, DeliveryResult } from './http-sender';

/**
 * One try to a `cli` destination: the signed request goes to the CLI's WebSocket connection, and the
 * CLI's answer (its local server's status, headers and body), which the response route writes to the
 * table, is the attempt's outcome. The deliver function reads that answer with short pauses
 * (`replyPolls`) until the destination's timeout: one strongly consistent read each, so a 50 ms local
 * answer costs about three reads, and a CLI that never answers one per 250 ms of the timeout. Never
 * throws: a missing or gone connection is a failed try, retried on the destination's schedule.
 */

/** Which delivery the try is: the CLI prints these. */
export interface ListenDelivery {
  accountId: string;
  destinationId: string;
  eventId: string;
  eventType: string | null;
  attempt: number;
}

type Post = (connectionId: string, data: string, signal: AbortSignal) => Promise<'sent' | 'gone'>;
type Close = (connectionId: string) => Promise<void>;

const defaultPost: Post = async (...args) => (await import('./listen-connections')).postToConnection(...args);
const defaultClose: Close = async (connectionId) => (await import('./listen-connections')).closeConnection(connectionId);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function sendToListener(
  delivery: ListenDelivery & Pick<DeliveryRequest, 'headers' | 'body' | 'timeoutMs'>,
  post: Post = defaultPost,
  close: Close = defaultClose,
): Promise<DeliveryResult> {
  const clock: TryClock = { startedAt: performance.now() };
  try {
    return finish(clock, await exchange(delivery, post, close, clock));
  } catch (error) {
    return finish(clock, { outcome: 'network_error', responseStatus: null, responseBody: '', error: `hookgate listen: ${(error as Error).message ?? String(error)}` });
  }
}

/** When the try began, and when its request was posted: its timeout and duration count from there. */
interface TryClock {
  startedAt: number;
  postedAt?: number;
}

async function exchange(delivery: ListenDelivery & Pick<DeliveryRequest, 'headers' | 'body' | 'timeoutMs'>, post: Post, close: Close, clock: TryClock): Promise<ListenOutcome> {
  const { accountId, destinationId, timeoutMs } = delivery;
  if (delivery.body.length > LISTEN_MAX_BODY_BYTES) return failed('blocked', tooLargeForListen(delivery.body.length));
  const connection = await findDestinationConnection(accountId, destinationId);
  if (!connection) return failed('network_error', NOT_CONNECTED);
  // A revoked key stops what it opened: the next try closes its connection instead of sending to it.
  if (!(await keyStillValid(connection))) {
    await deleteListenConnection(connection);
    await close(connection.connection_id);
    return failed('network_error', KEY_REVOKED);
  }
  const request: ListenRequest = {
    type: 'request',
    request_id: newId(),
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    attempt: delivery.attempt,
    method: 'POST',
    headers: delivery.headers,
    body_base64: delivery.body.toString('base64'),
    timeout_ms: timeoutMs,
  };
  // As an HTTP try's from its request being on the wire: the reads before the post are not the CLI's time.
  const postedAt = performance.now();
  clock.postedAt = postedAt;
  const posted = await post(connection.connection_id, JSON.stringify(request), AbortSignal.timeout(Math.max(1, timeoutMs)));
  if (posted === 'gone') {
    await deleteListenConnection(connection);
    return failed('network_error', CONNECTION_GONE);
  }
  const remaining = timeoutMs - (performance.now() - postedAt);
  for (const ms of replyPolls(Math.max(0, remaining))) {
    await pause(ms);
    const reply = await findListenReply(accountId, destinationId, request.request_id);
    if (reply) {
      await deleteListenReply(accountId, destinationId, request.request_id);
      return replyOutcome(reply);
    }
  }
  return failed('timeout', noAnswerWithin(timeoutMs));
}

const failed = (outcome: ListenOutcome['outcome'], error: string): ListenOutcome => ({ outcome, responseStatus: null, responseBody: '', error });

function finish(clock: TryClock, result: ListenOutcome): DeliveryResult {
  return { ...result, retryAfterSeconds: null, durationMs: Math.round(performance.now() - (clock.postedAt ?? clock.startedAt)) };
}
