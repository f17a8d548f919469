import { attributedMessageBytes, fitAttributes, messageAttributes, messageText } from '../../domain/aws-messages';
import { AWS_MESSAGE_LIMITS, isFifo, type AwsDestinationType, type AwsTarget } from '../../domain/aws-targets';
import { fifoMessageGroup } from '../../domain/ordering';
import type { AwsCredentials } from '../aws-credentials';

/** One try as a service's module gets it. */
export interface AwsMessage {
  headers: Record<string, string>;
  body: Buffer;
  destinationId: string;
  eventId: string;
  eventType: string | null;
  receivedAt: string;
  /** The event's ordering key, if it has one: a FIFO message's group instead of the destination. */
  orderingKey?: string | null;
  credentials: AwsCredentials;
  /** Ends the call (and the SDK's own retries) at the destination's timeout. */
  signal: AbortSignal;
}

/** What a successful call answered: its request id and the ids the service gave the message. */
export interface AwsSent {
  requestId: string | null;
  status: number | null;
  ids: Record<string, string | undefined>;
}

/** The message, measured as its service counts, is over the service's limit: refused before any call. */
export class MessageTooLarge extends Error {
  constructor(
    readonly type: AwsDestinationType,
    readonly bytes: number,
  ) {
    super(`message of ${bytes} bytes is over ${type}'s limit`);
    this.name = 'MessageTooLarge';
  }
}

export function checkSize(target: AwsTarget, bytes: number): void {
  const limit = AWS_MESSAGE_LIMITS[target.type];
  if (limit !== null && bytes > limit) throw new MessageTooLarge(target.type, bytes);
}

/** The request id and status of an SDK answer. */
export const answered = (output: { $metadata: { requestId?: string; httpStatusCode?: number } }, ids: AwsSent['ids']): AwsSent => ({
  requestId: output.$metadata.requestId ?? null,
  status: output.$metadata.httpStatusCode ?? null,
  ids,
});

/**
 * An SQS or SNS message: the body as its text, the signed headers as String attributes, and on a FIFO
 * queue or topic the event's ordering key (else the destination) as its group and the event as its
 * de-duplication id: a keyed event's group keeps the key's order there too, while other keys' groups
 * are not held behind it. Measured as both services count it, and refused over their limit.
 */
export function attributedMessage(target: Extract<AwsTarget, { type: 'aws_sqs' | 'aws_sns' }>, message: AwsMessage) {
  const text = messageText(message.body);
  // At most 10 attributes on either service: headers past that are merged into one (fitAttributes).
  const attributes = fitAttributes(messageAttributes(message.headers, text.encoding));
  checkSize(target, attributedMessageBytes(text, attributes));
  return {
    text: text.text,
    MessageAttributes: Object.fromEntries(Object.entries(attributes).map(([name, value]) => [name, { DataType: 'String', StringValue: value }])),
    ...(isFifo(target) && { MessageGroupId: fifoMessageGroup(message.orderingKey, message.destinationId), MessageDeduplicationId: message.eventId }),
  };
}
