import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { deliveryTask, postponeMessage } from '../adapters/delivery-queue';
import { createHttpSender } from '../adapters/http-sender';
import { deliverTask } from '../pipeline/deliver-task';

const processor = new BatchProcessor(EventType.SQS);
const send = createHttpSender();

/** Thrown after a message was hidden until its next try: the batch reports it as not done. */
class RetryLater extends Error {
  constructor(seconds: number) {
    super(`next try in ${seconds} s`);
    this.name = 'RetryLater';
  }
}

/** A body that is not a task can never succeed: it comes back at once, and the redrive policy moves it to the DLQ. */
async function parseTask(record: SQSRecord) {
  try {
    return deliveryTask.parse(JSON.parse(record.body));
  } catch (error) {
    await postponeMessage(record.receiptHandle, 0).catch(() => undefined);
    throw error;
  }
}

async function handleRecord(record: SQSRecord): Promise<void> {
  const task = await parseTask(record);
  const result = await deliverTask(task, { send, now: () => new Date() });
  if (result.kind === 'later') {
    await postponeMessage(record.receiptHandle, result.seconds);
    throw new RetryLater(result.seconds);
  }
}

/** SQS consumer: the records of a batch are delivered concurrently; failures are reported per item. */
export const handler = (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
  processPartialResponse(event, handleRecord, processor, { context, throwOnFullBatchFailure: false });
