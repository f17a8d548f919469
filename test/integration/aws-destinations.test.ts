import { CreateBucketCommand, GetObjectCommand } from '@aws-sdk/client-s3';
import { CreateQueueCommand, DeleteQueueCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { sqsClient } from '../../lambdas/adapters/aws-clients';
import { s3Client } from '../../lambdas/adapters/s3';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../../local/aws-clients';
import { createAccount } from '../fixtures/http-client';
import { addDestination, addRoute, eventDetail } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';

// AWS destinations delivering into the local runtime's own emulators (local-aws-sqs and s3rver),
// through the real handlers: what `npm start` users see. The other types run against client mocks
// (test/unit/aws-sender.test.ts).

// Three tries, a breaker that opens on the third failure and stays open while the test looks, and
// the job worker polling every second for the bulk replay.
// The deliver role's own grants (docs/aws-destinations.md): the targets the deployment lists, as an operator would.
const { call } = gatewayWithSinkForFile(
  {
    HOOKGATE_RETRY_SCHEDULE: '0,1,1',
    HOOKGATE_BREAKER_THRESHOLD: '3',
    HOOKGATE_BREAKER_COOLDOWN_SECONDS: '600',
    SCHEDULER_EXPORT_POLL_INTERVAL: '1',
  },
  { stack: { awsDestinationTargets: [...['customer-orders', 'customer-doomed', 'customer-large', 'customer-small'].map((queue) => `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${queue}`), 'arn:aws:s3:::customer-archive'] } },
);

const verifier = new Stripe('sk_test_unused').webhooks.signature;
const publish = async (key: string, payload: string, eventType: string) => {
  const res = await call('POST', '/v1/outbound-events', { key, body: { payload, event_type: eventType } });
  expect(res.status).toBe(201);
  return res.json.data.id as string;
};
const detail = (key: string, id: string) => eventDetail(call, key, id, '/v1/outbound-events');

async function newQueue(name: string): Promise<string> {
  const { QueueUrl } = await sqsClient().send(new CreateQueueCommand({ QueueName: name }));
  if (!QueueUrl) throw new Error('no queue');
  return QueueUrl;
}

/** Waits for the next message on a queue, with its attributes. */
async function nextMessage(queueUrl: string): Promise<Message> {
  const received = await eventually(
    () => sqsClient().send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MessageAttributeNames: ['All'], MaxNumberOfMessages: 1, WaitTimeSeconds: 0 })),
    (out) => (out.Messages?.length ?? 0) > 0,
  );
  return received.Messages![0]!;
}

const attribute = (message: Message, name: string) => message.MessageAttributes?.[name]?.StringValue;

async function sqsDestination(key: string, queueUrl: string, eventType: string) {
  const destination = await addDestination(call, key, { name: 'queue', type: 'aws_sqs', config: { queue_url: queueUrl } });
  await addRoute(call, key, { destination_id: destination.id, event_type_pattern: eventType });
  return destination;
}

