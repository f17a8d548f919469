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
import { invokeFunction } from './lambda-context';

export interface SqsPollerOptions {
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  handler: SqsHandler;
  batchSize: number;
  functionName?: string;
  /** Lambda timeout; feeds context.getRemainingTimeInMillis, and bounds how long a message may wait here. */
  timeoutMs?: number;
  /** The queue's visibility timeout: a message held here longer than this minus `timeoutMs` is let go. */
  visibilityTimeoutMs?: number;
  /** Pause after an empty receive. */
  idleDelayMs?: number;
  /** Batches in flight at once: the event source mapping's maxConcurrency. */
  concurrency?: number;
  /** Most batches one message group may hold at once. Default: half of `concurrency`, rounded up. */
  groupConcurrency?: number;
  /**
   * Most messages received and not yet handed to a batch: how far the poller looks past a group's
   * backlog for other groups. Default ten times what every slot holds.
   */
  lookahead?: number;
  log?: (message: string, err?: unknown) => void;
}

export interface SqsPoller {
  /** Stops polling and waits for the batches in flight; messages not yet handed out stay in the queue. */
  stop(): Promise<void>;
  /**
   * Most records a batch holds from now on, as UpdateEventSourceMapping's BatchSize changes it on a
   * running mapping: batches already handed out keep theirs.
   */
  setBatchSize(size: number): void;
}

interface Waiting {
  message: Message;
  receivedAt: number;
}

/** A batch the scheduler handed out; give it back with `finish` once its handler settled. */
export interface ScheduledBatch {
  group: string;
  messages: Message[];
}

/** The group of a message on an SQS fair queue; messages sent without one share the group "". */
function messageGroup(message: Message): string {
  return message.Attributes?.MessageGroupId ?? '';
}

/**
 * Which received messages run next, standing in for SQS fair queues on a standard queue: a group
 * (a destination) whose batches pile up in flight is passed over while others wait, and never holds
 * more than `groupConcurrency` of the `concurrency` slots, so a hanging destination leaves slots for
 * the rest. A batch holds one group only, so a slow group's batch never holds another's messages.
 */
export class FairScheduler {
  readonly #waiting = new Map<string, Waiting[]>();
  readonly #running = new Map<string, number>();
  #busy = 0;
  #size = 0;

  constructor(
    private readonly options: { concurrency: number; groupConcurrency: number; batchSize: number },
  ) {}

  /** Batches handed out from now on hold at most `size` messages. */
  setBatchSize(size: number): void {
    this.options.batchSize = size;
  }

  /** Messages received and not yet handed out. */
  get waiting(): number {
    return this.#size;
  }

  /** Batches handed out and not yet finished. */
  get busy(): number {
    return this.#busy;
  }

  add(messages: Message[], now: number): void {
    for (const message of messages) {
      const group = messageGroup(message);
      const queue = this.#waiting.get(group) ?? [];
      queue.push({ message, receivedAt: now });
      this.#waiting.set(group, queue);
      this.#size++;
    }
  }

  /**
   * Forgets the messages received before `cutoff` (their visibility would run out while a handler
   * ran, so they are left to reappear in the queue) and says how many.
   */
  expire(cutoff: number): number {
    let expired = 0;
    for (const [group, queue] of this.#waiting) {
      const keep = queue.filter((w) => w.receivedAt >= cutoff);
      expired += queue.length - keep.length;
      if (keep.length === 0) this.#waiting.delete(group);
      else this.#waiting.set(group, keep);
    }
    this.#size -= expired;
    return expired;
  }

