import { AWS_MESSAGE_LIMITS, type AwsDestinationType, type AwsTarget } from '../../domain/aws-targets';
import type { AwsCredentials } from '../aws-credentials';

/** One try as a service's module gets it. */
export interface AwsMessage {
  headers: Record<string, string>;
  body: Buffer;
  destinationId: string;
  eventId: string;
  eventType: string | null;
  receivedAt: string;
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

/** SQS and SNS attributes: every value a string. */
export const stringAttributes = (attributes: Record<string, string>) =>
  Object.fromEntries(Object.entries(attributes).map(([name, value]) => [name, { DataType: 'String', StringValue: value }]));
