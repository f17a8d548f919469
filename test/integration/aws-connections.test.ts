import { CreateQueueCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { sqsClient } from '../../lambdas/adapters/aws-clients';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { createAccount } from '../fixtures/http-client';
import { addRoute } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';
import { LOCAL_ACCOUNT_ID } from '../../local/aws-clients';

// AWS connections through the real handlers and the local gateway. STS has no emulator: verify and
// the delivery's AssumeRole run against aws-sdk-client-mock.

const { call } = gatewayWithSinkForFile();

const AWS_ACCOUNT = '123456789012';
const OTHER_AWS_ACCOUNT = '210987654321';
const TOPIC = `arn:aws:sns:eu-west-1:${AWS_ACCOUNT}:orders`;
/** handlerEnv's placeholders for the deliver and api roles (local/handler-env.ts). */
const LOCAL_PRINCIPALS = [`arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/hookgate-local-deliver`, `arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/hookgate-local-api`];
const SECRET_MESSAGE = 'AWS access keys are never accepted: Hookgate assumes a role in your account instead (POST /v1/aws-connections, see docs/aws-destinations.md)';

async function connect(key: string, body: Record<string, unknown> = { aws_account_id: AWS_ACCOUNT }) {
  const res = await call('POST', '/v1/aws-connections', { key, body });
  expect(res.status, res.text).toBe(201);
  return res.json.data;
}

const topicDestination = (connectionId: string, extra: Record<string, unknown> = {}) => ({
  name: 'topic',
  type: 'aws_sns',
  config: { topic_arn: TOPIC },
  connection_id: connectionId,
  ...extra,
});

describe('AWS connections', () => {
  it('a new connection: its role, a generated external id, the trust policy and the template URL', async () => {
    const { key } = await createAccount(call);
    const connection = await connect(key, { aws_account_id: AWS_ACCOUNT, customer: 'cus_1' });
    expect(connection).toEqual({
      id: expect.any(String),
      aws_account_id: AWS_ACCOUNT,
      customer: 'cus_1',
      external_id: expect.stringMatching(/^hookgate-[A-Za-z0-9_-]{43}$/),
      role_name: expect.stringMatching(/^HookgateDelivery-[0-9a-f]{12}$/),
      role_arn: `arn:aws:iam::${AWS_ACCOUNT}:role/${connection.role_name}`,
      trust_policy: {
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Principal: { AWS: `arn:aws:iam::${LOCAL_ACCOUNT_ID}:root` },
            Action: 'sts:AssumeRole',
            Condition: { StringEquals: { 'sts:ExternalId': connection.external_id }, ArnEquals: { 'aws:PrincipalArn': LOCAL_PRINCIPALS } },
          },
        ],
      },
      cloudformation_template_url: expect.stringMatching(new RegExp(`^http://[^/]+/v1/aws-connections/${connection.id}/template$`)),
      status: 'unverified',
      error: null,
      checked_at: null,
      created_at: expect.any(String),
    });
    expect((await connect(key)).external_id).not.toBe(connection.external_id);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no account', {}, 'aws_account_id is required'],
    ['an 11-digit account', { aws_account_id: '12345678901' }, 'aws_account_id must be a 12-digit AWS account id'],
    ['an external id of the caller’s choice', { aws_account_id: AWS_ACCOUNT, external_id: 'hookgate-mine' }, 'unknown field: external_id'],
    ['an access key', { aws_account_id: AWS_ACCOUNT, access_key_id: 'AKIAEXAMPLE', secret_access_key: 'x' }, SECRET_MESSAGE],
    ['a secret key', { aws_account_id: AWS_ACCOUNT, secret_access_key: 'x' }, SECRET_MESSAGE],
  ])('refuses %s', async (_, body, error) => {
    const { key } = await createAccount(call);
    const res = await call('POST', '/v1/aws-connections', { key, body });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error, duration_ms: expect.any(Number) });
  });

  it('is listed and shown to its account only, and filtered by customer', async () => {
    const a = await createAccount(call);
    const b = await createAccount(call);
    const own = await connect(a.key);
    const customers = await connect(a.key, { aws_account_id: AWS_ACCOUNT, customer: 'cus_2' });
    expect((await call('GET', '/v1/aws-connections', { key: a.key })).json.data.map((c: { id: string }) => c.id)).toEqual([customers.id, own.id]);
    expect((await call('GET', '/v1/aws-connections?customer=cus_2', { key: a.key })).json.data.map((c: { id: string }) => c.id)).toEqual([customers.id]);
    expect((await call('GET', `/v1/aws-connections/${own.id}`, { key: a.key })).json.data).toEqual(own);

    expect((await call('GET', '/v1/aws-connections', { key: b.key })).json.data).toEqual([]);
    for (const path of [`/v1/aws-connections/${own.id}`, `/v1/aws-connections/${own.id}/template`]) {
      expect((await call('GET', path, { key: b.key })).status).toBe(404);
    }
    expect((await call('POST', `/v1/aws-connections/${own.id}/verify`, { key: b.key })).status).toBe(404);
    expect((await call('DELETE', `/v1/aws-connections/${own.id}`, { key: b.key })).status).toBe(404);
    expect((await call('GET', `/v1/aws-connections/${own.id}`, { key: a.key })).status).toBe(200);
  });

  it('serves a CloudFormation template: the role, its trust policy, and exactly its destinations’ actions', async () => {
    const { key } = await createAccount(call);
    const connection = await connect(key);
    const bare = await call('GET', new URL(connection.cloudformation_template_url).pathname, { key });
    expect(bare.status).toBe(200);
    expect(bare.json.data).toEqual({
      AWSTemplateFormatVersion: '2010-09-09',
      Description: expect.any(String),
      Parameters: { KmsKeyArn: expect.objectContaining({ Type: 'String', Default: '' }) },
      Resources: { HookgateDeliveryRole: { Type: 'AWS::IAM::Role', Properties: { RoleName: connection.role_name, AssumeRolePolicyDocument: connection.trust_policy } } },
      Outputs: { RoleArn: { Value: { 'Fn::GetAtt': ['HookgateDeliveryRole', 'Arn'] } } },
    });

    expect((await call('POST', '/v1/destinations', { key, body: topicDestination(connection.id) })).status).toBe(201);
    const bucket = { name: 'archive', type: 'aws_s3', config: { bucket: 'customer-archive' }, connection_id: connection.id };
    expect((await call('POST', '/v1/destinations', { key, body: bucket })).status).toBe(201);
    // Not this connection's: not in its template.
    await call('POST', '/v1/destinations', { key, body: { name: 'other', type: 'aws_sns', config: { topic_arn: `${TOPIC}-2` } } });
    const template = (await call('GET', `/v1/aws-connections/${connection.id}/template`, { key })).json.data;
    expect(template.Resources.HookgateDeliveryRole.Properties.Policies).toEqual([
      {
        PolicyName: 'HookgateDelivery',
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Action: 's3:PutObject', Resource: ['arn:aws:s3:::customer-archive/*'] },
            { Effect: 'Allow', Action: 'sns:Publish', Resource: [TOPIC] },
            // SSE-KMS targets: the key the stack's KmsKeyArn names, when it names one.
            { 'Fn::If': ['HasKmsKey', { Effect: 'Allow', Action: ['kms:GenerateDataKey', 'kms:Decrypt'], Resource: { Ref: 'KmsKeyArn' } }, { Ref: 'AWS::NoValue' }] },
          ],
        },
      },
    ]);
  });

  it('a destination delivers through a connection of its account: the connection’s role and external id', async () => {
    const { key } = await createAccount(call);
    const connection = await connect(key);
    const res = await call('POST', '/v1/destinations', { key, body: topicDestination(connection.id) });
    expect(res.status, res.text).toBe(201);
    expect(res.json.data).toMatchObject({ connection_id: connection.id, role_arn: connection.role_arn, external_id: connection.external_id });
    // Changed to a bare role: the connection goes, and the account's external id applies again.
    const path = `/v1/destinations/${res.json.data.id}`;
    const bare = await call('PATCH', path, { key, body: { role_arn: `arn:aws:iam::${AWS_ACCOUNT}:role/own` } });
    expect(bare.json.data).toMatchObject({ connection_id: null, role_arn: `arn:aws:iam::${AWS_ACCOUNT}:role/own`, external_id: `hookgate-${res.json.data.account_id}` });
    const back = await call('PATCH', path, { key, body: { connection_id: connection.id } });
    expect(back.json.data).toMatchObject({ connection_id: connection.id, role_arn: connection.role_arn, external_id: connection.external_id });
    // Without its connection it goes back to the deliver role; a bare role_arn outlives a connection_id: null.
    const off = await call('PATCH', path, { key, body: { connection_id: null } });
    expect(off.json.data).toMatchObject({ connection_id: null, role_arn: null, external_id: `hookgate-${res.json.data.account_id}` });
    await call('PATCH', path, { key, body: { role_arn: `arn:aws:iam::${AWS_ACCOUNT}:role/own` } });
    expect((await call('PATCH', path, { key, body: { connection_id: null } })).json.data).toMatchObject({ role_arn: `arn:aws:iam::${AWS_ACCOUNT}:role/own` });
  });

  it('refuses a connection of another account, another AWS account or another customer, and AWS keys', async () => {
    const { key } = await createAccount(call);
    const stranger = await createAccount(call);
    const theirs = await connect(stranger.key);
    const elsewhere = await connect(key, { aws_account_id: OTHER_AWS_ACCOUNT });
    const customers = await connect(key, { aws_account_id: AWS_ACCOUNT, customer: 'cus_3' });
    const mine = await connect(key);
    const cases: Array<[Record<string, unknown>, string]> = [
      [topicDestination(theirs.id), 'connection_id must name one of the account’s AWS connections'],
      [topicDestination(elsewhere.id), `connection_id is for AWS account ${OTHER_AWS_ACCOUNT}; the target is in account ${AWS_ACCOUNT}`],
      [topicDestination(customers.id), "connection_id belongs to customer cus_3; the destination is not that customer's"],
      [topicDestination(customers.id, { customer: 'cus_4' }), "connection_id belongs to customer cus_3; the destination is not that customer's"],
      [topicDestination(mine.id, { role_arn: `arn:aws:iam::${AWS_ACCOUNT}:role/r` }), 'connection_id and role_arn cannot both be given: a connection names its role'],
      [{ name: 'h', url: 'https://a.example.com/', connection_id: mine.id }, 'connection_id is only for AWS destination types'],
      [topicDestination('not-a-uuid'), 'connection_id must be the id of an AWS connection'],
      [{ ...topicDestination(mine.id), config: { topic_arn: TOPIC, secret_access_key: 'x' } }, SECRET_MESSAGE],
      [{ ...topicDestination(mine.id), aws_access_key_id: 'AKIA' }, SECRET_MESSAGE],
    ];
    for (const [body, error] of cases) {
      const res = await call('POST', '/v1/destinations', { key, body });
      expect({ status: res.status, body: res.json }, JSON.stringify(body)).toEqual({ status: 400, body: { error, duration_ms: expect.any(Number) } });
    }
    expect((await call('POST', '/v1/destinations', { key, body: topicDestination(customers.id, { customer: 'cus_3' }) })).status).toBe(201);
    // A change that moves the target out of the connection's AWS account is refused too.
    const created = await call('POST', '/v1/destinations', { key, body: topicDestination(mine.id) });
    const moved = await call('PATCH', `/v1/destinations/${created.json.data.id}`, { key, body: { config: { topic_arn: `arn:aws:sns:eu-west-1:${OTHER_AWS_ACCOUNT}:t` } } });
    expect(moved.json.error).toBe(`connection_id is for AWS account ${AWS_ACCOUNT}; the target is in account ${OTHER_AWS_ACCOUNT}`);
  });

  it('is not deleted while a destination uses it', async () => {
    const { key } = await createAccount(call);
    const connection = await connect(key);
    const destination = (await call('POST', '/v1/destinations', { key, body: topicDestination(connection.id) })).json.data;
    const refused = await call('DELETE', `/v1/aws-connections/${connection.id}`, { key });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toBe(`the AWS connection is used by destinations: ${destination.id}; delete them or change their connection_id first`);
    expect((await call('DELETE', `/v1/destinations/${destination.id}`, { key })).status).toBe(204);
    expect((await call('DELETE', `/v1/aws-connections/${connection.id}`, { key })).status).toBe(204);
    expect((await call('GET', `/v1/aws-connections/${connection.id}`, { key })).status).toBe(404);
  });
});

