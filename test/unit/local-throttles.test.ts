import { Readable } from 'node:stream';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS } from '../../local/aws-clients';
import { runAs } from '../../local/sdk-hooks';
import { applyThrottles, ruleMatches, throttledTries, throttleRulesFromEnv, type ThrottleRule } from '../../local/throttles';

const get = { TableName: 'hookgate', Key: { pk: { S: 'ACCT#a1' }, sk: { S: 'ACCOUNT' } } };
const query = { TableName: 'hookgate', KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'ACCT#a1#HELD#d1' } } };
const batchWrite = { RequestItems: { other: [{ PutRequest: { Item: { pk: { S: 'EVT#1' } } } }] } };

describe('which calls a throttle rule covers', () => {
  const cases: [string, ThrottleRule, string, string, Record<string, unknown>, boolean][] = [
    ['every call, with no condition', {}, 'SQS', 'SendMessage', {}, true],
    ['its service only', { service: 'DynamoDB' }, 'SQS', 'SendMessage', {}, false],
    ['its operations only', { operations: ['PutItem'] }, 'DynamoDB', 'GetItem', get, false],
    ['a key prefix on a GetItem key', { keyPrefix: 'ACCT#a1' }, 'DynamoDB', 'GetItem', get, true],
    ['a key prefix on a query’s key', { keyPrefix: 'ACCT#a1#HELD#' }, 'DynamoDB', 'Query', query, true],
    ['a key prefix another key does not start with', { keyPrefix: 'ACCT#a2' }, 'DynamoDB', 'GetItem', get, false],
    ['a key prefix in a batch write', { keyPrefix: 'EVT#' }, 'DynamoDB', 'BatchWriteItem', batchWrite, true],
    ['a table by name', { table: 'other' }, 'DynamoDB', 'BatchWriteItem', batchWrite, true],
    ['another table', { table: 'other' }, 'DynamoDB', 'GetItem', get, false],
  ];
  it.each(cases)('%s', (_name, rule, service, operation, input, matches) => {
    expect(ruleMatches(rule, service, operation, input)).toBe(matches);
  });

  it('reads the rules from HOOKGATE_LOCAL_THROTTLES, and refuses a rate over 1', () => {
    expect(throttleRulesFromEnv({ HOOKGATE_LOCAL_THROTTLES: '[{"service":"DynamoDB","rate":0.2}]' })).toEqual([{ service: 'DynamoDB', rate: 0.2 }]);
    expect(throttleRulesFromEnv({})).toEqual([]);
    expect(() => throttleRulesFromEnv({ HOOKGATE_LOCAL_THROTTLES: '[{"rate":2}]' })).toThrow(/HOOKGATE_LOCAL_THROTTLES/);
  });
});

describe('a throttled try, inside the SDK’s retries', () => {
  /** A DynamoDB client whose every request that reaches the network is answered 200 with an empty item. */
  function client(sent: { count: number }) {
    return new DynamoDBClient({
      region: 'us-east-1',
      credentials: LOCAL_CREDENTIALS,
      maxAttempts: 3,
      requestHandler: {
        handle: async () => {
          sent.count += 1;
          return { response: { statusCode: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: Readable.from([Buffer.from('{}')]) } };
        },
      },
    });
  }
  afterEach(() => applyThrottles([]));

  it('is retried by the SDK as AWS’s would be: one throttled try, then the call succeeds', async () => {
    const draws = [0.1, 0.9];
    applyThrottles([{ service: 'DynamoDB', rate: 0.5 }], () => draws.shift() ?? 0.9);
    const sent = { count: 0 };
    await runAs('hookgate-api', () => client(sent).send(new GetItemCommand(get)));
    expect(throttledTries()).toBe(1);
    expect(sent.count).toBe(1);
  });

  it('reaches the code only when every try was throttled, as ProvisionedThroughputExceededException', async () => {
    applyThrottles([{ service: 'DynamoDB' }]);
    const sent = { count: 0 };
    await expect(runAs('hookgate-api', () => client(sent).send(new GetItemCommand(get)))).rejects.toMatchObject({ name: 'ProvisionedThroughputExceededException' });
    expect(throttledTries()).toBe(3);
    expect(sent.count).toBe(0);
  });

  it('leaves calls made outside any function alone (the runtime’s own, a test’s), even on a client a function uses too', async () => {
    applyThrottles([{ service: 'DynamoDB' }]);
    const sent = { count: 0 };
    const shared = client(sent);
    await expect(runAs('hookgate-api', () => shared.send(new GetItemCommand(get)))).rejects.toMatchObject({ name: 'ProvisionedThroughputExceededException' });
    const throttledInFunction = throttledTries();
    await shared.send(new GetItemCommand(get));
    expect(sent.count).toBe(1);
    expect(throttledTries()).toBe(throttledInFunction);
  });
});
