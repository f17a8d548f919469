import { describe, expect, it } from 'vitest';
import { attributedMessageBytes, envelopeOf, messageAttributes, messageText, partitionKeyOf } from '../../lambdas/domain/aws-messages';
import { awsErrorClass, awsTargetRefusal, externalIdOf, isOwnQueue, mayUseOwnRole, objectKey, regionOf, roleArnRefusal, targetAddress, type AwsTarget } from '../../lambdas/domain/aws-targets';

const ACCOUNT = '123456789012';
const sqs = (queue_url: string): AwsTarget => ({ type: 'aws_sqs', queue_url });
const sns = (topic_arn: string): AwsTarget => ({ type: 'aws_sns', topic_arn });
const bus = (event_bus_arn: string, extra: { detail_type?: string | null; source?: string } = {}): AwsTarget => ({ type: 'aws_eventbridge', event_bus_arn, detail_type: null, source: 'hookgate', ...extra });
const stream = (stream_arn: string, partition_key = 'event_id'): AwsTarget => ({ type: 'aws_kinesis', stream_arn, partition_key });
const fn = (function_arn: string): AwsTarget => ({ type: 'aws_lambda', function_arn });
const s3 = (bucket: string, key_template = '{event_id}', region: string | null = null): AwsTarget => ({ type: 'aws_s3', bucket, key_template, region });