describe('aws_sqs', () => {
  it('delivers the event into the queue, its id, type and a signature that verifies as attributes', async () => {
    const { key } = await createAccount(call);
    const queueUrl = await newQueue('customer-orders');
    const destination = await sqsDestination(key, queueUrl, 'order.paid');
    expect(destination).toMatchObject({ type: 'aws_sqs', config: { queue_url: queueUrl }, url: queueUrl });

    const payload = JSON.stringify({ order: 'o-1', total: 12 });
    const id = await publish(key, payload, 'order.paid');
    const message = await nextMessage(queueUrl);
    expect(message.Body).toBe(payload);
    expect(attribute(message, 'x-hookgate-event-id')).toBe(id);
    expect(attribute(message, 'x-webhook-id')).toBe(id);
    expect(attribute(message, 'x-event-type')).toBe('order.paid');
    expect(attribute(message, 'content-type')).toBe('application/json');
    expect(() => verifier?.verifyHeader(payload, attribute(message, 'webhook-signature') ?? '', destination.signing_secret, 300)).not.toThrow();
    expect(() => verifier?.verifyHeader(payload, attribute(message, 'webhook-signature') ?? '', 'another-secret', 300)).toThrow();

    const shown = await eventually(() => detail(key, id), (d) => d.event.status === 'delivered');
    expect(shown.attempts).toEqual([expect.objectContaining({ outcome: 'success', response_status: 200, error: null })]);
    expect(JSON.parse(shown.attempts[0]!.response_body)).toEqual({ aws_request_id: expect.any(String), message_id: message.MessageId });
  });

  it('a deleted queue: failed tries with the AWS error, the breaker opens, the event dead-letters; a bulk replay re-sends it', async () => {
    const { key } = await createAccount(call);
    const queueUrl = await newQueue('customer-doomed');
    const destination = await sqsDestination(key, queueUrl, 'order.lost');
    await sqsClient().send(new DeleteQueueCommand({ QueueUrl: queueUrl }));

    const payload = JSON.stringify({ order: 'o-2' });
    const id = await publish(key, payload, 'order.lost');
    const dead = await eventually(() => detail(key, id), (d) => d.event.status === 'dead_letter', 30_000);
    expect(dead.attempts).toHaveLength(3);
    for (const attempt of dead.attempts) {
      expect(attempt).toMatchObject({ outcome: 'http_error', response_status: 400, error: expect.stringMatching(/^(QueueDoesNotExist|AWS\.SimpleQueueService\.NonExistentQueue): /) });
      expect(JSON.parse(attempt.response_body)).toMatchObject({ error_code: expect.any(String), error_class: 'refused' });
    }
    // The breaker is written after the try's outcome (which settles the event): a moment later.
    const shown = await eventually(async () => (await call('GET', `/v1/destinations/${destination.id}`, { key })).json.data, (d) => d.health.state !== 'failing', 10_000);
    expect(shown.health).toMatchObject({ state: 'open', consecutive_failures: 3 });

    // The customer fixes its queue; the account replays what dead-lettered there.
    await newQueue('customer-doomed');
    const job = await call('POST', '/v1/replays', { key, body: { direction: 'outbound', destination_id: destination.id } });
    expect(job.status).toBe(202);
    const message = await nextMessage(queueUrl);
    expect(message.Body).toBe(payload);
    expect(attribute(message, 'x-webhook-id')).toBe(id); // the same webhook id, for the consumer's de-duplication
    expect(attribute(message, 'x-hookgate-event-id')).not.toBe(id); // sent as the replay's copy
    await eventually(
      async () => (await call('GET', `/v1/destinations/${destination.id}`, { key })).json.data.health.state as string,
      (state) => state === 'healthy',
    );
  });

  it('a destination with role_arn is delivered with the role assumed under the account’s external id (STS mocked)', async () => {
    const sts = mockClient(STSClient);
    try {
      sts.on(AssumeRoleCommand).resolves({ Credentials: { AccessKeyId: 'ASSUMED', SecretAccessKey: 'x', SessionToken: 't', Expiration: new Date(Date.now() + 3_600_000) } });
      const { key, accountId } = await createAccount(call);
      const queueUrl = await newQueue('customer-cross-account');
      const roleArn = `arn:aws:iam::${new URL(queueUrl).pathname.split('/')[1]}:role/hookgate-delivery`;
      const destination = await addDestination(call, key, { name: 'queue', type: 'aws_sqs', config: { queue_url: queueUrl }, role_arn: roleArn });
      expect(destination).toMatchObject({ role_arn: roleArn, external_id: `hookgate-${accountId}` });
      await addRoute(call, key, { destination_id: destination.id, event_type_pattern: 'order.far' });
      await publish(key, '{"far":true}', 'order.far');
      expect((await nextMessage(queueUrl)).Body).toBe('{"far":true}');
      expect(sts.commandCalls(AssumeRoleCommand).map((c) => c.args[0].input)).toEqual([
        { RoleArn: roleArn, RoleSessionName: 'hookgate-delivery', ExternalId: `hookgate-${accountId}`, DurationSeconds: 3600 },
      ]);
    } finally {
      sts.restore();
    }
  });

  it('an event over the old 256 KiB limit reaches the queue: SQS takes 1 MiB', async () => {
    const { key } = await createAccount(call);
    const queueUrl = await newQueue('customer-large');
    await sqsDestination(key, queueUrl, 'order.large');
    const payload = JSON.stringify({ blob: 'x'.repeat(300_000) });
    const id = await publish(key, payload, 'order.large');
    const message = await nextMessage(queueUrl);
    expect(message.Body).toBe(payload);
    expect(attribute(message, 'x-hookgate-event-id')).toBe(id);
  });

  it('an event too large for SQS ends payload_too_large at once, with no try', async () => {
    const { key } = await createAccount(call);
    const queueUrl = await newQueue('customer-small');
    await sqsDestination(key, queueUrl, 'order.big');
    const id = await publish(key, JSON.stringify({ blob: 'x'.repeat(1_045_000) }), 'order.big');
    const shown = await detail(key, id);
    expect(shown.event.status).toBe('dead_letter');
    expect(shown.event.deliveries).toEqual([expect.objectContaining({ status: 'dead_letter', attempts: 0, end_reason: 'payload_too_large' })]);
    const { Messages } = await sqsClient().send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 1 }));
    expect(Messages ?? []).toEqual([]);
  });
});