  /**
   * The next batch: from the group holding the fewest slots (then the one waiting longest), unless
   * every slot is taken or every waiting group already holds its share.
   */
  next(): ScheduledBatch | undefined {
    if (this.#busy >= this.options.concurrency) return undefined;
    let best: { group: string; running: number; since: number } | undefined;
    for (const [group, queue] of this.#waiting) {
      const running = this.#running.get(group) ?? 0;
      const since = queue[0]?.receivedAt ?? Infinity;
      if (running >= this.options.groupConcurrency) continue;
      if (!best || running < best.running || (running === best.running && since < best.since)) best = { group, running, since };
    }
    if (!best) return undefined;
    const queue = this.#waiting.get(best.group) ?? [];
    const taken = queue.splice(0, this.options.batchSize);
    if (queue.length === 0) this.#waiting.delete(best.group);
    this.#size -= taken.length;
    this.#busy++;
    this.#running.set(best.group, best.running + 1);
    return { group: best.group, messages: taken.map((w) => w.message) };
  }

  finish(batch: ScheduledBatch): void {
    this.#busy--;
    const running = (this.#running.get(batch.group) ?? 1) - 1;
    if (running > 0) this.#running.set(batch.group, running);
    else this.#running.delete(batch.group);
  }
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

/**
 * Drives an SQS Lambda handler like the AWS event source mapping with ReportBatchItemFailures: up to
 * `concurrency` batches at once, fed from one receive loop through a FairScheduler.
 */
export function startSqsPoller(options: SqsPollerOptions): SqsPoller {
  const {
    client,
    queueUrl,
    queueArn,
    handler,
    functionName = 'sqs-consumer',
    timeoutMs = 60_000,
    visibilityTimeoutMs = 6 * timeoutMs,
    idleDelayMs = 50,
    log = (message, err) => console.error(`[hookgate local] ${functionName}: ${message}`, err ?? ''),
  } = options;
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const groupConcurrency = Math.min(concurrency, Math.max(1, options.groupConcurrency ?? Math.ceil(concurrency / 2)));
  const lookaheadFor = (batchSize: number) => Math.max(batchSize, options.lookahead ?? 10 * concurrency * batchSize);
  let lookahead = lookaheadFor(validBatchSize(options.batchSize));
  const scheduler = new FairScheduler({ concurrency, groupConcurrency, batchSize: options.batchSize });
  const running = new Set<Promise<void>>();
  const abort = new AbortController();
  let wake: (() => void) | undefined;

  /** Resolves after `ms` or when the poller stops, and with `untilSlotFrees` as soon as a batch finishes. */
  const pause = (ms: number, untilSlotFrees = false): Promise<void> =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        abort.signal.removeEventListener('abort', done);
        wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      abort.signal.addEventListener('abort', done);
      if (untilSlotFrees) wake = done;
    });

  async function receive(max: number): Promise<Message[]> {
    // Short polls only: the emulator's long poll answers late (it waits for a full batch) and does not
    // wake when a visibility timeout ends.
    const { Messages } = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: max,
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
      result = await invokeFunction(functionName, timeoutMs, (context) => handler(event, context));
    } catch (err) {
      // As on AWS: the whole batch returns to the queue after its visibility timeout.
      log(`handler failed; ${messages.length} message(s) will be retried`, err);
      return;
    }
    const { toDelete, unknownFailures } = settleBatch(messages, result);
    if (unknownFailures) log('batchItemFailures names an unknown id; the whole batch is retried', result);
    await deleteMessages(toDelete);
  }

  function dispatch(): void {
    const expired = scheduler.expire(Date.now() - Math.max(0, visibilityTimeoutMs - timeoutMs));
    if (expired > 0) log(`${expired} message(s) waited here too long for a slot; they return to the queue when their visibility ends`);
    for (let batch = scheduler.next(); batch; batch = scheduler.next()) {
      const taken = batch;
      const run = processBatch(taken.messages)
        .catch((err: unknown) => log('settling a batch failed', err))
        .finally(() => {
          scheduler.finish(taken);
          running.delete(run);
          if (!abort.signal.aborted) dispatch();
          wake?.();
        });
      running.add(run);
    }
  }

  async function loop(): Promise<void> {
    while (!abort.signal.aborted) {
      const room = lookahead - scheduler.waiting;
      if (room <= 0) {
        // Every group that waits holds its share: nothing can start until a batch finishes.
        await pause(idleDelayMs, true);
        dispatch();
        continue;
      }
      try {
        const messages = await receive(Math.min(10, room));
        if (messages.length === 0) {
          dispatch();
          await pause(idleDelayMs);
          continue;
        }
        scheduler.add(messages, Date.now());
        dispatch();
        // A short answer means the queue is drained for now: polling again at once would cost a
        // receive per message (the SDK call, not the handler, was then the gateway's biggest CPU cost).
        if (messages.length < Math.min(10, room)) await pause(idleDelayMs);
        else if (scheduler.busy >= concurrency && scheduler.waiting > 0) await pause(idleDelayMs, true);
      } catch (err) {
        log('polling failed', err);
        await pause(1000);
      }
    }
  }

  const receiving = loop();
  return {
    stop: async () => {
      abort.abort();
      await receiving;
      await Promise.all(running);
    },
    setBatchSize: (size) => {
      scheduler.setBatchSize(validBatchSize(size));
      lookahead = lookaheadFor(size);
    },
  };
}

/** `size`, when it is a batch size an event source mapping accepts; throws otherwise. */
export function validBatchSize(size: number): number {
  if (!Number.isInteger(size) || size < 1) throw new Error(`an event source mapping's batch size is a whole number from 1: ${size}`);
  return size;
}
