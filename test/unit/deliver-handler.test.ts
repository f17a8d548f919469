import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetConfigForTests } from '../../lambdas/shared/config';
import { UNIT_ENV } from '../fixtures/apigw';
import { ACCOUNT_ID, deliveryState, eventPartitionItems, eventRecord } from '../fixtures/records';
import { sqsRecord } from '../fixtures/sqs';

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

/** A consistent BatchGet of a task's three items (body, delivery, status) answered with `items`. */
const answering = (items: Array<Record<string, unknown>>) => (input: { RequestItems?: Record<string, unknown> }) => ({
  Responses: { [Object.keys(input.RequestItems ?? {})[0] ?? '']: items },
});

const task = (eventId: string) =>
  JSON.stringify({ v: 1, account_id: ACCOUNT_ID, event_id: eventId, destination_id: 'd' });

describe('deliver handler', () => {
  it('reports only the poison messages as failed, by their message id, without holding up the rest', async () => {
    sqs.on(ChangeMessageVisibilityCommand).resolves({});
    ddb.on(BatchGetCommand).callsFake(answering([])); // the event is gone (retention): nothing to do, message done
    const { handler } = await import('../../lambdas/handlers/deliver');
    const result = await handler(
      {
        Records: [
          sqsRecord('m-ok', task('01a1fe4e-0000-7000-8000-000000000001')),
          sqsRecord('m-not-json', '{not json'),
          sqsRecord('m-wrong-shape', JSON.stringify({ hello: 'world' })),
          sqsRecord('m-ok-2', task('01a1fe4e-0000-7000-8000-000000000002')),
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
    ddb.on(BatchGetCommand).callsFake((input) => new Promise((resolve) => setTimeout(() => resolve(answering([])(input)), 20)));
    const { handler } = await import('../../lambdas/handlers/deliver');
    const [a, b] = await Promise.all([
      handler({ Records: [sqsRecord('a-poison', 'nope'), sqsRecord('a-ok', task('01a1fe4e-0000-7000-8000-00000000000a'))] }, {} as Context),
      handler({ Records: [sqsRecord('b-ok', task('01a1fe4e-0000-7000-8000-00000000000b')), sqsRecord('b-poison', '{')] }, {} as Context),
    ]);
    expect(a.batchItemFailures).toEqual([{ itemIdentifier: 'a-poison' }]);
    expect(b.batchItemFailures).toEqual([{ itemIdentifier: 'b-poison' }]);
  });

  it('re-sends a task that arrived long before its retry time as a new delayed message, without trying it', async () => {
    const eventId = '01a1fe4e-0000-7000-8000-000000000003';
    const due = Date.now() + 120_000;
    const event = eventRecord({
      id: eventId,
      status: 'retry_scheduled',
      deliveries: { d: deliveryState({ status: 'retry_scheduled', attempts: 1, next_attempt_at: new Date(due).toISOString() }) },
    });
    ddb.on(BatchGetCommand).callsFake(answering(eventPartitionItems(event)));
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const { handler } = await import('../../lambdas/handlers/deliver');
    const result = await handler({ Records: [sqsRecord('m-early', task(eventId))] }, {} as Context);
    // The old message is done (deleted): waiting as a delayed message holds no in-flight slot.
    expect(result.batchItemFailures).toEqual([]);
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand)).toHaveLength(0);
    const entry = sqs.commandCalls(SendMessageBatchCommand)[0]?.args[0].input.Entries?.[0];
    expect(entry?.MessageGroupId).toBe('d');
    expect(entry?.DelaySeconds).toBeGreaterThanOrEqual(119);
    expect(entry?.DelaySeconds).toBeLessThanOrEqual(120);
    expect(JSON.parse(entry?.MessageBody ?? '{}')).toMatchObject({ event_id: eventId, destination_id: 'd', not_before: due });
  });

  it('hops a wait longer than 15 minutes message by message, reading nothing until it is due', async () => {
    const notBefore = Date.now() + 3_600_000;
    const { handler } = await import('../../lambdas/handlers/deliver');
    const body = JSON.stringify({ ...JSON.parse(task('01a1fe4e-0000-7000-8000-000000000004')), not_before: notBefore });
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const result = await handler({ Records: [sqsRecord('m-hop', body)] }, {} as Context);
    expect(result.batchItemFailures).toEqual([]);
    expect(ddb.calls()).toHaveLength(0);
    const entry = sqs.commandCalls(SendMessageBatchCommand)[0]?.args[0].input.Entries?.[0];
    expect(entry?.DelaySeconds).toBe(900); // SQS's longest delay; the next message hops again
    expect(JSON.parse(entry?.MessageBody ?? '{}').not_before).toBe(notBefore);
  });

  it('hides the same message for a wait of a second or two, unless it has been received often already', async () => {
    const eventId = '01a1fe4e-0000-7000-8000-000000000005';
    const event = eventRecord({
      id: eventId,
      deliveries: { d: deliveryState({ next_attempt_at: new Date(Date.now() + 1900).toISOString() }) },
    });
    ddb.on(BatchGetCommand).callsFake(answering(eventPartitionItems(event)));
    sqs.on(ChangeMessageVisibilityCommand).resolves({});
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const { handler } = await import('../../lambdas/handlers/deliver');
    const fresh = await handler({ Records: [sqsRecord('m-short', task(eventId))] }, {} as Context);
    expect(fresh.batchItemFailures).toEqual([{ itemIdentifier: 'm-short' }]);
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand)[0]?.args[0].input.VisibilityTimeout).toBe(2);

    sqs.resetHistory();
    const often = await handler({ Records: [sqsRecord('m-often', task(eventId), 3)] }, {} as Context);
    expect(often.batchItemFailures).toEqual([]);
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand)).toHaveLength(0);
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(1);
  });
});
