import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetConfigForTests } from '../../lambdas/shared/config';
import { UNIT_ENV } from '../fixtures/apigw';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);

beforeAll(() => {
  Object.assign(process.env, UNIT_ENV);
  resetConfigForTests();
});
beforeEach(() => {
  ddb.reset();
  sqs.reset();
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});

function record(messageId: string, body: string): SQSRecord {
  return {
    messageId,
    receiptHandle: `rh-${messageId}`,
    body,
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'x', ApproximateFirstReceiveTimestamp: '0' },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:hookgate-delivery',
    awsRegion: 'us-east-1',
  };
}

const task = (eventId: string) =>
  JSON.stringify({ v: 1, account_id: '01a1fe4e-8a75-7e94-bbe0-a015cbe84624', event_id: eventId, destination_id: 'd' });

describe('deliver handler', () => {
  it('reports only the poison messages as failed, by their message id, without holding up the rest', async () => {
    sqs.on(ChangeMessageVisibilityCommand).resolves({});
    ddb.on(QueryCommand).resolves({ Items: [] }); // the event is gone (retention): nothing to do, message done
    const { handler } = await import('../../lambdas/handlers/deliver');
    const result = await handler(
      {
        Records: [
          record('m-ok', task('01a1fe4e-0000-7000-8000-000000000001')),
          record('m-not-json', '{not json'),
          record('m-wrong-shape', JSON.stringify({ hello: 'world' })),
          record('m-ok-2', task('01a1fe4e-0000-7000-8000-000000000002')),
        ],
      },
      {} as Context,
    );
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'm-not-json' }, { itemIdentifier: 'm-wrong-shape' }]);
    // Poison comes back at once (visibility 0), so it reaches the DLQ after the redrive count, not hours later.
    const released = sqs.commandCalls(ChangeMessageVisibilityCommand).map((c) => c.args[0].input);
    expect(released).toEqual([
      expect.objectContaining({ ReceiptHandle: 'rh-m-not-json', VisibilityTimeout: 0 }),
      expect.objectContaining({ ReceiptHandle: 'rh-m-wrong-shape', VisibilityTimeout: 0 }),
    ]);
  });

  it('keeps the results of batches that run at the same time apart (the local runtime runs two at once)', async () => {
    sqs.on(ChangeMessageVisibilityCommand).resolves({});
    ddb.on(QueryCommand).callsFake(() => new Promise((resolve) => setTimeout(() => resolve({ Items: [] }), 20)));
    const { handler } = await import('../../lambdas/handlers/deliver');
    const [a, b] = await Promise.all([
      handler({ Records: [record('a-poison', 'nope'), record('a-ok', task('01a1fe4e-0000-7000-8000-00000000000a'))] }, {} as Context),
      handler({ Records: [record('b-ok', task('01a1fe4e-0000-7000-8000-00000000000b')), record('b-poison', '{')] }, {} as Context),
    ]);
    expect(a.batchItemFailures).toEqual([{ itemIdentifier: 'a-poison' }]);
    expect(b.batchItemFailures).toEqual([{ itemIdentifier: 'b-poison' }]);
  });

  it('puts back a task that arrived before its retry time, without trying it', async () => {
    const eventId = '01a1fe4e-0000-7000-8000-000000000003';
    const later = new Date(Date.now() + 120_000).toISOString();
    ddb.on(QueryCommand).resolves({
      Items: [
        { sk: 'BODY', body: new Uint8Array([1]), body_size: 1, content_type: null, headers: {}, payload_hash: 'sha256:x' },
        {
          sk: 'EVENT',
          id: eventId,
          account_id: '01a1fe4e-8a75-7e94-bbe0-a015cbe84624',
          direction: 'inbound',
          source_id: null,
          event_type: null,
          external_event_id: null,
          status: 'retry_scheduled',
          attempts_count: 1,
          created_by: 'ingest',
          received_at: new Date().toISOString(),
          created_at: new Date().toISOString(),
          deliveries: { d: { status: 'retry_scheduled', attempts: 1, next_attempt_at: later, claimed_at: null } },
          version: 3,
          retention_days: 1,
          replay_of: null,
          replayed_by: null,
          dedupe_key: null,
        },
      ],
    });
    sqs.on(ChangeMessageVisibilityCommand).resolves({});
    const { handler } = await import('../../lambdas/handlers/deliver');
    const result = await handler({ Records: [record('m-early', task(eventId))] }, {} as Context);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'm-early' }]);
    const postponed = sqs.commandCalls(ChangeMessageVisibilityCommand)[0]?.args[0].input;
    expect(postponed?.ReceiptHandle).toBe('rh-m-early');
    expect(postponed?.VisibilityTimeout).toBeGreaterThanOrEqual(119);
    expect(postponed?.VisibilityTimeout).toBeLessThanOrEqual(120);
  });
});
