import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ServiceTemplate } from '../../local/iam/roles';
import { bootGateway } from '../fixtures/gateway';
import { createAccount, typedClient } from '../fixtures/http-client';

// The local runtime authorises every AWS call a function makes against that function's role in the
// synthesised stack. Here the deployed template loses one grant: the ingest function's
// dynamodb:PutItem. Ingest can then store nothing, while the api function, whose role keeps its own
// PutItem, works as before. And the deliver function's kms:Decrypt: the api function still seals a
// new Ed25519 key (kms:Encrypt is its own grant), and no try can sign with it.

/** Removes `action` from every statement of the policies attached to the role of the function whose service name is `functionName`. */
function dropGrant(functionName: string, action: string) {
  return (template: ServiceTemplate) => {
    const resources = Object.entries(template.Resources);
    const fn = resources.find(([, r]) => r.Type === 'AWS::Lambda::Function' && JSON.stringify(r.Properties?.Environment).includes(`"${functionName}"`));
    const roleId = (fn?.[1].Properties?.Role as { 'Fn::GetAtt': [string] } | undefined)?.['Fn::GetAtt'][0];
    if (!roleId) throw new Error(`no function ${functionName} in the template`);
    let dropped = 0;
    for (const [, policy] of resources.filter(([, r]) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties?.Roles).includes(`"${roleId}"`))) {
      for (const statement of (policy.Properties?.PolicyDocument as { Statement: { Action: string | string[] }[] }).Statement) {
        const actions = [statement.Action].flat();
        if (actions.includes(action)) {
          statement.Action = actions.filter((a) => a !== action);
          dropped += 1;
        }
      }
    }
    if (dropped === 0) throw new Error(`${functionName}'s role has no ${action} to drop`);
  };
}

let env: Awaited<ReturnType<typeof bootGateway>>;
const failures: string[] = [];

beforeAll(async () => {
  // The gateway logs a handler's failure; this test reads why it failed.
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void failures.push(args.map(String).join(' ')));
  const dropGrants = [dropGrant('hookgate-ingest', 'dynamodb:PutItem'), dropGrant('hookgate-deliver', 'kms:Decrypt')];
  env = await bootGateway({ HOOKGATE_ALLOW_PRIVATE_DESTINATIONS: 'true' }, { stack: { editServiceTemplate: (template) => dropGrants.forEach((drop) => drop(template)) } });
});
afterAll(() => env?.stop());

describe('IAM, enforced locally', () => {
  it('a grant dropped from the stack fails the call it served, as AccessDenied; other functions keep theirs', async () => {
    const { key } = await createAccount(env.call);
    const source = await env.call('POST', '/v1/sources', { key, body: { name: 'orders' } });
    expect(source.status, source.text).toBe(201);

    const ingested = await env.call('POST', `/ingest/${source.json.data.path_token}`, { body: { id: 'evt_1' } });
    expect(ingested.status).toBe(500);
    expect(failures.join('\n')).toMatch(/AccessDeniedException: User: arn:aws:sts::\d+:assumed-role\/hookgate-local-ingest\/hookgate-ingest is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:/);
    // Nothing was accepted, so nothing is listed.
    const events = await env.call('GET', '/v1/events', { key });
    expect(events.status).toBe(200);
    expect(events.json.data).toEqual([]);
  });

  it('without kms:Decrypt the deliver function cannot open a signing key: its try fails as AccessDenied', async () => {
    const { key } = await createAccount(env.call);
    const hookgate = typedClient(env.call, key);
    // The api function makes and seals the account's key pair with its own kms:Encrypt.
    const destination = await hookgate.destinations.create({ name: 'ed', url: 'http://127.0.0.1:9/never', signature_scheme: 'ed25519' });
    await hookgate.routes.create({ destination_id: destination.id, event_type_pattern: 'ed.*' });
    await hookgate.outboundEvents.publish({ payload: '{}', event_type: 'ed.one' });
    await vi.waitFor(() => {
      expect(failures.join('\n')).toMatch(/AccessDeniedException: User: arn:aws:sts::\d+:assumed-role\/hookgate-local-deliver\/hookgate-deliver is not authorized to perform: kms:Decrypt on resource: arn:aws:kms:/);
    }, { timeout: 20_000, interval: 100 });
  });
});
