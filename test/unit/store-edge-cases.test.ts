import { ConditionalCheckFailedException, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { z } from 'zod';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetConfigForTests } from '../../lambdas/shared/config';
import { batchGet, putNew, updateExisting } from '../../lambdas/store/table';
import { touchApiKey } from '../../lambdas/accounts/api-key-record';
import { changeDelivery } from '../../lambdas/events/record';
import { deliveryState, eventRecord } from '../fixtures/records';
import { apiEvent, UNIT_ENV } from '../fixtures/apigw';

const ddb = mockClient(DynamoDBDocumentClient);
const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

beforeAll(() => {
  Object.assign(process.env, UNIT_ENV);
  resetConfigForTests();
});
beforeEach(() => ddb.reset());
afterEach(() => vi.restoreAllMocks());

describe('conditional writes', () => {
  it('putNew reports a taken key instead of overwriting it', async () => {
    ddb.on(PutCommand).rejects(conditionFailed());
    expect(await putNew({ pk: 'a', sk: 'b' })).toBe(false);
    expect(ddb.commandCalls(PutCommand)[0]?.args[0].input.ConditionExpression).toBe('attribute_not_exists(pk)');
  });

  it('updateExisting never creates an item that was deleted meanwhile', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    expect(await updateExisting({ pk: 'a', sk: 'b' }, { name: 'x' }, z.object({}))).toBeUndefined();
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input.ConditionExpression).toBe('attribute_exists(pk)');
  });

  it('a touch of a key revoked in the same instant is ignored, not an error', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    const lookup = { account_id: 'a', key_id: 'k', key_hash: 'h', last_used_at: null };
    await expect(touchApiKey(lookup, new Date(), 60_000)).resolves.toBeUndefined();
  });

  it('a recent touch costs no write', async () => {
    const now = new Date();
    await touchApiKey({ account_id: 'a', key_id: 'k', key_hash: 'h', last_used_at: now.toISOString() }, now, 60_000);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });
});

describe('a delivery rewritten after the sweeper kept it', () => {
  it('keeps the later TTL: the write that finds it moved reads the item again and carries it', async () => {
    const event = eventRecord();
    const known = { state: deliveryState({ status: 'retry_scheduled', attempts: 3 }), version: 4, expires_at: 1 };
    const kept = Math.floor(Date.now() / 1000) + 30 * 86_400;
    ddb.on(PutCommand).rejectsOnce(conditionFailed()).resolves({});
    ddb.on(GetCommand).resolves({ Item: { pk: 'p', sk: 's', entity: 'delivery', destination_id: 'd', ...known.state, version: 4, expires_at: kept } });

    const written = await changeDelivery(event, 'd', (current) => ({ ...current, status: 'delivering' }), known);

    const puts = ddb.commandCalls(PutCommand).map((c) => c.args[0].input);
    expect(puts).toHaveLength(2);
    expect(puts[0]?.ConditionExpression).toContain('expires_at <= :ttl');
    expect(puts[0]?.Item?.expires_at).toBeLessThan(kept);
    expect(puts[1]?.Item?.expires_at).toBe(kept);
    expect(written).toMatchObject({ changed: true, delivery: { version: 5, expires_at: kept } });
  });
});

describe('batchGet', () => {
  it('retries unprocessed keys (throttled batch reads)', async () => {
    const keys = [
      { pk: 'a', sk: '1' },
      { pk: 'b', sk: '2' },
    ];
    ddb
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { [UNIT_ENV.TABLE_NAME]: [{ v: 1 }] }, UnprocessedKeys: { [UNIT_ENV.TABLE_NAME]: { Keys: [keys[1]!] } } })
      .resolvesOnce({ Responses: { [UNIT_ENV.TABLE_NAME]: [{ v: 2 }] } });
    const found = await batchGet(keys, z.object({ v: z.number() }));
    expect(found).toEqual([{ v: 1 }, { v: 2 }]);
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(2);
  });

  it('fails loudly rather than silently dropping keys DynamoDB keeps refusing', async () => {
    ddb.on(BatchGetCommand).resolves({ Responses: {}, UnprocessedKeys: { [UNIT_ENV.TABLE_NAME]: { Keys: [{ pk: 'a', sk: '1' }] } } });
    await expect(batchGet([{ pk: 'a', sk: '1' }], z.object({}))).rejects.toThrow(/unprocessed/);
  });
});

describe('API handler under DynamoDB throttling', () => {
  it('answers 500 with a fixed message and leaks nothing of the error', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    ddb.on(GetCommand).rejects(new ProvisionedThroughputExceededException({ message: 'Rate of requests exceeds the allowed throughput', $metadata: {} }));
    const { handler } = await import('../../lambdas/handlers/api');
    const res = await handler(
      apiEvent('GET', '/v1/sources', { headers: { authorization: `Bearer hk_${'a'.repeat(43)}` } }),
      {} as Context,
    );
    expect(res.statusCode).toBe(500);
    expect(JSON.parse(res.body ?? '')).toEqual({ error: 'Internal server error', duration_ms: expect.any(Number) });
    expect(res.body).not.toContain('throughput');
  });

  it('answers 401 for an unknown key without touching anything else', async () => {
    ddb.on(GetCommand).resolves({});
    const { handler } = await import('../../lambdas/handlers/api');
    const res = await handler(apiEvent('GET', '/v1/sources', { headers: { authorization: `Bearer hk_${'b'.repeat(43)}` } }), {} as Context);
    expect(res.statusCode).toBe(401);
    expect(ddb.calls()).toHaveLength(1);
  });
});
