import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { KinesisClient, PutRecordCommand } from '@aws-sdk/client-kinesis';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { SendMessageCommand, SQSClient, SQSServiceException } from '@aws-sdk/client-sqs';
import { AssumeRoleCommand, STSClient, STSServiceException } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sendToAws, type AwsDelivery } from '../../lambdas/adapters/aws-sender';
import { deliveryHeaders } from '../../lambdas/domain/delivery-headers';
import type { AwsTarget } from '../../lambdas/domain/aws-targets';
import { ENV } from '../../lambdas/shared/resource-definitions';
import { OWN_ROLE_REFUSAL } from '../../lambdas/domain/aws-targets';

// What each AWS destination type sends and how each answer counts, against mocked clients (the local
// runtime emulates SQS and S3 only; test/integration/aws-destinations.test.ts delivers into those).

const sqs = mockClient(SQSClient);
const sns = mockClient(SNSClient);
const events = mockClient(EventBridgeClient);
const kinesis = mockClient(KinesisClient);
const lambda = mockClient(LambdaClient);
const s3 = mockClient(S3Client);
const sts = mockClient(STSClient);
afterEach(() => [sqs, sns, events, kinesis, lambda, s3, sts].forEach((mock) => mock.reset()));
// The deployment's configuration, which the S3 client reads (path-style addressing, on locally only).
beforeAll(() =>
  Object.assign(process.env, { [ENV.tableName]: 't', [ENV.deliveryQueueUrl]: 'q', [ENV.payloadBucket]: 'p', [ENV.exportBucket]: 'e', [ENV.ownRoleAccounts]: ACCOUNT_ID }),
);

const ACCOUNT = '123456789012';
const ACCOUNT_ID = '0193a5b2-0000-7000-8000-00000000000a';
const QUEUE = `https://sqs.eu-west-1.amazonaws.com/${ACCOUNT}/orders`;
const BODY = Buffer.from('{"order":{"id":"o-7"},"total":12}');
const EVENT_ID = '0193a5b2-0000-7000-8000-000000000001';
const HEADERS = deliveryHeaders({
  webhookId: EVENT_ID,
  eventId: EVENT_ID,
  eventType: 'order.paid',
  contentType: 'application/json',
  body: BODY,
  timestamp: 1_764_000_000,
  scheme: 'hookgate',
  secrets: ['whsec_test'],
  keys: [],
  auth: null,
  userAgent: 'hookgate/test',
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
});
const ATTRIBUTES = {
  'content-type': 'application/json',
  'x-webhook-id': EVENT_ID,
  'x-hookgate-event-id': EVENT_ID,
  'x-event-type': 'order.paid',
  'webhook-signature': HEADERS['webhook-signature'] ?? '',
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
};
const asAttributes = (values: Record<string, string>) => Object.fromEntries(Object.entries(values).map(([name, value]) => [name, { DataType: 'String', StringValue: value }]));
const ENVELOPE = { event_id: EVENT_ID, webhook_id: EVENT_ID, event_type: 'order.paid', headers: ATTRIBUTES, body: BODY.toString(), body_encoding: 'utf8' };
const OK = { $metadata: { httpStatusCode: 200, requestId: 'req-ok' } };

const send = (target: AwsTarget, overrides: Partial<AwsDelivery & { body: Buffer; timeoutMs: number }> = {}) =>
  sendToAws({ target, roleArn: null, externalId: `hookgate-${ACCOUNT_ID}`, accountId: ACCOUNT_ID, destinationId: 'dest-1', eventId: EVENT_ID, eventType: 'order.paid', receivedAt: '2026-11-26T16:00:00.000Z', headers: HEADERS, body: BODY, timeoutMs: 5000, ...overrides });

