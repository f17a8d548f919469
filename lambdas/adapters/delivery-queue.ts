import { ChangeMessageVisibilityCommand, DeleteMessageCommand, ReceiveMessageCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod/mini';
import { MAX_MESSAGE_DELAY_SECONDS, type QueueWait } from '../domain/queue-wait';
import { config } from '../shared/config';
import { carriedBodyRecord } from '../events/record';
import { sqsClient } from './aws-clients';

/** One delivery task: an event to one destination. Ids, and a small body as stored (`carriedBodyOf`); others stay in DynamoDB or S3. */
const deliveryTask = z.object({
  v: z.literal(1),
  account_id: z.string(),
  event_id: z.string(),
  destination_id: z.string(),
  /**
   * Epoch milliseconds before which the task has nothing to do: a wait longer than one message delay
   * hops from message to message without reading the table.
   */
  not_before: z.optional(z.int()),
  /** The send slot (epoch ms) this task already holds from its destination's rate limit: it takes no other. */
  rate_slot: z.optional(z.number()),
  /** When the task's first message was sent, before its event was written (the outbox): see `missingEventWait`. */
  sent_at: z.optional(z.int()),
  /** A manual action's delivery (a replay, a portal resend or test): the probe of an open breaker, at once. */
  manual: z.optional(z.literal(true)),
  /** The event's body, when small: the try reads no body item. */
  body: z.optional(carriedBodyRecord),
  /** Taken back from the delivery DLQ once by the sweeper: if it lands there again, its delivery ends. */
  rearmed: z.optional(z.literal(true)),
});
export type DeliveryTask = z.infer<typeof deliveryTask>;

/**
 * A destination's own task: `wake` looks at its breaker at an instant a breaker write set (`at`: its
 * cooldown's or its probe's end), `release` lets a page of its held deliveries go; `slots`, which
 * versions before 0.5 sent for the concurrency slots a parked delivery found taken, lets them go too
 * (lambdas/pipeline/held-deliveries.ts `drainOverCap`). A task's fields from those versions
 * (`flight_slot`, `handed`, `slots`) are dropped as it is read.
 */
const destinationTask = z.object({
  v: z.literal(1),
  kind: z.enum(['wake', 'release', 'slots']),
  account_id: z.string(),
  destination_id: z.string(),
  at: z.optional(z.string()),
  /** Taken back from the delivery DLQ once by the sweeper: if it lands there again, it stays for the operator. */
  rearmed: z.optional(z.literal(true)),
});
export type DestinationTask = z.infer<typeof destinationTask>;

/**
 * One try of a destination's ownership challenge (lambdas/destinations/verification.ts): `attempt`
 * counts its tries; `challenge` is the one it sends, so a task for a challenge since replaced (the URL
 * changed, or a resend) finds it gone and sends nothing.
 */
const verificationTask = z.object({
  v: z.literal(1),
  kind: z.literal('verify'),
  account_id: z.string(),
  destination_id: z.string(),
  challenge: z.string(),
  attempt: z.int().check(z.gte(1)),
  /** Taken back from the delivery DLQ once by the sweeper, as a destination's own task is. */
  rearmed: z.optional(z.literal(true)),
});
export type VerificationTask = z.infer<typeof verificationTask>;

/** Any message on the delivery queue. */
export const queueTask = z.union([verificationTask, destinationTask, deliveryTask]);
export type QueueTask = DeliveryTask | DestinationTask | VerificationTask;

/** SQS caps a message's visibility timeout at 12 hours. */
const MAX_VISIBILITY_SECONDS = 43_200;

/**
 * Sends tasks in batches of ten; throws if any task could not be sent (its event is then not written).
 * Each message's group is its destination: on a standard queue that makes SQS a fair queue, so a
 * destination whose messages pile up or dwell in flight does not hold back everyone else's.
 */
export async function enqueueDeliveries(tasks: QueueTask[], delaySeconds: number, queue: DeliveryQueue = handlerQueue()): Promise<void> {
  const delay = Math.min(Math.max(0, Math.round(delaySeconds)), MAX_MESSAGE_DELAY_SECONDS);
  for (let start = 0; start < tasks.length; start += 10) await sendBatch(queue, tasks.slice(start, start + 10), delay);
}

/** Where tasks go: the function's own queue, or one a caller names (the local runtime, with its own client). */
interface DeliveryQueue {
  client: SQSClient;
  url: string;
}

const handlerQueue = (): DeliveryQueue => ({ client: sqsClient(), url: config().deliveryQueueUrl });

/** SQS may refuse some entries of a batch it answers 200 for (throttling): those are sent again, twice at most. */
const SEND_ROUNDS = 3;

async function sendBatch(queue: DeliveryQueue, batch: QueueTask[], delay: number): Promise<void> {
  let entries = batch.map((task, i) => ({ Id: String(i), MessageBody: JSON.stringify(task), DelaySeconds: delay, MessageGroupId: task.destination_id }));
  for (let round = 1; ; round++) {
    const out = await queue.client.send(new SendMessageBatchCommand({ QueueUrl: queue.url, Entries: entries }));
    const failed = out.Failed ?? [];
    if (failed.length === 0) return;
    const retryable = failed.every((entry) => !entry.SenderFault);
    if (!retryable || round === SEND_ROUNDS) {
      throw new Error(`SQS refused ${failed.length} delivery task(s): ${failed.map((f) => f.Code).join(', ')}`);
    }
    const again = new Set(failed.map((entry) => entry.Id));
    entries = entries.filter((entry) => again.has(entry.Id));
    await new Promise((resolve) => setTimeout(resolve, 50 * round));
  }
}

/**
 * Carries out how a received task waits (as `queueWait` decided): its message hidden again, or a new
 * delayed message carrying the wait, after which the received one is done (deleted). The new one is
 * sent before the old one is deleted, so a crash in between leaves a duplicate, which the claim ignores.
 */
export async function waitInQueue(receiptHandle: string, task: DeliveryTask, wait: QueueWait): Promise<void> {
  if (wait.kind === 'visibility') return postponeMessage(receiptHandle, wait.seconds);
  await enqueueDeliveries([{ ...task, ...wait.carried }], wait.delaySeconds);
}

/** Hides a received message for a while; SQS then hands it to a worker again. */
export async function postponeMessage(receiptHandle: string, seconds: number): Promise<void> {
  await sqsClient().send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: config().deliveryQueueUrl,
      ReceiptHandle: receiptHandle,
      VisibilityTimeout: Math.min(Math.max(0, Math.round(seconds)), MAX_VISIBILITY_SECONDS),
    }),
  );
}