describe('AWS targets are checked strictly', () => {
  it.each<[string, AwsTarget, boolean]>([
    ['an SQS queue URL', sqs(`https://sqs.eu-west-1.amazonaws.com/${ACCOUNT}/orders`), true],
    ['a FIFO queue', sqs(`https://sqs.us-east-1.amazonaws.com/${ACCOUNT}/orders.fifo`), true],
    ['a GovCloud queue', sqs(`https://sqs.us-gov-west-1.amazonaws.com/${ACCOUNT}/orders`), true],
    ['a queue on plain http', sqs(`http://sqs.eu-west-1.amazonaws.com/${ACCOUNT}/orders`), false],
    ['a queue on another host', sqs(`https://sqs.eu-west-1.amazonaws.com.evil.example/${ACCOUNT}/orders`), false],
    ['a queue with an 11-digit account', sqs('https://sqs.eu-west-1.amazonaws.com/12345678901/orders'), false],
    ['a queue name with a slash', sqs(`https://sqs.eu-west-1.amazonaws.com/${ACCOUNT}/a/b`), false],
    ['a queue on the local emulator, not local', sqs(`http://127.0.0.1:4566/${ACCOUNT}/orders`), false],
    ['a topic ARN', sns(`arn:aws:sns:eu-west-1:${ACCOUNT}:orders`), true],
    ['a China topic ARN', sns(`arn:aws-cn:sns:cn-north-1:${ACCOUNT}:orders`), true],
    ['a queue ARN as a topic', sns(`arn:aws:sqs:eu-west-1:${ACCOUNT}:orders`), false],
    ['a topic without a region', sns(`arn:aws:sns::${ACCOUNT}:orders`), false],
    ['an event bus ARN', bus(`arn:aws:events:eu-west-1:${ACCOUNT}:event-bus/default`), true],
    ['an event bus source starting aws.', bus(`arn:aws:events:eu-west-1:${ACCOUNT}:event-bus/default`, { source: 'aws.s3' }), false],
    ['an over-long detail type', bus(`arn:aws:events:eu-west-1:${ACCOUNT}:event-bus/default`, { detail_type: 'x'.repeat(129) }), false],
    ['a rule ARN as a bus', bus(`arn:aws:events:eu-west-1:${ACCOUNT}:rule/r`), false],
    ['a stream ARN', stream(`arn:aws:kinesis:eu-west-1:${ACCOUNT}:stream/orders`), true],
    ['a stream keyed by a JSON pointer', stream(`arn:aws:kinesis:eu-west-1:${ACCOUNT}:stream/orders`, '/order/id'), true],
    ['a stream keyed by a bare name', stream(`arn:aws:kinesis:eu-west-1:${ACCOUNT}:stream/orders`, 'order.id'), false],
    ['a function ARN', fn(`arn:aws:lambda:eu-west-1:${ACCOUNT}:function:consume`), true],
    ['a function alias', fn(`arn:aws:lambda:eu-west-1:${ACCOUNT}:function:consume:live`), true],
    ['a layer ARN as a function', fn(`arn:aws:lambda:eu-west-1:${ACCOUNT}:layer:consume`), false],
    ['a bucket', s3('events-archive'), true],
    ['a bucket with a region', s3('events-archive', '{event_id}', 'eu-west-1'), true],
    ['a bucket with a made-up region', s3('events-archive', '{event_id}', 'moon'), false],
    ['an upper-case bucket', s3('Events'), false],
    ['a bucket like an IP address', s3('192.168.1.1'), false],
    ['a bucket with two dots in a row', s3('a..b'), false],
    ['a key template without the event id', s3('events-archive', '{date}/x'), false],
    ['a key template with an unknown placeholder', s3('events-archive', '{event_id}/{account}'), false],
    ['a key template of every placeholder', s3('events-archive', '{event_type}/{date}/{event_id}.json'), true],
    ['a key template too long once filled', s3('events-archive', `${'{event_type}'.repeat(2)}{event_id}`), false],
  ])('%s → %s', (_label, target, accepted) => expect(awsTargetRefusal(target, null) === undefined).toBe(accepted));

  it.each<[string, string | null, boolean]>([
    [`http://127.0.0.1:4566/${ACCOUNT}/orders`, 'http://127.0.0.1:4566', true],
    [`http://127.0.0.1:4566/${ACCOUNT}/orders.fifo`, 'http://127.0.0.1:4566', true],
    [`http://127.0.0.1:4566/${ACCOUNT}/orders`, null, false],
    [`http://127.0.0.1:4567/${ACCOUNT}/orders`, 'http://127.0.0.1:4566', false],
    [`http://169.254.169.254/${ACCOUNT}/orders`, 'http://127.0.0.1:4566', false],
    [`http://127.0.0.1:4566/${ACCOUNT}/orders?x=1`, 'http://127.0.0.1:4566', false],
    [`http://127.0.0.1:4566/latest/meta-data`, 'http://127.0.0.1:4566', false],
  ])('queue %s on the SQS emulator at %s → %s', (queueUrl, localSqs, accepted) => expect(awsTargetRefusal(sqs(queueUrl), localSqs) === undefined).toBe(accepted));

  it.each<[AwsTarget, string | null]>([
    [sqs(`https://sqs.ap-southeast-2.amazonaws.com/${ACCOUNT}/q`), 'ap-southeast-2'],
    [sqs(`http://127.0.0.1:4566/${ACCOUNT}/q`), null],
    [fn(`arn:aws:lambda:eu-central-1:${ACCOUNT}:function:f`), 'eu-central-1'],
    [s3('b'), null],
  ])('%j lives in %s', (target, region) => expect(regionOf(target)).toBe(region));

  it.each<[string, string, AwsTarget, string | undefined]>([
    ['a role in the queue’s account', `arn:aws:iam::${ACCOUNT}:role/hookgate`, sqs(`https://sqs.eu-west-1.amazonaws.com/${ACCOUNT}/q`), undefined],
    ['a role with a path', `arn:aws:iam::${ACCOUNT}:role/service/hookgate`, fn(`arn:aws:lambda:eu-west-1:${ACCOUNT}:function:f`), undefined],
    ['a role for a bucket (which names no account)', 'arn:aws:iam::210987654321:role/hookgate', s3('b'), undefined],
    ['a role in another account than the topic', 'arn:aws:iam::210987654321:role/hookgate', sns(`arn:aws:sns:eu-west-1:${ACCOUNT}:t`), `role_arn must be in the target's account (${ACCOUNT})`],
    ['a user, not a role', `arn:aws:iam::${ACCOUNT}:user/admin`, sns(`arn:aws:sns:eu-west-1:${ACCOUNT}:t`), 'role_arn must be an IAM role ARN: arn:aws:iam::<12-digit account id>:role/<name>'],
    ['a role ARN with a region', `arn:aws:iam:eu-west-1:${ACCOUNT}:role/x`, sns(`arn:aws:sns:eu-west-1:${ACCOUNT}:t`), 'role_arn must be an IAM role ARN: arn:aws:iam::<12-digit account id>:role/<name>'],
  ])('role_arn: %s', (_label, roleArn, target, refusal) => expect(roleArnRefusal(roleArn, target)).toBe(refusal));

  it('an account’s external id is its own id', () => expect(externalIdOf('0193-abc')).toBe('hookgate-0193-abc'));

  it('shows a bucket target as s3://bucket/template', () => expect(targetAddress(s3('b', 'x/{event_id}'))).toBe('s3://b/x/{event_id}'));

  it('fills a key template', () => {
    const event = { id: '0193', type: 'order.paid', receivedAt: '2026-11-26T16:00:00.000Z' };
    expect(objectKey('{event_type}/{date}/{event_id}.json', event)).toBe('order.paid/2026-11-26/0193.json');
    expect(objectKey('{event_type}/{event_id}', { ...event, type: null })).toBe('untyped/0193');
  });
});

describe('AWS errors', () => {
  it.each<[string, number | null, string]>([
    ['ThrottlingException', 400, 'throttled'],
    ['ProvisionedThroughputExceededException', 400, 'throttled'],
    ['SlowDown', 503, 'throttled'],
    ['Anything', 429, 'throttled'],
    ['InternalError', 500, 'server'],
    ['ServiceUnavailable', 503, 'server'],
    ['AccessDenied', 403, 'refused'],
    ['AccessDeniedException', 400, 'refused'],
    ['AWS.SimpleQueueService.NonExistentQueue', 400, 'refused'],
    ['NoSuchBucket', 404, 'refused'],
    ['ResourceNotFoundException', 404, 'refused'],
    ['KMSAccessDeniedException', 400, 'refused'],
  ])('%s (%s) is %s', (code, status, errorClass) => expect(awsErrorClass(code, status)).toBe(errorClass));
});