describe('aws_s3', () => {
  it('writes the body under its key template, with the signed headers as metadata', async () => {
    const { key } = await createAccount(call);
    await s3Client().send(new CreateBucketCommand({ Bucket: 'customer-archive' }));
    const destination = await addDestination(call, key, {
      name: 'archive',
      type: 'aws_s3',
      config: { bucket: 'customer-archive', key_template: 'hooks/{event_type}/{date}/{event_id}.json' },
    });
    expect(destination).toMatchObject({ url: 's3://customer-archive/hooks/{event_type}/{date}/{event_id}.json', config: { region: null } });
    await addRoute(call, key, { destination_id: destination.id, event_type_pattern: 'invoice.*' });

    const payload = JSON.stringify({ invoice: 'in_9' });
    const id = await publish(key, payload, 'invoice.sent');
    const shown = await eventually(() => detail(key, id), (d) => d.event.status === 'delivered');
    const objectKey = `hooks/invoice.sent/${shown.event.received_at.slice(0, 10)}/${id}.json`;
    expect(JSON.parse(shown.attempts[0]!.response_body)).toMatchObject({ key: objectKey });

    const object = await s3Client().send(new GetObjectCommand({ Bucket: 'customer-archive', Key: objectKey }));
    expect(await object.Body?.transformToString()).toBe(payload);
    expect(object.ContentType).toBe('application/json');
    expect(object.Metadata).toMatchObject({ 'x-hookgate-event-id': id, 'x-event-type': 'invoice.sent' });
    expect(() => verifier?.verifyHeader(payload, object.Metadata?.['webhook-signature'] ?? '', destination.signing_secret, 300)).not.toThrow();
  });
});

describe('creating an AWS destination', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['a queue URL of another host', { type: 'aws_sqs', config: { queue_url: 'https://evil.example.com/q' } }, 'config.queue_url must be an SQS queue URL: https://sqs.<region>.amazonaws.com/<12-digit account id>/<queue name>'],
    ['a URL as well as a config', { type: 'aws_sqs', url: 'https://a.example.com', config: { queue_url: 'x' } }, 'url is only for http destinations; aws_sqs takes config'],
    ['no config', { type: 'aws_sns' }, 'config is required for aws_sns'],
    ['the config of another type', { type: 'aws_sns', config: { queue_url: 'x' } }, 'config.topic_arn is required for type aws_sns'],
    ['a config for http', { config: { queue_url: 'x' } }, 'config is only for AWS destination types'],
    ['auth on an AWS type', { type: 'aws_lambda', config: { function_arn: 'arn:aws:lambda:eu-west-1:123456789012:function:f' }, auth: { type: 'bearer', token: 'tttttttt' } }, 'auth is only for http destinations'],
    ['a key template that overwrites', { type: 'aws_s3', config: { bucket: 'events-archive', key_template: 'latest.json' } }, 'config.key_template must contain {event_id}, so that no event overwrites another'],
    ['a role for an http destination', { url: 'https://a.example.com/', role_arn: 'arn:aws:iam::123456789012:role/r' }, 'role_arn is only for AWS destination types'],
    ['a role in another account than its target', { type: 'aws_sns', config: { topic_arn: 'arn:aws:sns:eu-west-1:123456789012:t' }, role_arn: 'arn:aws:iam::210987654321:role/r' }, "role_arn must be in the target's account (123456789012)"],
    ['a made-up type', { type: 'aws_sqs2', config: { queue_url: 'x' } }, 'type must be one of: http, aws_sqs, aws_sns, aws_eventbridge, aws_kinesis, aws_lambda, aws_s3'],
  ])('refuses %s with a 400', async (_label, body, message) => {
    const { key } = await createAccount(call);
    const res = await call('POST', '/v1/destinations', { key, body: { name: 'n', ...body } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: message, duration_ms: expect.any(Number) });
  });

  it('fills in the defaults and refuses a change of type or a URL', async () => {
    const { key } = await createAccount(call);
    const bus = 'arn:aws:events:eu-west-1:123456789012:event-bus/orders';
    const created = await call('POST', '/v1/destinations', { key, body: { name: 'bus', type: 'aws_eventbridge', config: { event_bus_arn: bus } } });
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ type: 'aws_eventbridge', url: bus, config: { event_bus_arn: bus, detail_type: null, source: 'hookgate' } });
    const path = `/v1/destinations/${created.json.data.id}`;
    expect((await call('PATCH', path, { key, body: { url: 'https://a.example.com/' } })).json.error).toBe('url is only for http destinations; aws_eventbridge takes config');
    expect((await call('PATCH', path, { key, body: { config: { queue_url: 'x' } } })).json.error).toBe('config.event_bus_arn is required for type aws_eventbridge');
    const changed = await call('PATCH', path, { key, body: { config: { event_bus_arn: bus, source: 'shop' } } });
    expect(changed.json.data).toMatchObject({ config: { source: 'shop' }, url: bus });
    expect((await call('GET', '/v1/destinations', { key })).json.data[0]).toMatchObject({ type: 'aws_eventbridge' });
    const role = 'arn:aws:iam::123456789012:role/hookgate-delivery';
    const withRole = await call('PATCH', path, { key, body: { role_arn: role } });
    expect(withRole.json.data).toMatchObject({ role_arn: role, external_id: `hookgate-${created.json.data.account_id}` });
    expect((await call('PATCH', path, { key, body: { role_arn: 'arn:aws:iam::210987654321:role/x' } })).json.error).toBe("role_arn must be in the target's account (123456789012)");
  });
});