// ---------------------------------------------------------------------------------------------------
// The delivery DLQ (the sweeper's): messages SQS moved there after `maxReceiveCount` receives

export interface StrandedMessage {
  receiptHandle: string;
  /** The message as read: a delivery task, a destination's own task, or nothing readable. */
  task: { kind: 'delivery'; task: DeliveryTask } | { kind: 'destination'; task: DestinationTask | VerificationTask } | { kind: 'unreadable' };
}

function readStranded(body: string | undefined): StrandedMessage['task'] {
  let json: unknown;
  try {
    json = JSON.parse(body ?? '');
  } catch {
    return { kind: 'unreadable' };
  }
  const parsed = queueTask.safeParse(json);
  if (!parsed.success) return { kind: 'unreadable' };
  return 'kind' in parsed.data ? { kind: 'destination', task: parsed.data } : { kind: 'delivery', task: parsed.data };
}

/**
 * Up to ten messages of the DLQ, hidden from other readers for `hideSeconds` (a message left there, for
 * the operator, shows again after that). No wait: an empty DLQ answers at once.
 */
export async function receiveStranded(dlqUrl: string, hideSeconds: number): Promise<StrandedMessage[]> {
  const out = await sqsClient().send(new ReceiveMessageCommand({ QueueUrl: dlqUrl, MaxNumberOfMessages: 10, VisibilityTimeout: hideSeconds, WaitTimeSeconds: 0 }));
  return (out.Messages ?? []).flatMap((message) => (message.ReceiptHandle ? [{ receiptHandle: message.ReceiptHandle, task: readStranded(message.Body) }] : []));
}

export async function deleteStranded(dlqUrl: string, receiptHandle: string): Promise<void> {
  await sqsClient().send(new DeleteMessageCommand({ QueueUrl: dlqUrl, ReceiptHandle: receiptHandle }));
}
