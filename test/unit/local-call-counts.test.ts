import { describe, expect, it } from 'vitest';
import { AccountAttribution, readCallCounts } from '../../local/call-counts';

const A = '019a0000-0000-7000-8000-00000000000a';
const B = '019a0000-0000-7000-8000-00000000000b';
const task = (account: string) => JSON.stringify({ v: 1, account_id: account, event_id: 'e', destination_id: 'd' });
const shares = (map: Map<string, number>) => Object.fromEntries(map);

describe('which account a request is about', () => {
  it.each<[string, 'dynamodb' | 'sqs', string, Record<string, unknown>, Record<string, number>]>([
    ['a tenant item read', 'dynamodb', 'GetItem', { Key: { pk: `ACCT#${A}#EVT#e1`, sk: 'STATUS' } }, { [A]: 1 }],
    ['a query of the routing range', 'dynamodb', 'Query', { ExpressionAttributeValues: { ':pk': `ACCT#${A}` } }, { [A]: 1 }],
    ['a transaction on one account', 'dynamodb', 'TransactWriteItems', { TransactItems: [{ Put: { Item: { pk: `ACCT#${A}` } } }, { Update: { Key: { pk: `ACCT#${A}#EVT#e` } } }] }, { [A]: 1 }],
    ['a batch of two accounts', 'dynamodb', 'BatchGetItem', { RequestItems: { t: { Keys: [{ pk: `ACCT#${A}` }, { pk: `ACCT#${B}` }] } } }, { [A]: 0.5, [B]: 0.5 }],
    ['a lookup outside any account', 'dynamodb', 'GetItem', { Key: { pk: 'SOURCETOKEN#abc', sk: 'LOOKUP' } }, { '': 1 }],
    ['a task sent', 'sqs', 'SendMessage', { MessageBody: task(A) }, { [A]: 1 }],
    ['tasks of two accounts sent together', 'sqs', 'SendMessageBatch', { Entries: [{ MessageBody: task(A) }, { MessageBody: task(A) }, { MessageBody: task(B) }, { MessageBody: task(B) }] }, { [A]: 0.5, [B]: 0.5 }],
    ['a body that is no task', 'sqs', 'SendMessage', { MessageBody: 'not json' }, { '': 1 }],
    ['a queue attribute read', 'sqs', 'GetQueueAttributes', { QueueUrl: 'q' }, { '': 1 }],
  ])('%s', (_label, service, op, input, expected) => {
    expect(shares(new AccountAttribution().shares(service, op, input, undefined))).toEqual(expected);
  });

  it('follows a received message to its delete and visibility change by receipt handle; an empty receive is nobody’s', () => {
    const attribution = new AccountAttribution();
    const received = { Messages: [{ ReceiptHandle: 'r1', Body: task(A) }, { ReceiptHandle: 'r2', Body: task(A) }, { ReceiptHandle: 'r3', Body: task(B) }, { ReceiptHandle: 'r4', Body: task(B) }] };
    expect(shares(attribution.shares('sqs', 'ReceiveMessage', {}, received))).toEqual({ [A]: 0.5, [B]: 0.5 });
    expect(shares(attribution.shares('sqs', 'ReceiveMessage', {}, { Messages: [] }))).toEqual({ '': 1 });
    expect(shares(attribution.shares('sqs', 'ChangeMessageVisibility', { ReceiptHandle: 'r3' }, undefined))).toEqual({ [B]: 1 });
    expect(shares(attribution.shares('sqs', 'DeleteMessageBatch', { Entries: [{ ReceiptHandle: 'r1' }, { ReceiptHandle: 'r3' }] }, undefined))).toEqual({ [A]: 0.5, [B]: 0.5 });
    // A deleted message's handle is forgotten; one never received is nobody's.
    expect(shares(attribution.shares('sqs', 'DeleteMessage', { ReceiptHandle: 'r1' }, undefined))).toEqual({ '': 1 });
    expect(shares(attribution.shares('sqs', 'DeleteMessage', { ReceiptHandle: 'r2' }, undefined))).toEqual({ [A]: 1 });
  });
});

describe('reading the counts', () => {
  it('says which thread did not answer, and how counting is turned on', async () => {
    await expect(readCallCounts(['deliver'], 50)).rejects.toThrow('no call counts from the deliver thread(s): is HOOKGATE_LOCAL_CALL_COUNTS=1 set?');
  });
});
