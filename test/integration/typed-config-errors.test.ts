import { beforeAll, describe, expect, it } from 'vitest';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { createAccount } from '../fixtures/http-client';
import { addDestination } from '../fixtures/setup';

// Every 400 on a typed config (a destination's `config` by `type`, its `auth` by `type`, a source's
// `verification` by `provider`) names the field that is missing or wrong, and the type it was checked
// against (issue 38 item 6), through the real API.

const { call } = gatewayWithSinkForFile();
let key: string;
beforeAll(async () => {
  ({ key } = await createAccount(call));
});

const refusal = async (method: string, path: string, body: Record<string, unknown>) => {
  const res = await call(method, path, { key, body });
  return { status: res.status, body: res.json };
};
const refused = (error: string) => ({ status: 400, body: { error, duration_ms: expect.any(Number) } });

describe('an AWS destination whose config is missing a field or has a wrong one', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['aws_sqs', {}, 'config.queue_url is required for type aws_sqs'],
    ['aws_sqs', { queue_url: 42 }, 'config.queue_url must be a string for type aws_sqs'],
    ['aws_sqs', { queue_url: 'https://sqs.eu-west-1.amazonaws.com/123456789012/q', topic_arn: 'x' }, 'unknown field: config.topic_arn (aws_sqs takes queue_url)'],
    ['aws_sns', {}, 'config.topic_arn is required for type aws_sns'],
    ['aws_sns', { topic_arn: '' }, 'config.topic_arn is required for type aws_sns'],
    ['aws_eventbridge', { detail_type: 'x' }, 'config.event_bus_arn is required for type aws_eventbridge'],
    ['aws_eventbridge', { event_bus_arn: 'arn:aws:events:eu-west-1:123456789012:event-bus/b', detail_type: 7 }, 'config.detail_type must be a string for type aws_eventbridge'],
    ['aws_kinesis', { partition_key: 'event_id' }, 'config.stream_arn is required for type aws_kinesis'],
    ['aws_kinesis', { stream_arn: 'arn:aws:kinesis:eu-west-1:123456789012:stream/s', partition_key: '' }, 'config.partition_key is required for type aws_kinesis'],
    ['aws_lambda', {}, 'config.function_arn is required for type aws_lambda'],
    ['aws_lambda', { function_arn: 'arn:aws:lambda:eu-west-1:123456789012:function:f', qualifier: 'x' }, 'unknown field: config.qualifier (aws_lambda takes function_arn)'],
    ['aws_s3', { key_template: '{event_id}' }, 'config.bucket is required for type aws_s3'],
    ['aws_s3', { bucket: 'ab' }, 'config.bucket must be at least 3 characters for type aws_s3'],
    ['aws_s3', { bucket: 'events-archive', region: 5 }, 'config.region must be a string for type aws_s3'],
    ['aws_s3', { bucket: 'events-archive', prefix: 'x' }, 'unknown field: config.prefix (aws_s3 takes bucket, key_template, region)'],
  ])('a create of %s with config %j is refused, naming the field', async (type, config, error) => {
    expect(await refusal('POST', '/v1/destinations', { name: 'n', type, config })).toEqual(refused(error));
  });

  it.each<[unknown, string]>([
    ['https://sqs.eu-west-1.amazonaws.com/123456789012/q', 'config must be an object for type aws_sqs'],
    [null, 'config must be an object for type aws_sqs'],
    [['https://sqs.eu-west-1.amazonaws.com/123456789012/q'], 'config must be an object for type aws_sqs'],
  ])('a config that is not an object (%j) is refused, naming the type', async (config, error) => {
    expect(await refusal('POST', '/v1/destinations', { name: 'n', type: 'aws_sqs', config })).toEqual(refused(error));
  });

  it('a change of config is checked against the destination’s own type, naming the field', async () => {
    const bucket = await addDestination(call, key, { type: 'aws_s3', config: { bucket: 'events-archive' } });
    const path = `/v1/destinations/${bucket.id}`;
    expect(await refusal('PATCH', path, { config: { queue_url: 'https://sqs.eu-west-1.amazonaws.com/123456789012/q' } })).toEqual(refused('config.bucket is required for type aws_s3'));
    expect(await refusal('PATCH', path, { config: { bucket: 'events-archive', key_template: 3 } })).toEqual(refused('config.key_template must be a string for type aws_s3'));
    expect(await refusal('PATCH', path, { config: 'events-archive' })).toEqual(refused('config must be an object for type aws_s3'));
    expect((await call('GET', path, { key })).json.data.config).toEqual(bucket.config);
  });
});

describe('an http destination’s auth missing a field or with a wrong one', () => {
  it.each<[Record<string, unknown>, string]>([
    [{ type: 'bearer' }, 'auth.token is required'],
    [{ type: 'bearer', token: 12345678 }, 'auth.token must be a string'],
    [{ type: 'header', value: 'v' }, 'auth.name is required'],
    [{ type: 'header', name: 'x-key' }, 'auth.value is required'],
    [{ type: 'basic', token: 't' }, 'auth.type must be one of: bearer, header'],
    [{ token: 't' }, 'auth.type must be one of: bearer, header'],
    [{ type: 'bearer', token: 'tttttttt', name: 'x' }, 'unknown field: auth.name'],
  ])('auth %j is refused, naming the field', async (auth, error) => {
    expect(await refusal('POST', '/v1/destinations', { name: 'n', url: 'https://consumer.example.com/hooks', auth })).toEqual(refused(error));
  });
});

describe('a source’s verification missing a field or with a wrong one', () => {
  it.each<[Record<string, unknown>, string]>([
    [{ provider: 'stripe' }, 'verification.secret is required'],
    [{ provider: 'github', secret: 42 }, 'verification.secret must be a string'],
    [{ provider: 'hmac_sha256', secret: 's' }, 'verification.header is required'],
    [{ provider: 'hmac_sha256', secret: 's', header: 'x-sig', encoding: 'base32' }, 'verification.encoding must be one of: hex, base64'],
    [{ provider: 'paypal', secret: 's' }, 'verification.provider must be one of: stripe, github, shopify, slack, standard_webhooks, hmac_sha256'],
    [{ secret: 's' }, 'verification.provider must be one of: stripe, github, shopify, slack, standard_webhooks, hmac_sha256'],
    [{ provider: 'stripe', secret: 's', header: 'x-sig' }, 'unknown field: verification.header'],
  ])('verification %j is refused, naming the field', async (verification, error) => {
    expect(await refusal('POST', '/v1/sources', { name: 'n', verification })).toEqual(refused(error));
  });
});
