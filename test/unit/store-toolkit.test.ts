import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DeleteCommand, DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../lambdas/shared/config';
import { allOf, batchWrite, deleteItem, ITEM_EXISTS, putItem, updateItem } from '../../lambdas/store/table';
import { UNIT_ENV } from '../fixtures/apigw';

const ddb = mockClient(DynamoDBDocumentClient);
const TABLE = UNIT_ENV.TABLE_NAME;
const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
const key = { pk: 'p', sk: 's' };

beforeAll(() => {
  Object.assign(process.env, UNIT_ENV);
  resetConfigForTests();
});
beforeEach(() => ddb.reset());

describe('conditional writes answer instead of throwing', () => {
  it('a failed condition is false for put, update and delete; other errors still throw', async () => {
    ddb.on(PutCommand).rejects(conditionFailed()).on(UpdateCommand).rejects(conditionFailed()).on(DeleteCommand).rejects(conditionFailed());
    expect(await putItem({ ...key, v: 1 }, { expression: 'version = :v', values: { ':v': 0 } })).toBe(false);
    expect(await updateItem(key, { set: { v: 2 } }, { condition: ITEM_EXISTS })).toBe(false);
    expect(await deleteItem(key, { condition: ITEM_EXISTS })).toBe(false);
    ddb.on(PutCommand).rejects(new Error('table unavailable'));
    await expect(putItem({ ...key, v: 1 })).rejects.toThrow('table unavailable');
  });

  it('a delete that asks for the old item tells a removed item from one that was not there', async () => {
    ddb.on(DeleteCommand).resolvesOnce({ Attributes: { ...key, v: 1 } }).resolvesOnce({});
    expect(await deleteItem(key, { returnOld: true })).toEqual({ ...key, v: 1 });
    expect(await deleteItem(key, { returnOld: true })).toBeUndefined();
    expect(ddb.commandCalls(DeleteCommand)[0]?.args[0].input.ReturnValues).toBe('ALL_OLD');
  });
});

describe('the update-expression builder', () => {
  it('writes SET, REMOVE and ADD with its own placeholders, and names a condition\'s #words', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { v: 3 } });
    const out = await updateItem(
      key,
      { set: { status: 'running', note: null }, remove: ['gsi2pk'], add: { count: 1 } },
      { condition: { expression: '#status = :queued', values: { ':queued': 'queued' } }, returnValues: 'ALL_NEW' },
    );
    expect(out).toEqual({ v: 3 });
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input).toEqual({
      TableName: TABLE,
      Key: key,
      UpdateExpression: 'SET #s0 = :s0, #s1 = :s1 REMOVE #r0 ADD #a0 :a0',
      ConditionExpression: '#status = :queued',
      ExpressionAttributeNames: { '#s0': 'status', '#s1': 'note', '#r0': 'gsi2pk', '#a0': 'count', '#status': 'status' },
      ExpressionAttributeValues: { ':s0': 'running', ':s1': null, ':a0': 1, ':queued': 'queued' },
      ReturnValues: 'ALL_NEW',
    });
  });

  it('refuses a condition whose placeholder clashes with the builder\'s, rather than let one value win', async () => {
    await expect(updateItem(key, { set: { v: 1 } }, { condition: { expression: 'v < :s0', values: { ':s0': 5 } } })).rejects.toThrow(/:s0/);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('joins conditions with AND', async () => {
    ddb.on(UpdateCommand).resolves({});
    await updateItem(key, { set: { v: 1 } }, { condition: allOf(ITEM_EXISTS, { expression: 'event_id = :id', values: { ':id': 'e' } }) });
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input.ConditionExpression).toBe('attribute_exists(pk) AND event_id = :id');
  });
});

describe('batchWrite', () => {
  it('sends puts and deletes together and retries only what DynamoDB left unprocessed', async () => {
    const put = { PutRequest: { Item: { ...key, v: 1 } } };
    ddb.on(BatchWriteCommand).resolvesOnce({ UnprocessedItems: { [TABLE]: [put] } }).resolves({});
    await batchWrite([{ put: { ...key, v: 1 } }, { delete: { pk: 'q', sk: 's' } }], { backoffMs: 0 });
    const calls = ddb.commandCalls(BatchWriteCommand).map((call) => call.args[0].input.RequestItems?.[TABLE]);
    expect(calls).toEqual([[put, { DeleteRequest: { Key: { pk: 'q', sk: 's' } } }], [put]]);
  });

  it('gives up after the caller\'s attempts', async () => {
    ddb.on(BatchWriteCommand).callsFake((input: { RequestItems: Record<string, unknown[]> }) => ({ UnprocessedItems: input.RequestItems }));
    await expect(batchWrite([{ delete: key }], { attempts: 3, backoffMs: 0 })).rejects.toThrow(/unprocessed/);
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(3);
  });
});
