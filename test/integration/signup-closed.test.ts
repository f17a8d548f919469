import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../lambdas/shared/resource-definitions';
import { bootGateway } from '../fixtures/gateway';
import type { Call } from '../fixtures/http-client';

// A self-hosted deployment with open sign-up closed (CDK context signup=closed sets the same
// variable): the endpoint is refused and the operator's script makes accounts instead.

const run = promisify(execFile);
let env: Awaited<ReturnType<typeof bootGateway>>;
let call: Call;

beforeAll(async () => {
  env = await bootGateway({ [ENV.signup]: 'closed' });
  call = env.call;
});
afterAll(async () => env?.stop());

const createAccountScript = (args: string[], environment: NodeJS.ProcessEnv = process.env) =>
  run('npx', ['tsx', 'scripts/create-account.ts', ...args], {
    env: { ...environment, [ENV.tableName]: env.gateway.resources.tableName, AWS_ENDPOINT_URL_DYNAMODB: env.gateway.endpoints.dynamodb },
  });

describe('closed sign-up', () => {
  it('POST /v1/accounts answers 403 and creates nothing', async () => {
    const res = await call('POST', '/v1/accounts', { body: { name: 'Walk-in' } });
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ error: 'sign-up is closed on this deployment: an operator creates accounts', duration_ms: expect.any(Number) });
  });

  it('the operator’s script creates an account whose key works over HTTP', async () => {
    const { stdout } = await createAccountScript(['--name', 'Acme', '--plan', 'pro']);
    const created = JSON.parse(stdout) as { account: { id: string; plan: string; retention_days: number }; api_key: { key: string } };
    expect(created.account).toMatchObject({ plan: 'pro', retention_days: 30 });
    const me = await call('GET', '/v1/account', { key: created.api_key.key });
    expect(me.status).toBe(200);
    expect(me.json.data).toMatchObject({ id: created.account.id, name: 'Acme', plan: 'pro' });
  });

  it('the script says which variable names the region when the SDK finds none (an AWS CLI user may have only AWS_DEFAULT_REGION)', async () => {
    const { AWS_REGION: _region, AWS_PROFILE: _profile, ...rest } = process.env;
    await expect(
      createAccountScript(['--name', 'Acme'], { ...rest, AWS_DEFAULT_REGION: 'eu-west-1', AWS_CONFIG_FILE: '/nonexistent/hookgate-aws-config' }),
    ).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('no AWS region: set AWS_REGION') });
  });

  it('the script refuses what the API would, and says why', async () => {
    await expect(createAccountScript(['--plan', 'free', '--retention-days', '9'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('retention_days can only be set on the enterprise plan'),
    });
  });
});
