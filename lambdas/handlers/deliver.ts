import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { faultWaitSeconds, queueWait } from '../domain/queue-wait';
import { DELIVERY_QUEUE } from '../shared/resource-definitions';
import { config } from '../shared/config';
import { postponeMessage, queueTask, waitInQueue } from '../adapters/delivery-queue';
import { createHttpSender } from '../adapters/http-sender';
import { createDeliverySender, type DeliverySender } from '../adapters/delivery-sender';
import { deliverTask } from '../pipeline/deliver-task';
import { destinationTaskArrived } from '../pipeline/held-deliveries';
import { verificationTaskArrived } from '../destinations/verification';
import { log, withLogKeys } from '../shared/log';
import { invocationScoped, observability } from '../shared/observability';

/**
 * Senders not in use, each with connections of its own. A container runs one batch at a time, so in
 * AWS this holds one sender, whose keep-alive connections the warm invocations reuse. The local
 * runtime runs the function's batches side by side in one process: each batch in flight takes a
 * sender of its own, the connections a container of its own would have, so one batch's tries never
 * wait for another's sockets.
 */
const idleSenders: DeliverySender[] = [];

/** Thrown after a message was hidden until its next try: the batch reports it as not done. */
class RetryLater extends Error {
  constructor(seconds: number) {
    super(`next try in ${seconds} s`);
    this.name = 'RetryLater';
  }
}

/** A body that is not a task: it can never succeed, so it comes back at once, and the redrive policy moves it to the DLQ. */
class PoisonMessage extends Error {
  constructor(cause: unknown) {
    super(`not a delivery task: ${(cause as Error).message ?? String(cause)}`, { cause });
    this.name = 'PoisonMessage';
  }
}

async function parseTask(record: SQSRecord) {
  try {
    return queueTask.parse(JSON.parse(record.body));
  } catch (error) {
    await postponeMessage(record.receiptHandle, 0).catch(() => undefined);
    throw new PoisonMessage(error);
  }
}

async function handleRecord(record: SQSRecord, send: DeliverySender): Promise<void> {
  const task = await parseTask(record);
  // Records run concurrently: each one's lines carry its own account.
  if ('kind' in task) {
    if (task.kind === 'verify') return withLogKeys({ account_id: task.account_id }, () => verificationTaskArrived(task, { send, now: () => new Date() }));
    return withLogKeys({ account_id: task.account_id }, () => destinationTaskArrived(task, new Date()));
  }
  const result = await withLogKeys({ account_id: task.account_id }, () => deliverTask(task, { send, now: () => new Date() }));
  if (result.kind === 'done') return;
  const wait = queueWait(result, new Date(), Number(record.attributes.ApproximateReceiveCount));
  await waitInQueue(record.receiptHandle, task, wait);
  if (wait.kind === 'visibility') throw new RetryLater(wait.seconds);
}

/**
 * A record that failed for another reason than "not yet" is logged (its id only) and comes back after
 * a backoff that grows with its receives (a throttle or a short outage is over soon), or goes to the DLQ.
 */
async function handleRecordLogged(record: SQSRecord, send: DeliverySender): Promise<void> {
  try {
    await handleRecord(record, send);
  } catch (error) {
    if (error instanceof PoisonMessage) log.error('delivery task failed; its message comes back at once', { message_id: record.messageId, receive_count: record.attributes.ApproximateReceiveCount }, error);
    else if (!(error instanceof RetryLater)) {
      const seconds = faultWaitSeconds(Number(record.attributes.ApproximateReceiveCount), {
        leaseSeconds: config().deliveryLeaseMs / 1000,
        maxSeconds: DELIVERY_QUEUE.visibilityTimeoutSeconds,
      });
      log.error('delivery task failed; its message comes back later', { message_id: record.messageId, receive_count: record.attributes.ApproximateReceiveCount, retry_in_seconds: seconds }, error);
      // When even this fails, the message comes back after the visibility timeout.
      await postponeMessage(record.receiptHandle, seconds).catch(() => undefined);
    }
    throw error;
  }
}

/**
 * SQS consumer: the records of a batch are delivered concurrently; failures are reported per item.
 * A processor per invocation: it holds the batch's results, and the local runtime runs batches side by side.
 */
export const handler = invocationScoped(
  middy<SQSEvent, SQSBatchResponse>()
    .use(observability())
    .handler(async (event, context) => {
      const send = idleSenders.pop() ?? createDeliverySender(createHttpSender());
      try {
        return await processPartialResponse(event, (record: SQSRecord) => handleRecordLogged(record, send), new BatchProcessor(EventType.SQS), {
          context,
          throwOnFullBatchFailure: false,
        });
      } finally {
        idleSenders.push(send);
      }
    }),
);