describe('each type’s request', () => {
  it('SQS: the body as the message, the signed headers as attributes', async () => {
    sqs.on(SendMessageCommand).resolves({ ...OK, MessageId: 'm-1' });
    const result = await send({ type: 'aws_sqs', queue_url: QUEUE });
    expect(sqs.commandCalls(SendMessageCommand)[0]?.args[0].input).toEqual({ QueueUrl: QUEUE, MessageBody: BODY.toString(), MessageAttributes: asAttributes(ATTRIBUTES) });
    expect(result).toMatchObject({ outcome: 'success', responseStatus: 200, error: null });
    expect(JSON.parse(result.responseBody)).toEqual({ aws_request_id: 'req-ok', message_id: 'm-1' });
  });

  it('SQS FIFO: grouped by destination, de-duplicated by event', async () => {
    sqs.on(SendMessageCommand).resolves(OK);
    await send({ type: 'aws_sqs', queue_url: `${QUEUE}.fifo` });
    expect(sqs.commandCalls(SendMessageCommand)[0]?.args[0].input).toMatchObject({ MessageGroupId: 'dest-1', MessageDeduplicationId: EVENT_ID });
  });

  it('SQS and SNS FIFO: a keyed event is grouped by its ordering key', async () => {
    sqs.on(SendMessageCommand).resolves(OK);
    sns.on(PublishCommand).resolves(OK);
    await send({ type: 'aws_sqs', queue_url: `${QUEUE}.fifo` }, { orderingKey: 'cus_42' });
    await send({ type: 'aws_sns', topic_arn: `arn:aws:sns:eu-west-1:${ACCOUNT}:orders.fifo` }, { orderingKey: 'cus_42' });
    expect(sqs.commandCalls(SendMessageCommand)[0]?.args[0].input).toMatchObject({ MessageGroupId: 'cus_42', MessageDeduplicationId: EVENT_ID });
    expect(sns.commandCalls(PublishCommand)[0]?.args[0].input).toMatchObject({ MessageGroupId: 'cus_42', MessageDeduplicationId: EVENT_ID });
  });

  it('SQS: a binary body goes base64, and says so', async () => {
    sqs.on(SendMessageCommand).resolves(OK);
    const body = Buffer.from([0xff, 0x00, 0x10]);
    await send({ type: 'aws_sqs', queue_url: QUEUE }, { body });
    const input = sqs.commandCalls(SendMessageCommand)[0]?.args[0].input;
    expect(input?.MessageBody).toBe(body.toString('base64'));
    expect(input?.MessageAttributes?.['content-transfer-encoding']).toEqual({ DataType: 'String', StringValue: 'base64' });
  });

  it('SNS: the message and its attributes, as for SQS', async () => {
    sns.on(PublishCommand).resolves({ ...OK, MessageId: 'm-2' });
    const topic = `arn:aws:sns:eu-west-1:${ACCOUNT}:orders`;
    await send({ type: 'aws_sns', topic_arn: topic });
    expect(sns.commandCalls(PublishCommand)[0]?.args[0].input).toEqual({ TopicArn: topic, Message: BODY.toString(), MessageAttributes: asAttributes(ATTRIBUTES) });
  });

  it('EventBridge: one entry, the envelope as detail, the event type as detail type by default', async () => {
    events.on(PutEventsCommand).resolves({ ...OK, FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
    const bus = `arn:aws:events:eu-west-1:${ACCOUNT}:event-bus/orders`;
    const result = await send({ type: 'aws_eventbridge', event_bus_arn: bus, detail_type: null, source: 'shop' });
    const entry = events.commandCalls(PutEventsCommand)[0]?.args[0].input.Entries?.[0];
    expect(entry).toMatchObject({ EventBusName: bus, Source: 'shop', DetailType: 'order.paid', Time: new Date('2026-11-26T16:00:00.000Z') });
    expect(JSON.parse(entry?.Detail ?? '')).toEqual(ENVELOPE);
    expect(JSON.parse(result.responseBody)).toEqual({ aws_request_id: 'req-ok', event_id: 'e-1' });
  });

  it('Kinesis: one record of the envelope, keyed by the JSON pointer', async () => {
    kinesis.on(PutRecordCommand).resolves({ ...OK, ShardId: 'shardId-0', SequenceNumber: '1' });
    const stream = `arn:aws:kinesis:eu-west-1:${ACCOUNT}:stream/orders`;
    await send({ type: 'aws_kinesis', stream_arn: stream, partition_key: '/order/id' });
    const input = kinesis.commandCalls(PutRecordCommand)[0]?.args[0].input;
    expect(input).toMatchObject({ StreamARN: stream, PartitionKey: 'o-7' });
    expect(JSON.parse(Buffer.from(input?.Data ?? []).toString())).toEqual(ENVELOPE);
  });

  it('Lambda: an asynchronous invoke of the envelope', async () => {
    lambda.on(InvokeCommand).resolves({ $metadata: { httpStatusCode: 202, requestId: 'req-l' }, StatusCode: 202 });
    const fn = `arn:aws:lambda:eu-west-1:${ACCOUNT}:function:consume:live`;
    const result = await send({ type: 'aws_lambda', function_arn: fn });
    const input = lambda.commandCalls(InvokeCommand)[0]?.args[0].input;
    expect(input).toMatchObject({ FunctionName: fn, InvocationType: 'Event' });
    expect(JSON.parse(Buffer.from(input?.Payload as Uint8Array).toString())).toEqual(ENVELOPE);
    expect(result).toMatchObject({ outcome: 'success', responseStatus: 202 });
  });

  it('S3: the body under the key template, the signed headers as metadata', async () => {
    s3.on(PutObjectCommand).resolves({ ...OK, ETag: '"abc"' });
    const result = await send({ type: 'aws_s3', bucket: 'events-archive', key_template: '{event_type}/{date}/{event_id}.json', region: 'eu-west-1' });
    expect(JSON.parse(result.responseBody)).toEqual({ aws_request_id: 'req-ok', key: `order.paid/2026-11-26/${EVENT_ID}.json`, etag: '"abc"' });
    const { 'content-type': contentType, ...metadata } = ATTRIBUTES;
    expect(s3.commandCalls(PutObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'events-archive',
      Key: `order.paid/2026-11-26/${EVENT_ID}.json`,
      Body: BODY,
      ContentType: contentType,
      Metadata: metadata,
    });
  });
});

describe('limits: a message over its service’s limit is refused before any call', () => {
  const SQS_TARGET: AwsTarget = { type: 'aws_sqs', queue_url: QUEUE };
  const SNS_TARGET: AwsTarget = { type: 'aws_sns', topic_arn: `arn:aws:sns:eu-west-1:${ACCOUNT}:t` };
  const EVENTBRIDGE_TARGET: AwsTarget = { type: 'aws_eventbridge', event_bus_arn: `arn:aws:events:eu-west-1:${ACCOUNT}:event-bus/b`, detail_type: null, source: 'hookgate' };
  const LAMBDA_TARGET: AwsTarget = { type: 'aws_lambda', function_arn: `arn:aws:lambda:eu-west-1:${ACCOUNT}:function:f` };

  // SQS, EventBridge and asynchronous Lambda take 1 MB since 2025-26; an SNS topic 256 KiB unless raised.
  it.each<[string, AwsTarget, number]>([
    ['SQS', SQS_TARGET, 1_048_576],
    ['SNS', SNS_TARGET, 262_144],
    ['EventBridge', EVENTBRIDGE_TARGET, 1_048_576],
    ['Kinesis', { type: 'aws_kinesis', stream_arn: `arn:aws:kinesis:eu-west-1:${ACCOUNT}:stream/s`, partition_key: 'event_id' }, 1_048_576],
    ['Lambda', LAMBDA_TARGET, 1_048_576],
  ])('%s', async (_label, target, limit) => {
    const result = await send(target, { body: Buffer.alloc(limit, 'a') });
    expect(result.outcome).toBe('blocked');
    expect(result.error).toMatch(new RegExp(`^the message is \\d+ bytes; ${target.type} takes at most ${limit} bytes$`));
    expect([sqs, sns, events, kinesis, lambda].every((mock) => mock.calls().length === 0)).toBe(true);
  });

  it('SQS: a message just within the limit is sent', async () => {
    sqs.on(SendMessageCommand).resolves(OK);
    const attributeBytes = Object.entries(ATTRIBUTES).reduce((n, [k, v]) => n + k.length + 'String'.length + v.length, 0);
    const result = await send(SQS_TARGET, { body: Buffer.alloc(1_048_576 - attributeBytes, 'a') });
    expect(result.outcome).toBe('success');
  });

  it('a 300 KB message, over the old 256 KB, is sent to SQS, EventBridge and Lambda, and refused for SNS', async () => {
    sqs.on(SendMessageCommand).resolves(OK);
    events.on(PutEventsCommand).resolves({ ...OK, FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
    lambda.on(InvokeCommand).resolves({ ...OK, StatusCode: 202 });
    const body = Buffer.alloc(300_000, 'a');
    expect((await Promise.all([SQS_TARGET, EVENTBRIDGE_TARGET, LAMBDA_TARGET].map((target) => send(target, { body })))).map((r) => r.outcome)).toEqual(['success', 'success', 'success']);
    expect((await send(SNS_TARGET, { body })).outcome).toBe('blocked');
    expect(sns.calls()).toEqual([]);
  });
});

describe('error classes: every failure is a failed try with the AWS request id and error code', () => {
  const failWith = (name: string, status: number) =>
    new SQSServiceException({ name, $fault: status >= 500 ? 'server' : 'client', message: `${name} happened`, $metadata: { httpStatusCode: status, requestId: 'req-err' } });

  it.each<[string, number, string]>([
    ['AccessDenied', 403, 'refused'],
    ['QueueDoesNotExist', 400, 'refused'],
    ['KMS.AccessDeniedException', 400, 'refused'],
    ['ThrottlingException', 400, 'throttled'],
    ['RequestThrottled', 403, 'throttled'],
    ['InternalError', 500, 'server'],
    ['ServiceUnavailable', 503, 'server'],
  ])('%s (%i): %s', async (name, status, errorClass) => {
    sqs.on(SendMessageCommand).rejects(failWith(name, status));
    const result = await send({ type: 'aws_sqs', queue_url: QUEUE });
    expect(result).toMatchObject({ outcome: 'http_error', responseStatus: status, error: `${name}: ${name} happened`, retryAfterSeconds: null });
    expect(JSON.parse(result.responseBody)).toEqual({ aws_request_id: 'req-err', error_code: name, error_class: errorClass });
  });

  it('an entry EventBridge refuses in a 200 answer is a failure too', async () => {
    events.on(PutEventsCommand).resolves({ ...OK, FailedEntryCount: 1, Entries: [{ ErrorCode: 'ThrottlingException', ErrorMessage: 'slow down' }] });
    const result = await send({ type: 'aws_eventbridge', event_bus_arn: `arn:aws:events:eu-west-1:${ACCOUNT}:event-bus/b`, detail_type: null, source: 'hookgate' });
    expect(result).toMatchObject({ outcome: 'http_error', responseStatus: 200, error: 'ThrottlingException: slow down' });
    expect(JSON.parse(result.responseBody)).toEqual({ aws_request_id: 'req-ok', error_code: 'ThrottlingException', error_class: 'throttled' });
  });

  it('no answer at all is a network error', async () => {
    sqs.on(SendMessageCommand).rejects(Object.assign(new Error('getaddrinfo ENOTFOUND sqs.eu-west-1.amazonaws.com'), { name: 'Error', code: 'ENOTFOUND' }));
    expect(await send({ type: 'aws_sqs', queue_url: QUEUE })).toMatchObject({ outcome: 'network_error', responseStatus: null, error: 'ENOTFOUND: getaddrinfo ENOTFOUND sqs.eu-west-1.amazonaws.com' });
  });

  it('a call past the destination’s timeout is a timeout', async () => {
    sqs.on(SendMessageCommand).callsFake((_input, getClient) => {
      void getClient;
      return new Promise((_resolve, reject) => setTimeout(() => reject(Object.assign(new Error('The operation was aborted'), { name: 'AbortError' })), 30));
    });
    expect(await send({ type: 'aws_sqs', queue_url: QUEUE }, { timeoutMs: 10 })).toMatchObject({ outcome: 'timeout', error: 'no response within 10 ms' });
  });
});

describe('a role in the target’s account, assumed with the account’s external id', () => {
  const ROLE = `arn:aws:iam::${ACCOUNT}:role/hookgate-delivery`;
  const sessionFor = (minutes: number, key = 'ASIA1') => ({
    Credentials: { AccessKeyId: key, SecretAccessKey: 'secret', SessionToken: 'token', Expiration: new Date(Date.now() + minutes * 60_000) },
  });
  const signedWith = async (call: number) => (await sqs.commandCalls(SendMessageCommand)[call]?.thisValue.config.credentials())?.accessKeyId;
  // Each test its own role: the credentials cache is the process's.
  const role = (name: string) => `${ROLE}-${name}`;

  it('assumes it with the external id, signs the call with what STS gave, and keeps it for the next send', async () => {
    sts.on(AssumeRoleCommand).resolves(sessionFor(60));
    sqs.on(SendMessageCommand).resolves(OK);
    const roleArn = role('cached');
    expect((await send({ type: 'aws_sqs', queue_url: QUEUE }, { roleArn })).outcome).toBe('success');
    expect((await send({ type: 'aws_sqs', queue_url: QUEUE }, { roleArn })).outcome).toBe('success');
    expect(sts.commandCalls(AssumeRoleCommand).map((c) => c.args[0].input)).toEqual([
      { RoleArn: roleArn, RoleSessionName: 'hookgate-delivery', ExternalId: `hookgate-${ACCOUNT_ID}`, DurationSeconds: 3600 },
    ]);
    expect(await signedWith(0)).toBe('ASIA1');
  });

  it('assumes it again when the credentials are within 5 minutes of their end', async () => {
    sts.on(AssumeRoleCommand).resolvesOnce(sessionFor(4, 'ASIA-OLD')).resolves(sessionFor(60, 'ASIA-NEW'));
    sqs.on(SendMessageCommand).resolves(OK);
    const roleArn = role('expiring');
    await send({ type: 'aws_sqs', queue_url: QUEUE }, { roleArn });
    await send({ type: 'aws_sqs', queue_url: QUEUE }, { roleArn });
    expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(2);
  });

  it('the deliver function’s own role when there is none: no STS call', async () => {
    sqs.on(SendMessageCommand).resolves(OK);
    await send({ type: 'aws_sqs', queue_url: QUEUE });
    expect(sts.calls()).toHaveLength(0);
  });

  it('no role, for an account the operator did not list: refused before any call (the deliver role’s grants are the deployment’s)', async () => {
    const result = await send({ type: 'aws_sqs', queue_url: QUEUE }, { accountId: '0193a5b2-0000-7000-8000-0000000000ff' });
    expect(result).toMatchObject({ outcome: 'blocked', responseStatus: null, error: OWN_ROLE_REFUSAL });
    expect(sqs.calls()).toHaveLength(0);
    expect(sts.calls()).toHaveLength(0);
  });

  it('a role that refuses: a failed try with STS’s error, asked again on the next try', async () => {
    sts
      .on(AssumeRoleCommand)
      .rejects(new STSServiceException({ name: 'AccessDenied', $fault: 'client', message: 'not authorized to perform sts:AssumeRole', $metadata: { httpStatusCode: 403, requestId: 'req-sts' } }));
    const roleArn = role('refusing');
    const result = await send({ type: 'aws_sqs', queue_url: QUEUE }, { roleArn });
    expect(result).toMatchObject({ outcome: 'http_error', responseStatus: 403, error: 'AccessDenied: not authorized to perform sts:AssumeRole' });
    expect(JSON.parse(result.responseBody)).toEqual({ aws_request_id: 'req-sts', error_code: 'AccessDenied', error_class: 'refused' });
    await send({ type: 'aws_sqs', queue_url: QUEUE }, { roleArn });
    expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(2);
    expect(sqs.calls()).toHaveLength(0);
  });
});
