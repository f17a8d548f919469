import { DELIVERY_QUEUE } from '../../lib/resource-definitions';
import { nextRetry } from '../domain/backoff';
import { deliveryHeaders } from '../domain/delivery-headers';
import { statusAfter } from '../domain/delivery-plan';
import { isTerminalDelivery } from '../domain/event-status';
import type { DeliveryState } from '../domain/progress';
import { activeSecrets } from '../domain/signing';
import type { DeliveryTask } from '../adapters/delivery-queue';
import type { DeliveryResult } from '../adapters/http-sender';
import { readStoredBody } from '../adapters/payloads';
import { config } from '../shared/config';
import { log } from '../shared/log';
import { recordDeliveryAttempt } from '../shared/metrics';
import { newId } from '../shared/secrets';
import { changeEvent, findEventWithBody, insertAttempt } from '../store/events';
import type { DestinationRecord, EventBodyRecord, EventRecord } from '../store/records';
import { loadRoutingTable } from '../store/routing-table';

/** What the queue should do with the task's message afterwards. */
export type TaskResult = { kind: 'done' } | { kind: 'later'; seconds: number };

export interface DeliverDeps {
  send: (request: {
    url: string;
    headers: Record<string, string>;
    body: Buffer;
    timeoutMs: number;
    allowPrivate: boolean;
  }) => Promise<DeliveryResult>;
  now: () => Date;
}

/** A try in flight belongs to its worker until the worker's Lambda would have timed out. */
const LEASE_MS = DELIVERY_QUEUE.consumerTimeoutSeconds * 1000;
/** A message that arrives up to this early is delivered rather than put back. */
const EARLY_TOLERANCE_MS = 1000;

/**
 * One try of one delivery task: claim it, send it, record the attempt, decide what comes next.
 * Idempotent against duplicate messages: a settled or already-claimed delivery is left alone.
 */
export async function deliverTask(task: DeliveryTask, deps: DeliverDeps): Promise<TaskResult> {
  const loaded = await findEventWithBody(task.account_id, task.event_id);
  if (!loaded) return { kind: 'done' }; // deleted by retention, or a duplicate that was never queued
  const waiting = loaded.event.deliveries[task.destination_id];
  if (!waiting || isTerminalDelivery(waiting.status)) return { kind: 'done' };

  const now = deps.now();
  if (waiting.status !== 'delivering' && waiting.next_attempt_at) {
    const wait = Date.parse(waiting.next_attempt_at) - now.getTime();
    if (wait > EARLY_TOLERANCE_MS) return { kind: 'later', seconds: Math.ceil(wait / 1000) };
  }

  const claimedAt = now.toISOString();
  const claim = await changeEvent(
    task.account_id,
    task.event_id,
    (event) => claimDelivery(event, task.destination_id, claimedAt, now),
    deps.now,
    loaded.event,
  );
  if (!claim?.changed) return { kind: 'done' };
  const attemptNumber = (claim.event.deliveries[task.destination_id]?.attempts ?? 0) + 1;

  const destination = (await loadRoutingTable(task.account_id))?.destinations.get(task.destination_id);
  const result = destination
    ? await sendTo(destination, claim.event, loaded.body, deps)
    : MISSING_DESTINATION;

  const attemptedAt = deps.now();
  await insertAttempt(
    task.account_id,
    {
      id: newId(),
      event_id: task.event_id,
      destination_id: task.destination_id,
      attempt_number: attemptNumber,
      outcome: result.outcome,
      response_status: result.responseStatus,
      response_body: result.responseBody,
      error: result.error,
      attempted_at: attemptedAt.toISOString(),
      duration_ms: result.durationMs,
    },
    claim.event.retention_days,
  );

  const retry =
    result.outcome === 'success' || !destination
      ? ({ retry: false } as const)
      : nextRetry(config().retrySchedule, attemptNumber, result.retryAfterSeconds);
  await changeEvent(task.account_id, task.event_id, (event) => {
    const current = event.deliveries[task.destination_id];
    if (!current || current.status !== 'delivering' || current.claimed_at !== claimedAt) return undefined; // taken over
    const next: DeliveryState =
      result.outcome === 'success'
        ? { status: 'delivered', attempts: attemptNumber, next_attempt_at: null, claimed_at: null }
        : retry.retry
          ? {
              status: 'retry_scheduled',
              attempts: attemptNumber,
              next_attempt_at: new Date(attemptedAt.getTime() + retry.delaySeconds * 1000).toISOString(),
              claimed_at: null,
            }
          : { status: 'dead_letter', attempts: attemptNumber, next_attempt_at: null, claimed_at: null };
    const deliveries = { ...event.deliveries, [task.destination_id]: next };
    return { ...event, deliveries, attempts_count: event.attempts_count + 1, status: statusAfter(event.status, deliveries) };
  }, deps.now, claim.event);

  recordDeliveryAttempt({ outcome: result.outcome, deadLettered: result.outcome !== 'success' && !retry.retry, receivedAt: claim.event.received_at, attemptedAt });
  // Successes show in the metrics; a log line each would cost more than the delivery's queue message.
  if (result.outcome !== 'success') log.info('delivery attempt failed', {
    account_id: task.account_id,
    event_id: task.event_id,
    destination_id: task.destination_id,
    attempt: attemptNumber,
    outcome: result.outcome,
    status: result.responseStatus,
    duration_ms: result.durationMs,
  });
  return retry.retry ? { kind: 'later', seconds: retry.delaySeconds } : { kind: 'done' };
}

function claimDelivery(event: EventRecord, destinationId: string, claimedAt: string, now: Date): EventRecord | undefined {
  const current = event.deliveries[destinationId];
  if (!current || isTerminalDelivery(current.status)) return undefined;
  if (current.status === 'delivering' && current.claimed_at && Date.parse(current.claimed_at) + LEASE_MS > now.getTime()) {
    return undefined; // another worker holds a live claim: this message is a duplicate
  }
  const deliveries = { ...event.deliveries, [destinationId]: { ...current, status: 'delivering' as const, claimed_at: claimedAt } };
  return { ...event, deliveries, status: statusAfter(event.status, deliveries) };
}

async function sendTo(destination: DestinationRecord, event: EventRecord, stored: EventBodyRecord, deps: DeliverDeps) {
  const body = await readStoredBody(stored);
  const now = deps.now();
  const headers = deliveryHeaders({
    eventId: event.id,
    eventType: event.event_type,
    contentType: event.direction === 'outbound' ? 'application/json' : (stored.content_type ?? 'application/octet-stream'),
    body,
    timestamp: Math.floor(now.getTime() / 1000),
    scheme: destination.signature_scheme,
    secrets: activeSecrets(destination, now),
    auth: destination.auth,
    userAgent: `hookgate/${config().version}`,
  });
  return deps.send({
    url: destination.url,
    headers,
    body,
    timeoutMs: destination.timeout_ms,
    allowPrivate: config().allowPrivateDestinations,
  });
}

const MISSING_DESTINATION: DeliveryResult = {
  outcome: 'network_error',
  responseStatus: null,
  responseBody: '',
  retryAfterSeconds: null,
  error: 'destination no longer exists',
  durationMs: 0,
};
