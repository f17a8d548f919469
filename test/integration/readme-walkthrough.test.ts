import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bootGateway } from '../fixtures/gateway';

let env: Awaited<ReturnType<typeof bootGateway>>;

beforeAll(async () => {
  env = await bootGateway();
});
afterAll(() => env?.stop());

function walkthroughScript(): string {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.split('<!-- walkthrough:start -->')[1]?.split('<!-- walkthrough:end -->')[0] ?? '';
  const script = /```bash\n([\s\S]*?)```/.exec(section)?.[1];
  if (!script) throw new Error('README has no walk-through block');
  return script;
}

// Asynchronous on purpose: the gateway answers from this same process.
const run = promisify(execFile);

it('the README walk-through works as written against the local gateway', async () => {
  const result = await run('bash', ['-euo', 'pipefail', '-c', walkthroughScript()], {
    env: { ...process.env, BASE: env.gateway.url },
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(result.stderr).toBe('');
  const lines = result.stdout.trim().split('\n');
  expect(lines[1]).toMatch(new RegExp(`^${env.gateway.url}/ingest/[A-Za-z0-9_-]{43}$`));
  expect(lines[2]).toMatch(/^signing secret: whsec_/);
  const routes = JSON.parse(lines.at(-3) ?? '');
  expect(routes.data).toHaveLength(1);
  expect(routes.data[0]).toMatchObject({ event_type_pattern: 'payment.*', active: true });
  const accepted = JSON.parse(lines.at(-2) ?? '');
  expect(accepted.data).toEqual({ id: expect.any(String), status: 'queued' });
  const events = JSON.parse(lines.at(-1) ?? '');
  expect(events.data[0]).toMatchObject({ id: accepted.data.id, event_type: 'payment.succeeded', direction: 'inbound' });
});
