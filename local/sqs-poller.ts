import { setTimeout as sleep } from 'node:timers/promises';
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type Message,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import { LOCAL_REGION } from './aws-clients';
import type { SqsHandler } from './handlers';
import { createLambdaContext } from './lambda-context';

export interface SqsPollerOptions {
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  handler: SqsHandler;
  batchSize: number;
  functionName?: string;
  /** Lambda timeout; only feeds context.getRemainingTimeInMillis. */
  timeoutMs?: number;
  /** Pause after an empty receive. */
  idleDelayMs?: number;
  /** Batches in flight at once (independent poll loops). */
  concurrency?: number;
  log?: (message: string, err?: unknown) => void;
}

export interface SqsPoller {
  /** Stops polling and waits for the batches in flight. */
  stop(): Promise<void>;
}

function toRecordAttribute(value: MessageAttributeValue): SQSMessageAttributes[string] {
  return {
    dataType: value.DataType ?? 'String',
    ...(value.StringValue !== undefined && { stringValue: value.StringValue }),
    ...(value.BinaryValue !== undefined && { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }),
    stringListValues: value.StringListValues ?? [],
    binaryListValues: (value.BinaryListValues ?? []).map((v) => Buffer.from(v).toString('base64')),
  };
}

export function toSqsRecord(message: Message, queueArn: string): SQSRecord {
  const messageAttributes: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = toRecordAttribute(value);
  }
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: { ...message.Attributes } as unknown as SQSRecordAttributes,
    messageAttributes,
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes && { md5OfMessageAttributes: message.MD5OfMessageAttributes }),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: LOCAL_REGION,
  };
}

/**
 * Which messages to delete after the handler returned, as the event source mapping decides:
 * everything but the reported failures; nothing when a reported id is empty or not in the batch.
 */
export function settleBatch(
  messages: Message[],
  result: SQSBatchResponse | void,
): { toDelete: Message[]; unknownFailures: boolean } {
  const failures = result?.batchItemFailures ?? [];
  const ids = new Set(messages.map((m) => m.MessageId));
  if (failures.some((f) => !f.itemIdentifier || !ids.has(f.itemIdentifier))) {
    return { toDelete: [], unknownFailures: true };
  }
  const failed = new Set(failures.map((f) => f.itemIdentifier));
  return { toDelete: messages.filter((m) => !failed.has(m.MessageId ?? '')), unknownFailures: false };
}

/** Drives an SQS Lambda handler like the AWS event source mapping with ReportBatchItemFailures. */
export function startSqsPoller(options: SqsPollerOptions): SqsPoller {
  const {
    client,
    queueUrl,
    queueArn,
    handler,
    batchSize,
    functionName = 'sqs-consumer',
    timeoutMs = 60_000,
    idleDelayMs = 150,
    concurrency = 1,
    log = (message, err) => console.error(`[hookgate local] ${functionName}: ${message}`, err ?? ''),
  } = options;
  const abort = new AbortController();

  const pause = (ms: number): Promise<void> => sleep(ms, undefined, { signal: abort.signal }).catch(() => undefined);

  async function receive(): Promise<Message[]> {
    // Short polls only: the emulator's long poll answers late (it waits for a full batch).
    const { Messages } = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: batchSize,
        WaitTimeSeconds: 0,
        AttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    return Messages ?? [];
  }

  async function deleteMessages(messages: Message[]): Promise<void> {
    for (let i = 0; i < messages.length; i += 10) {
      const entries = messages.slice(i, i + 10).map((m, j) => ({ Id: String(j), ReceiptHandle: m.ReceiptHandle }));
      const { Failed } = await client.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
      if (Failed && Failed.length > 0) log(`could not delete ${Failed.length} message(s)`, Failed);
    }
  }

  async function processBatch(messages: Message[]): Promise<void> {
    const event: SQSEvent = { Records: messages.map((m) => toSqsRecord(m, queueArn)) };
    let result: SQSBatchResponse | void;
    try {
      result = await handler(event, createLambdaContext(functionName, timeoutMs));
    } catch (err) {
      // As on AWS: the whole batch returns to the queue after its visibility timeout.
      log(`handler failed; ${messages.length} message(s) will be retried`, err);
      return;
    }
    const { toDelete, unknownFailures } = settleBatch(messages, result);
    if (unknownFailures) log('batchItemFailures names an unknown id; the whole batch is retried', result);
    await deleteMessages(toDelete);
  }

  async function loop(): Promise<void> {
    while (!abort.signal.aborted) {
      try {
        const messages = await receive();
        // Messages received while stopping are still handled: they are invisible until their timeout.
        if (messages.length === 0) await pause(idleDelayMs);
        else await processBatch(messages);
      } catch (err) {
        log('polling failed', err);
        await pause(1000);
      }
    }
  }

  const loops = Array.from({ length: Math.max(1, concurrency) }, () => loop());
  return {
    stop: async () => {
      abort.abort();
      await Promise.all(loops);
    },
  };
}
