import { CreateQueueCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { sqsClient } from '../../lambdas/adapters/aws-clients';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { createAccount } from '../fixtures/http-client';
import { addEventTypes, openPortalSession } from '../fixtures/portal';
import { eventually } from '../fixtures/sink';

// AWS connections and AWS endpoints in the consumer portal (issue 25, item 2), through real HTTP: a
// customer connects its own AWS account and adds endpoints that deliver through that connection only.
// STS has no emulator: verify and the delivery's AssumeRole run against aws-sdk-client-mock.

const { call } = gatewayWithSinkForFile();

const AWS_ACCOUNT = '123456789012';
const TOPIC = `arn:aws:sns:eu-west-1:${AWS_ACCOUNT}:orders`;

/** An account with a catalog, and a portal session for `customer`: `as` calls the portal API with its secret. */
async function portalOf(customer = 'cus_1') {
  const { key } = await createAccount(call);
  await addEventTypes(call, key, 'order.paid');
  const { secret } = await openPortalSession(call, key, customer);
  const as = (method: string, path: string, body?: unknown) => call(method, path, { key: undefined, headers: { authorization: `Bearer ${secret}` }, body });
  return { key, as, secret };
}

async function connectIn(as: Awaited<ReturnType<typeof portalOf>>['as'], awsAccountId = AWS_ACCOUNT) {
  const res = await as('POST', '/v1/portal/aws-connections', { aws_account_id: awsAccountId });
  expect(res.status, res.text).toBe(201);
  return res.json.data;
}

const topicEndpoint = (connectionId: string | undefined) => ({ type: 'aws_sns', config: { topic_arn: TOPIC }, connection_id: connectionId, event_types: ['order.paid'] });

describe('AWS connections in the portal', () => {
  it('are the customer’s own: made for it, listed and shown to it alone, with a template the portal link fetches', async () => {
    const { key, as } = await portalOf('cus_1');
    const connection = await connectIn(as);
    expect(connection).toEqual({
      id: expect.any(String),
      aws_account_id: AWS_ACCOUNT,
      external_id: expect.stringMatching(/^hookgate-[A-Za-z0-9_-]{43}$/),
      role_name: expect.stringMatching(/^HookgateDelivery-[0-9a-f]{12}$/),
      role_arn: expect.stringMatching(new RegExp(`^arn:aws:iam::${AWS_ACCOUNT}:role/HookgateDelivery-`)),
      trust_policy: expect.objectContaining({ Statement: [expect.objectContaining({ Condition: expect.objectContaining({ StringEquals: { 'sts:ExternalId': connection.external_id } }) })] }),
      cloudformation_template_url: expect.stringMatching(new RegExp(`/v1/portal/aws-connections/${connection.id}/template$`)),
      status: 'unverified',
      error: null,
      checked_at: null,
      created_at: expect.any(String),
    });
    // The account sees it as its customer's.
    expect((await call('GET', `/v1/aws-connections/${connection.id}`, { key })).json.data.customer).toBe('cus_1');
    expect((await as('GET', '/v1/portal/aws-connections')).json.data).toEqual([connection]);
    expect((await as('GET', `/v1/portal/aws-connections/${connection.id}`)).json.data).toEqual(connection);
    const template = await as('GET', new URL(connection.cloudformation_template_url).pathname);
    expect(template.status).toBe(200);
    expect(template.json.data.Resources.HookgateDeliveryRole.Properties).toMatchObject({ RoleName: connection.role_name, AssumeRolePolicyDocument: connection.trust_policy });

    // Another customer of the same account, and the account's own connection, are unknown to it.
    const other = await openPortalSession(call, key, 'cus_2');
    const asOther = (method: string, path: string) => call(method, path, { key: undefined, headers: { authorization: `Bearer ${other.secret}` } });
    expect((await asOther('GET', '/v1/portal/aws-connections')).json.data).toEqual([]);
    for (const [method, path] of [
      ['GET', `/v1/portal/aws-connections/${connection.id}`],
      ['GET', `/v1/portal/aws-connections/${connection.id}/template`],
      ['POST', `/v1/portal/aws-connections/${connection.id}/verify`],
      ['DELETE', `/v1/portal/aws-connections/${connection.id}`],
    ] as const) {
      expect((await asOther(method, path)).status, `${method} ${path}`).toBe(404);
    }
    const accountOwn = (await call('POST', '/v1/aws-connections', { key, body: { aws_account_id: AWS_ACCOUNT } })).json.data;
    expect((await as('GET', `/v1/portal/aws-connections/${accountOwn.id}`)).status).toBe(404);
    expect((await as('GET', `/v1/portal/aws-connections/${accountOwn.id}/template`)).status).toBe(404);
    expect((await as('GET', '/v1/portal/aws-connections')).json.data.map((c: { id: string }) => c.id)).toEqual([connection.id]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no account', {}, 'aws_account_id is required'],
    ['a short account', { aws_account_id: '1234' }, 'aws_account_id must be a 12-digit AWS account id'],
    ['another customer', { aws_account_id: AWS_ACCOUNT, customer: 'cus_2' }, 'unknown field: customer'],
    ['AWS keys', { aws_account_id: AWS_ACCOUNT, secret_access_key: 'x' }, 'AWS access keys are never accepted: Hookgate assumes a role in your account instead (POST /v1/aws-connections, see docs/aws-destinations.md)'],
  ])('refuses %s', async (_, body, error) => {
    const { as } = await portalOf();
    const res = await as('POST', '/v1/portal/aws-connections', body);
    expect({ status: res.status, body: res.json }).toEqual({ status: 400, body: { error, duration_ms: expect.any(Number) } });
  });

  it('a customer has at most 20 (as many as its endpoints may be); another customer is not counted', async () => {
    const { key, as } = await portalOf('cus_many');
    for (let n = 0; n < 20; n++) await connectIn(as);
    const over = await as('POST', '/v1/portal/aws-connections', { aws_account_id: AWS_ACCOUNT });
    expect({ status: over.status, body: over.json }).toEqual({ status: 400, body: { error: 'customer cus_many has reached its limit of 20 AWS connections', duration_ms: expect.any(Number) } });
    expect((await call('POST', '/v1/aws-connections', { key, body: { aws_account_id: AWS_ACCOUNT, customer: 'cus_other' } })).status).toBe(201);
  });

  it('is deleted only once no endpoint uses it', async () => {
    const { as } = await portalOf();
    const connection = await connectIn(as);
    const endpoint = await as('POST', '/v1/portal/endpoints', topicEndpoint(connection.id));
    expect(endpoint.status, endpoint.text).toBe(201);
    const refused = await as('DELETE', `/v1/portal/aws-connections/${connection.id}`);
    expect(refused.json.error).toBe(`the AWS connection is used by destinations: ${endpoint.json.data.id}; delete them or change their connection_id first`);
    expect((await as('DELETE', `/v1/portal/endpoints/${endpoint.json.data.id}`)).status).toBe(204);
    expect((await as('DELETE', `/v1/portal/aws-connections/${connection.id}`)).status).toBe(204);
    expect((await as('GET', '/v1/portal/aws-connections')).json.data).toEqual([]);
  });
});

describe('AWS endpoints in the portal', () => {
  it('an AWS endpoint goes through one of the customer’s own connections, never Hookgate’s role or another’s connection', async () => {
    const { key, as } = await portalOf('cus_1');
    const mine = await connectIn(as);
    const accountOwn = (await call('POST', '/v1/aws-connections', { key, body: { aws_account_id: AWS_ACCOUNT } })).json.data;
    const othersPortal = await openPortalSession(call, key, 'cus_2');
    const theirs = (await call('POST', '/v1/portal/aws-connections', { key: undefined, headers: { authorization: `Bearer ${othersPortal.secret}` }, body: { aws_account_id: AWS_ACCOUNT } })).json.data;
    const cases: Array<[Record<string, unknown>, string]> = [
      [topicEndpoint(undefined), 'connection_id is required: an AWS endpoint delivers through one of your AWS connections'],
      [topicEndpoint(accountOwn.id), 'connection_id must name one of your AWS connections'],
      [topicEndpoint(theirs.id), 'connection_id must name one of your AWS connections'],
      [{ ...topicEndpoint(mine.id), role_arn: `arn:aws:iam::${AWS_ACCOUNT}:role/any` }, 'unknown field: role_arn'],
      [{ ...topicEndpoint(mine.id), config: { topic_arn: `arn:aws:sns:eu-west-1:210987654321:t` } }, 'connection_id is for AWS account 123456789012; the target is in account 210987654321'],
      [{ ...topicEndpoint(mine.id), url: 'https://a.example.com/' }, 'url is only for http destinations; aws_sns takes config'],
      [{ type: 'aws_sqs', config: { topic_arn: TOPIC }, connection_id: mine.id }, 'config.queue_url is required for type aws_sqs'],
      [{ url: 'https://a.example.com/', connection_id: mine.id }, 'connection_id is only for AWS destination types'],
    ];
    for (const [body, error] of cases) {
      const res = await as('POST', '/v1/portal/endpoints', body);
      expect({ status: res.status, body: res.json }, JSON.stringify(body)).toEqual({ status: 400, body: { error, duration_ms: expect.any(Number) } });
    }

    const created = await as('POST', '/v1/portal/endpoints', topicEndpoint(mine.id));
    expect(created.status, created.text).toBe(201);
    expect(created.json.data).toMatchObject({ name: 'aws_sns', type: 'aws_sns', config: { topic_arn: TOPIC }, connection_id: mine.id, url: TOPIC, event_types: ['order.paid'] });
    expect(created.json.data).not.toHaveProperty('role_arn');
    // The account sees the connection's role and external id on it.
    const seen = (await call('GET', `/v1/destinations/${created.json.data.id}`, { key })).json.data;
    expect(seen).toMatchObject({ customer: 'cus_1', connection_id: mine.id, role_arn: mine.role_arn, external_id: mine.external_id });

    // A change keeps to the customer's connections too; dropping the connection is refused.
    const path = `/v1/portal/endpoints/${created.json.data.id}`;
    expect((await as('PATCH', path, { connection_id: null })).json.error).toBe('connection_id is required: an AWS endpoint delivers through one of your AWS connections');
    expect((await as('PATCH', path, { connection_id: theirs.id })).json.error).toBe('connection_id must name one of your AWS connections');
    const moved = await as('PATCH', path, { config: { topic_arn: `${TOPIC}-2` } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.json.data).toMatchObject({ config: { topic_arn: `${TOPIC}-2` }, url: `${TOPIC}-2`, connection_id: mine.id });
    // The template grants the endpoint's new target.
    const template = (await as('GET', `/v1/portal/aws-connections/${mine.id}/template`)).json.data;
    expect(template.Resources.HookgateDeliveryRole.Properties.Policies[0].PolicyDocument.Statement).toEqual([
      { Effect: 'Allow', Action: 'sns:Publish', Resource: [`${TOPIC}-2`] },
      { 'Fn::If': ['HasKmsKey', expect.objectContaining({ Resource: { Ref: 'KmsKeyArn' } }), { Ref: 'AWS::NoValue' }] },
    ]);
  });

  it('an endpoint the account gave its customer without a connection can still be renamed and paused there', async () => {
    const { key, as } = await portalOf('cus_1');
    const made = await call('POST', '/v1/destinations', { key, body: { name: 'given', type: 'aws_sns', config: { topic_arn: TOPIC }, role_arn: `arn:aws:iam::${AWS_ACCOUNT}:role/r`, customer: 'cus_1' } });
    expect(made.status, made.text).toBe(201);
    const paused = await as('PATCH', `/v1/portal/endpoints/${made.json.data.id}`, { name: 'renamed', active: false });
    expect(paused.status, paused.text).toBe(200);
    expect(paused.json.data).toMatchObject({ name: 'renamed', active: false, connection_id: null });
    expect((await as('PATCH', `/v1/portal/endpoints/${made.json.data.id}`, { config: { topic_arn: `${TOPIC}-3` } })).json.error).toBe(
      'connection_id is required: an AWS endpoint delivers through one of your AWS connections',
    );
  });

  it('verify and delivery assume the customer’s role with its connection’s external id; the event lands in its queue', async () => {
    const sts = mockClient(STSClient);
    try {
      sts.on(AssumeRoleCommand).resolves({ Credentials: { AccessKeyId: 'ASSUMED', SecretAccessKey: 'x', SessionToken: 't', Expiration: new Date(Date.now() + 3_600_000) } });
      const { key, as } = await portalOf('cus_q');
      const { QueueUrl: queueUrl } = await sqsClient().send(new CreateQueueCommand({ QueueName: 'portal-connection' }));
      const connection = await connectIn(as, new URL(queueUrl!).pathname.split('/')[1]!);
      const verified = await as('POST', `/v1/portal/aws-connections/${connection.id}/verify`);
      expect(verified.json.data).toEqual({ status: 'verified', error: null, checked_at: expect.any(String) });
      expect((await as('GET', '/v1/portal/aws-connections')).json.data[0]).toMatchObject({ status: 'verified', checked_at: verified.json.data.checked_at });

      const endpoint = await as('POST', '/v1/portal/endpoints', { type: 'aws_sqs', config: { queue_url: queueUrl }, connection_id: connection.id, event_types: ['order.paid'] });
      expect(endpoint.status, endpoint.text).toBe(201);
      const sent = await call('POST', '/v1/outbound-events', { key, body: { payload: '{"for":"cus_q"}', event_type: 'order.paid', customer: 'cus_q' } });
      expect(sent.status, sent.text).toBe(201);
      const received = await eventually(
        () => sqsClient().send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 0, MessageAttributeNames: ['All'] })),
        (out) => (out.Messages?.length ?? 0) > 0,
      );
      expect(received.Messages?.[0]?.Body).toBe('{"for":"cus_q"}');
      expect(received.Messages?.[0]?.MessageAttributes?.['x-hookgate-event-id']?.StringValue).toBe(sent.json.data.id);
      const assumed = sts.commandCalls(AssumeRoleCommand).map((c) => c.args[0].input);
      expect(assumed.length).toBeGreaterThanOrEqual(2);
      for (const input of assumed) expect(input).toMatchObject({ RoleArn: connection.role_arn, ExternalId: connection.external_id });
    } finally {
      sts.restore();
    }
  });
});