describe('what an AWS destination receives', () => {
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'hookgate/1',
    'x-webhook-id': 'wh',
    'x-hookgate-event-id': 'ev',
    'x-event-type': 'order.paid',
    'webhook-signature': 't=1,v1=ab',
  };

  it.each<[string, Buffer, 'utf8' | 'base64']>([
    ['JSON', Buffer.from('{"a":"é"}'), 'utf8'],
    ['text with tabs and newlines', Buffer.from('a\tb\r\nc'), 'utf8'],
    ['invalid UTF-8', Buffer.from([0xff, 0xfe, 0x41]), 'base64'],
    ['a control character SQS refuses', Buffer.from('a\u0001b'), 'base64'],
    ['a NUL byte', Buffer.from([0x41, 0x00]), 'base64'],
  ])('a body of %s goes as %s', (_label, body, encoding) => {
    const text = messageText(body);
    expect(text.encoding).toBe(encoding);
    expect(Buffer.from(text.text, encoding)).toEqual(body);
  });

  it('carries the signed headers as attributes, not the user agent, and says when the body is base64', () => {
    expect(messageAttributes(headers, 'utf8')).toEqual({
      'content-type': 'application/json',
      'x-webhook-id': 'wh',
      'x-hookgate-event-id': 'ev',
      'x-event-type': 'order.paid',
      'webhook-signature': 't=1,v1=ab',
    });
    expect(messageAttributes(headers, 'base64')['content-transfer-encoding']).toBe('base64');
  });

  it('counts a message as SQS does: body, and each attribute’s name, type and value', () => {
    expect(attributedMessageBytes({ text: 'héllo', encoding: 'utf8' }, { ab: 'cd' })).toBe(6 + 2 + 6 + 2);
  });

  it('wraps body and headers in an envelope for EventBridge, Kinesis and Lambda', () => {
    expect(envelopeOf(headers, Buffer.from('{"a":1}'))).toEqual({
      event_id: 'ev',
      webhook_id: 'wh',
      event_type: 'order.paid',
      headers: messageAttributes(headers, 'utf8'),
      body: '{"a":1}',
      body_encoding: 'utf8',
    });
  });

  it.each<[string, string, string]>([
    ['event_id', '{"order":{"id":"o-1"}}', 'ev-1'],
    ['/order/id', '{"order":{"id":"o-1"}}', 'o-1'],
    ['/order/n', '{"order":{"n":42}}', '42'],
    ['/a~1b', '{"a/b":"slash"}', 'slash'],
    ['/order', '{"order":{"id":"o-1"}}', 'ev-1'],
    ['/missing', '{"order":1}', 'ev-1'],
    ['/order/id', 'not json', 'ev-1'],
    ['/order/id', `{"order":{"id":"${'x'.repeat(257)}"}}`, 'ev-1'],
    ['/__proto__', '{}', 'ev-1'],
  ])('partition key %s of %s is %s', (spec, body, key) => expect(partitionKeyOf(spec, 'ev-1', Buffer.from(body))).toBe(key));
});

describe('Hookgate’s own delivery queue is never a target', () => {
  const own = 'https://sqs.eu-west-1.amazonaws.com/123456789012/Hookgate-prod-DeliveryQueue-AbC123';
  it.each<[string, AwsTarget, boolean]>([
    ['the same URL', { type: 'aws_sqs', queue_url: own }, true],
    ['another spelling of its host', { type: 'aws_sqs', queue_url: 'https://eu-west-1.queue.amazonaws.com/123456789012/Hookgate-prod-DeliveryQueue-AbC123' }, true],
    ['a trailing slash', { type: 'aws_sqs', queue_url: `${own}/` }, true],
    ['another queue of the same account', { type: 'aws_sqs', queue_url: 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders' }, false],
    ['the same name in another account', { type: 'aws_sqs', queue_url: 'https://sqs.eu-west-1.amazonaws.com/210987654321/Hookgate-prod-DeliveryQueue-AbC123' }, false],
    ['another type', { type: 'aws_sns', topic_arn: 'arn:aws:sns:eu-west-1:123456789012:t' }, false],
  ])('%s → %s', (_label, target, expected) => expect(isOwnQueue(target, own)).toBe(expected));
});

describe('who may deliver with the deliver role itself (no role, on the deployment’s awsDestinationTargets)', () => {
  it.each<[string, string[], boolean]>([
    ['nobody listed', [], false],
    ['the account listed', ['acct-a'], true],
    ['another account listed', ['acct-b'], false],
    ['every account (the local runtime)', ['*'], true],
  ])('%s → %s', (_label, allowed, expected) => expect(mayUseOwnRole('acct-a', allowed)).toBe(expected));
});
