import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bootGateway, DELIVERY_TEST_ENV } from '../fixtures/gateway';

/**
 * The Python client (clients/python) runs its own `python3 -m unittest` suite against a real local
 * gateway: the gateway lives in this process, so the child runs asynchronously while it serves, and
 * the Python tests deliver to a sink of their own. A skipped Python test counts as a failure here,
 * because the client tests skip themselves when they are not given a gateway.
 */
let env: Awaited<ReturnType<typeof bootGateway>>;

beforeAll(async () => {
  env = await bootGateway(DELIVERY_TEST_ENV);
});
afterAll(() => env?.stop());

function unittest(gatewayUrl: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-m', 'unittest', '-v'], {
      cwd: fileURLToPath(new URL('../../clients/python/', import.meta.url)),
      env: { ...process.env, HOOKGATE_URL: gatewayUrl, PYTHONDONTWRITEBYTECODE: '1' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

it('passes its python3 -m unittest suite against the gateway, nothing skipped', async () => {
  const { code, output } = await unittest(env.gateway.url);
  expect(output, output).toMatch(/^OK$/m);
  expect(output, output).not.toMatch(/skipped/);
  expect(Number(/^Ran (\d+) tests?/m.exec(output)?.[1]), output).toBeGreaterThanOrEqual(10);
  expect(code, output).toBe(0);
});
