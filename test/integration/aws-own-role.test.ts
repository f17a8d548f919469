import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { sqsClient } from '../../lambdas/adapters/aws-clients';
import { updateDestination } from '../../lambdas/destinations/record';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { createAccount } from '../fixtures/http-client';
import { openPortalSession } from '../fixtures/portal';
import { addRoute } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';

// The deliver role's own grants (context awsDestinationTargets) are the deployment's, not a tenant's:
// on a gateway whose operator lists no account (HOOKGATE_OWN_ROLE_ACCOUNTS empty; the local runtime
// otherwise lists every one), an AWS destination without a role is refused at create, and a stored
// one is never sent with that role.

const { call } = gatewayWithSinkForFile({ HOOKGATE_OWN_ROLE_ACCOUNTS: '' });

const REFUSAL = 'connection_id or role_arn is required: this deployment delivers with its own role only for the accounts its operator lists (awsOwnRoleAccounts)';

describe('AWS destinations of accounts the operator did not list', () => {
  it('need a role or a connection: without one they are refused, at create and on a change that drops it', async () => {
    const { key } = await createAccount(call);
    const { QueueUrl: queueUrl } = await sqsClient().send(new CreateQueueCommand({ QueueName: 'own-role-refused' }));
    const bare = await call('POST', '/v1/destinations', { key, body: { name: 'q', type: 'aws_sqs', config: { queue_url: queueUrl } } });
    expect({ status: bare.status, body: bare.json }).toEqual({ status: 400, body: { error: REFUSAL, duration_ms: expect.any(Number) } });

    const queueAccount = new URL(queueUrl!).pathname.split('/')[1]!;
    const withRole = await call('POST', '/v1/destinations', { key, body: { name: 'q', type: 'aws_sqs', config: { queue_url: queueUrl }, role_arn: `arn:aws:iam::${queueAccount}:role/consumer` } });
    expect(withRole.status, withRole.text).toBe(201);
    const dropped = await call('PATCH', `/v1/destinations/${withRole.json.data.id}`, { key, body: { role_arn: null } });
    expect(dropped.json.error).toBe(REFUSAL);
  });

  it('one stored without a role (made before the operator’s list) fails its tries, blocked, before any AWS call', async () => {
    const { key } = await createAccount(call);
    const { QueueUrl: queueUrl } = await sqsClient().send(new CreateQueueCommand({ QueueName: 'own-role-stored' }));
    const queueAccount = new URL(queueUrl!).pathname.split('/')[1]!;
    const made = await call('POST', '/v1/destinations', { key, body: { name: 'q', type: 'aws_sqs', config: { queue_url: queueUrl }, role_arn: `arn:aws:iam::${queueAccount}:role/consumer` } });
    expect(made.status, made.text).toBe(201);
    await updateDestination(made.json.data.account_id, made.json.data.id, { role_arn: null });
    await addRoute(call, key, { destination_id: made.json.data.id, event_type_pattern: 'order.own' });
    const sent = await call('POST', '/v1/outbound-events', { key, body: { payload: '{"own":true}', event_type: 'order.own' } });
    const detail = await eventually(
      async () => (await call('GET', `/v1/outbound-events/${sent.json.data.id}`, { key })).json.data,
      (d) => d.attempts.length >= 1,
      15_000,
    );
    expect(detail.attempts[0]).toMatchObject({ outcome: 'blocked', response_status: null, error: REFUSAL });
    // It can still be paused and renamed (what an operator does first), just not re-pointed without a role.
    const paused = await call('PATCH', `/v1/destinations/${made.json.data.id}`, { key, body: { active: false, name: 'old queue' } });
    expect(paused.status, paused.text).toBe(200);
    expect((await call('PATCH', `/v1/destinations/${made.json.data.id}`, { key, body: { config: { queue_url: `${queueUrl}-2` } } })).json.error).toBe(REFUSAL);
  });

  it('a portal customer is told in its own words: its AWS endpoint needs one of its connections', async () => {
    const { key } = await createAccount(call);
    const { secret } = await openPortalSession(call, key, 'cus_own');
    const { QueueUrl: queueUrl } = await sqsClient().send(new CreateQueueCommand({ QueueName: 'own-role-portal' }));
    const res = await call('POST', '/v1/portal/endpoints', { key: undefined, headers: { authorization: `Bearer ${secret}` }, body: { type: 'aws_sqs', config: { queue_url: queueUrl } } });
    expect({ status: res.status, error: res.json.error }).toEqual({ status: 400, error: 'connection_id is required: an AWS endpoint delivers through one of your AWS connections' });
  });
});
