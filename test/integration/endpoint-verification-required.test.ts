import { describe, expect, it } from 'vitest';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { accountWithSource } from '../fixtures/setup';

// A deployment made with -c requireEndpointVerification=true (HOOKGATE_REQUIRE_ENDPOINT_VERIFICATION
// on the api function): the account's own http destinations prove their endpoints too.

const { call, sink } = gatewayWithSinkForFile({ HOOKGATE_REQUIRE_ENDPOINT_VERIFICATION: 'true' });

describe('where the deployment requires endpoint verification', () => {
  it('the account’s own http destination waits for its proof, cannot decline it, and an AWS one has none to give', async () => {
    const { key } = await accountWithSource(call);
    const own = await call('POST', '/v1/destinations', { key, body: { name: 'own', url: `${sink.url}/required` } });
    expect(own.status).toBe(201);
    expect(own.json.data).toMatchObject({ status: 'pending_verification', verify_ownership: true });
    await sink.waitForPath('/required', 1);

    const declined = await call('POST', '/v1/destinations', { key, body: { name: 'declined', url: `${sink.url}/declined`, verify_ownership: false } });
    expect(declined.status).toBe(400);
    expect(declined.json.error).toBe('verify_ownership cannot be false: this deployment requires every endpoint to prove its ownership');
    const turnedOff = await call('PATCH', `/v1/destinations/${own.json.data.id}`, { key, body: { verify_ownership: false } });
    expect(turnedOff.status).toBe(400);

    const queue = await call('POST', '/v1/destinations', { key, body: { name: 'q', type: 'aws_sqs', config: { queue_url: 'https://sqs.eu-west-1.amazonaws.com/123456789012/q' } } });
    expect(queue.json.data).toMatchObject({ status: 'active', verify_ownership: false });
  });
});
