import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHILD_START_TIMEOUT_MS, startChildGateway } from '../fixtures/child-gateway';
import { httpClient } from '../fixtures/http-client';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * `npm start`'s gateway under a parent that never reaps its children (as a container's PID 1 that is
 * no init): the shell starts the gateway, prints its pid, then becomes `sleep`, which never waits.
 * A SIGKILL then leaves the gateway a zombie, whose pid still answers `kill -0`.
 */
async function gatewayUnderNonReapingParent(dataDir: string) {
  const command = `"${process.execPath}" --import tsx bin/local.ts & echo "gateway pid $!"; exec sleep 600`;
  const parent = spawn('sh', ['-c', command], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOOKGATE_LOG_LEVEL: 'warn', HOOKGATE_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  parent.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const pid = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${output}`)), CHILD_START_TIMEOUT_MS);
    parent.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const started = /gateway pid (\d+)[\s\S]*listening on http/.exec(output);
      if (started?.[1]) {
        clearTimeout(timer);
        resolve(Number(started[1]));
      }
    });
  });
  return { pid, parent };
}

const procState = async (pid: number) => (await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')).replace(/^.*\) /s, '').charAt(0);

describe.skipIf(process.platform !== 'linux')('a restart right after kill -9', () => {
  it('starts on the same data dir although the dead gateway is an unreaped zombie', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'hookgate-zombie-'));
    const { pid, parent } = await gatewayUnderNonReapingParent(dataDir);
    let restarted: Awaited<ReturnType<typeof startChildGateway>> | undefined;
    try {
      process.kill(pid, 'SIGKILL');
      await expect.poll(() => procState(pid), { timeout: 10_000 }).toBe('Z');
      expect(() => process.kill(pid, 0)).not.toThrow(); // what the old check took for a running gateway

      restarted = await startChildGateway({ HOOKGATE_DATA_DIR: dataDir });
      expect((await httpClient(restarted.url)('GET', '/healthz')).status).toBe(200);
      expect(restarted.output()).not.toContain('in use by another Hookgate gateway');
    } finally {
      await restarted?.kill('SIGTERM');
      parent.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 2 * CHILD_START_TIMEOUT_MS + 30_000);
});
