import { performance } from 'node:perf_hooks';
import { awsErrorClass, isOwnQueue, mayUseOwnRole, OWN_QUEUE_REFUSAL, OWN_ROLE_REFUSAL, tooLargeMessage, type AwsTarget } from '../domain/aws-targets';
import { config } from '../shared/config';
import { credentialsFor } from './aws-credentials';
import type { AwsMessage, AwsSent } from './aws/message';
import { MessageTooLarge } from './aws/message';
import type { DeliveryRequest, DeliveryResult } from './http-sender';

/**
 * Delivers one try to an AWS destination and says how it went, as the HTTP sender does for a URL:
 * never throws. Each service's client is imported on its first delivery only, so a deliver function
 * whose destinations are all http loads none of them (the bundler gives each its own chunk).
 */

/** Where an AWS try goes, and the facts of its event that name it there (a FIFO group, an object key). */
export interface AwsDelivery {
  target: AwsTarget;
  /** The role to assume (null: the deliver function's own), with this external id. */
  roleArn: string | null;
  externalId: string;
  /** The Hookgate account the destination is of: only listed accounts deliver with the deliver role itself. */
  accountId: string;
  destinationId: string;
  eventId: string;
  eventType: string | null;
  receivedAt: string;
  /** The event's ordering key: a FIFO queue's or topic's message group when set. */
  orderingKey?: string | null;
}

/** `headers`: the signed headers an HTTP try would carry; they travel as attributes, metadata or envelope fields. */
export async function sendToAws(delivery: AwsDelivery & Pick<DeliveryRequest, 'headers' | 'body' | 'timeoutMs'>): Promise<DeliveryResult> {
  const startedAt = performance.now();
  // Refused when the destination is created too; checked again here, where the deliver role's rights are.
  const refusal = isOwnQueue(delivery.target, config().deliveryQueueUrl)
    ? OWN_QUEUE_REFUSAL
    : delivery.roleArn === null && !mayUseOwnRole(delivery.accountId, config().ownRoleAccounts)
      ? OWN_ROLE_REFUSAL
      : undefined;
  if (refusal) return finish(startedAt, { outcome: 'blocked', responseStatus: null, responseBody: '', error: refusal });
  const message: AwsMessage = { ...delivery, credentials: credentialsFor(delivery), signal: AbortSignal.timeout(Math.max(1, delivery.timeoutMs)) };
  try {
    // An assumed role first: a role that refuses fails the try with STS's answer, before any call is built.
    await message.credentials.provider?.();
    const sent = await sendByType(delivery.target, message);
    return finish(startedAt, { outcome: 'success', responseStatus: sent.status ?? 200, responseBody: JSON.stringify({ aws_request_id: sent.requestId, ...sent.ids }), error: null });
  } catch (error) {
    return finish(startedAt, failure(error, delivery.timeoutMs));
  }
}

function sendByType(target: AwsTarget, message: AwsMessage): Promise<AwsSent> {
  switch (target.type) {
    case 'aws_sqs':
      return import('./aws/sqs').then((m) => m.sendToQueue(target, message));
    case 'aws_sns':
      return import('./aws/sns').then((m) => m.publishToTopic(target, message));
    case 'aws_eventbridge':
      return import('./aws/eventbridge').then((m) => m.putOnBus(target, message));
    case 'aws_kinesis':
      return import('./aws/kinesis').then((m) => m.putRecord(target, message));
    case 'aws_lambda':
      return import('./aws/lambda').then((m) => m.invokeAsync(target, message));
    case 'aws_s3':
      return import('./aws/s3-object').then((m) => m.putEventObject(target, message));
  }
}

type Outcome = Pick<DeliveryResult, 'outcome' | 'responseStatus' | 'responseBody' | 'error'>;

/** What an SDK error (or a refused entry) says: its code and request id, recorded on the attempt. */
interface ServiceErrorShape {
  name?: string;
  message?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number; requestId?: string };
}

function failure(error: unknown, timeoutMs: number): Outcome {
  if (error instanceof MessageTooLarge) return { outcome: 'blocked', responseStatus: null, responseBody: '', error: tooLargeMessage(error.type, error.bytes) };
  const e = (typeof error === 'object' && error !== null ? error : {}) as ServiceErrorShape;
  const name = e.name ?? 'Error';
  if (name === 'AbortError' || name === 'TimeoutError') return { outcome: 'timeout', responseStatus: null, responseBody: '', error: `no response within ${timeoutMs} ms` };
  const status = e.$metadata?.httpStatusCode ?? null;
  const requestId = e.$metadata?.requestId ?? null;
  const code = e.code ?? name;
  const text = oneLine(e.message ?? String(error));
  // No answer from AWS at all (DNS, connection): a network error, as for an HTTP destination.
  if (status === null && requestId === null) return { outcome: 'network_error', responseStatus: null, responseBody: '', error: `${code}: ${text}` };
  const errorClass = awsErrorClass(code, status);
  return {
    outcome: 'http_error',
    responseStatus: status,
    responseBody: JSON.stringify({ aws_request_id: requestId, error_code: code, error_class: errorClass }),
    error: `${code}: ${text}`,
  };
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 1024);

function finish(startedAt: number, result: Outcome): DeliveryResult {
  return { ...result, retryAfterSeconds: null, durationMs: Math.round(performance.now() - startedAt) };
}