describe('with STS mocked', () => {
  it('verify assumes the role with the connection’s external id and keeps the result', async () => {
    const sts = mockClient(STSClient);
    try {
      const { key } = await createAccount(call);
      const connection = await connect(key);
      sts.on(AssumeRoleCommand).rejectsOnce(Object.assign(new Error('User is not authorized to perform: sts:AssumeRole'), { name: 'AccessDenied' }));
      const failed = await call('POST', `/v1/aws-connections/${connection.id}/verify`, { key });
      expect(failed.json.data).toEqual({ status: 'failed', error: 'AccessDenied: User is not authorized to perform: sts:AssumeRole', checked_at: expect.any(String) });
      expect((await call('GET', `/v1/aws-connections/${connection.id}`, { key })).json.data).toMatchObject({ status: 'failed', error: expect.stringMatching(/^AccessDenied/) });

      sts.on(AssumeRoleCommand).resolves({ Credentials: { AccessKeyId: 'ASSUMED', SecretAccessKey: 'x', SessionToken: 't', Expiration: new Date(Date.now() + 3_600_000) } });
      const verified = await call('POST', `/v1/aws-connections/${connection.id}/verify`, { key });
      expect(verified.json.data).toEqual({ status: 'verified', error: null, checked_at: expect.any(String) });
      expect((await call('GET', `/v1/aws-connections/${connection.id}`, { key })).json.data).toMatchObject({ status: 'verified', error: null, checked_at: verified.json.data.checked_at });
      for (const { args } of sts.commandCalls(AssumeRoleCommand)) {
        expect(args[0].input).toMatchObject({ RoleArn: connection.role_arn, ExternalId: connection.external_id });
      }
      expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(2);
    } finally {
      sts.restore();
    }
  });

  it('a delivery through a connection assumes its role with its external id', async () => {
    const sts = mockClient(STSClient);
    try {
      sts.on(AssumeRoleCommand).resolves({ Credentials: { AccessKeyId: 'ASSUMED', SecretAccessKey: 'x', SessionToken: 't', Expiration: new Date(Date.now() + 3_600_000) } });
      const { key } = await createAccount(call);
      const { QueueUrl: queueUrl } = await sqsClient().send(new CreateQueueCommand({ QueueName: 'through-connection' }));
      const queueAccount = new URL(queueUrl!).pathname.split('/')[1]!;
      const connection = await connect(key, { aws_account_id: queueAccount });
      const destination = await call('POST', '/v1/destinations', { key, body: { name: 'q', type: 'aws_sqs', config: { queue_url: queueUrl }, connection_id: connection.id } });
      expect(destination.status, destination.text).toBe(201);
      await addRoute(call, key, { destination_id: destination.json.data.id, event_type_pattern: 'order.connected' });
      await call('POST', '/v1/outbound-events', { key, body: { payload: '{"via":"connection"}', event_type: 'order.connected' } });
      const received = await eventually(
        () => sqsClient().send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 0 })),
        (out) => (out.Messages?.length ?? 0) > 0,
      );
      expect(received.Messages?.[0]?.Body).toBe('{"via":"connection"}');
      expect(sts.commandCalls(AssumeRoleCommand).map((c) => c.args[0].input)).toEqual([
        { RoleArn: connection.role_arn, RoleSessionName: 'hookgate-delivery', ExternalId: connection.external_id, DurationSeconds: 3600 },
      ]);
    } finally {
      sts.restore();
    }
  });
});
