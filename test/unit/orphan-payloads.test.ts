import { ConditionalCheckFailedException, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { INLINE_BODY_LIMIT_BYTES } from '../../lambdas/adapters/payloads';
import { acceptEvent, type NewEvent } from '../../lambdas/events/accept';
import { resetConfigForTests } from '../../lambdas/shared/config';
import { UNIT_ENV } from '../fixtures/apigw';
import { eventRecord, newEvent, routingTable } from '../fixtures/records';

// Payload objects of events that never made it into the table: nothing (not even retention) would
// ever find them again, so the pipeline deletes them itself. Only AWS fails this way on demand.

const ddb = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);
const sqs = mockClient(SQSClient);
const HOLDER = '01a1fe4e-0000-7000-8000-0000000000aa';

beforeAll(() => {
  Object.assign(process.env, UNIT_ENV);
  resetConfigForTests();
});
beforeEach(() => {
  ddb.reset();
  s3.reset();
  sqs.reset();
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  ddb.on(QueryCommand).resolves({ Items: [] });
  s3.on(PutObjectCommand).resolves({});
  s3.on(DeleteObjectCommand).resolves({});
  sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
});

/** A publish over the inline limit, for an account with no routes: accept reads nothing else before it writes. */
const largeEvent = (overrides: Partial<NewEvent> = {}): NewEvent =>
  newEvent(routingTable(), { body: Buffer.alloc(INLINE_BODY_LIMIT_BYTES + 1, 0x61), ...overrides });

const putKey = () => String(s3.commandCalls(PutObjectCommand)[0]?.args[0].input.Key);
const deletedKeys = () => s3.commandCalls(DeleteObjectCommand).map((c) => c.args[0].input.Key);

describe('payload objects of events that were never stored', () => {
  it('a failed insert deletes the object it had just put, and the error still surfaces', async () => {
    ddb.on(PutCommand).rejects(new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} }));
    await expect(acceptEvent(largeEvent())).rejects.toThrow('slow down');
    expect(putKey()).toMatch(/^payloads\//);
    expect(deletedKeys()).toEqual([putKey()]);
  });

  it('a repeat of a claimed external id stores no object at all, and answers the holder', async () => {
    ddb.on(PutCommand).rejects(new ConditionalCheckFailedException({ message: 'taken', $metadata: {} }));
    ddb.on(GetCommand).resolves({ Item: { entity: 'dedupe', event_id: HOLDER, expires_at: 1, claimed_at: Date.now() } });
    ddb.on(QueryCommand).resolves({ Items: [{ entity: 'event', sk: 'EVENT', ...eventRecord({ id: HOLDER, direction: 'outbound', status: 'delivered' }) }] });
    const result = await acceptEvent(largeEvent({ externalEventId: 'order-1' }));
    expect(result).toMatchObject({ duplicate: true, existingId: HOLDER });
    expect(s3.commandCalls(PutObjectCommand)).toEqual([]);
    expect(sqs.commandCalls(SendMessageBatchCommand)).toEqual([]);
  });

  it('a failed insert after the claim gives the claim back, so the sender\'s retry is not held off', async () => {
    ddb.on(PutCommand).callsFake((input: { Item: { sk: string } }) => {
      if (input.Item.sk === 'DEDUP') return {};
      throw new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} });
    });
    ddb.on(DeleteCommand).resolves({});
    await expect(acceptEvent(largeEvent({ externalEventId: 'order-2' }))).rejects.toThrow('slow down');
    expect(ddb.commandCalls(DeleteCommand).map((c) => c.args[0].input.Key?.sk)).toEqual(['DEDUP']);
    expect(deletedKeys()).toEqual([putKey()]);
  });

  it('an object that cannot be deleted is logged and left to the lifecycle rule; the refusal is unchanged', async () => {
    ddb.on(PutCommand).rejects(new Error('table unavailable'));
    s3.on(DeleteObjectCommand).rejects(new Error('S3 unavailable'));
    await expect(acceptEvent(largeEvent())).rejects.toThrow('table unavailable');
  });

  it('a stored event keeps its object', async () => {
    ddb.on(PutCommand).resolves({});
    const result = await acceptEvent(largeEvent());
    expect(result.duplicate).toBe(false);
    expect(deletedKeys()).toEqual([]);
  });
});
