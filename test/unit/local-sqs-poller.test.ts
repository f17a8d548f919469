import type { Message } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { settleBatch, toSqsRecord } from '../../local/sqs-poller';

const messages: Message[] = [
  { MessageId: 'm1', ReceiptHandle: 'r1', Body: 'one' },
  { MessageId: 'm2', ReceiptHandle: 'r2', Body: 'two' },
  { MessageId: 'm3', ReceiptHandle: 'r3', Body: 'three' },
];

describe('settleBatch', () => {
  it('deletes every message when the handler reports no failures', () => {
    expect(settleBatch(messages, undefined).toDelete).toEqual(messages);
    expect(settleBatch(messages, { batchItemFailures: [] }).toDelete).toEqual(messages);
  });

  it('keeps the messages listed in batchItemFailures', () => {
    const { toDelete } = settleBatch(messages, { batchItemFailures: [{ itemIdentifier: 'm2' }] });

    expect(toDelete.map((m) => m.MessageId)).toEqual(['m1', 'm3']);
  });

  it('keeps the whole batch when a failure names an id that is not in it, as AWS does', () => {
    const settled = settleBatch(messages, { batchItemFailures: [{ itemIdentifier: 'm9' }] });

    expect(settled).toEqual({ toDelete: [], unknownFailures: true });
  });
});

describe('toSqsRecord', () => {
  it('shapes a received message like a Lambda SQS record', () => {
    const record = toSqsRecord(
      {
        MessageId: 'm1',
        ReceiptHandle: 'r1',
        Body: '{"id":"e1"}',
        MD5OfBody: 'abc',
        Attributes: { ApproximateReceiveCount: '1', SentTimestamp: '1700000000000' },
        MessageAttributes: {
          kind: { DataType: 'String', StringValue: 'event' },
          blob: { DataType: 'Binary', BinaryValue: Uint8Array.from([1, 2, 3]) },
        },
      },
      'arn:aws:sqs:us-east-1:123456789012:hookgate-delivery',
    );

    expect(record).toEqual({
      messageId: 'm1',
      receiptHandle: 'r1',
      body: '{"id":"e1"}',
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: '1700000000000' },
      messageAttributes: {
        kind: { dataType: 'String', stringValue: 'event', stringListValues: [], binaryListValues: [] },
        blob: { dataType: 'Binary', binaryValue: 'AQID', stringListValues: [], binaryListValues: [] },
      },
      md5OfBody: 'abc',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:hookgate-delivery',
      awsRegion: 'us-east-1',
    });
  });
});
