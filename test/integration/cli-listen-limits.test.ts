import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hookgate } from '../../clients/typescript/src/index';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { createAccount, typedClient } from '../fixtures/http-client';
import { eventually, startSink, type Sink } from '../fixtures/sink';

/**
 * `hookgate listen` under API Gateway's WebSocket limits, which the local listen server holds
 * connections to: 10 minutes idle and 2 hours in all in AWS, scaled here to 2 s and 10 s so that
 * `--keep-alive` (the CLI's default is 300 s) can be seen keeping a connection, or failing to.
 */
const LIMITS = { idleTimeoutMs: 2000, maxConnectionMs: 10_000 };
const root = fileURLToPath(new URL('../../', import.meta.url));
const { call } = gatewayWithSinkForFile({}, { listenLimits: LIMITS });

let home: string;
let key: string;
let hookgate: Hookgate;
let local: Sink;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'hookgate-listen-limits-'));
  ({ key } = await createAccount(call, { name: 'Listen limits' }));
  hookgate = typedClient(call, key);
  local = await startSink((_request, res) => res.writeHead(204).end());
});
afterAll(async () => {
  await local?.close();
  await rm(home, { recursive: true, force: true });
});

/**
 * `hookgate listen` in a child process, for the events of one type, until the test signals it. The
 * session is kept in `dir`'s config: another directory is another session.
 */
function listen(eventType: string, keepAliveSeconds: number | string, dir = home) {
  const { HOOKGATE_URL: _u, HOOKGATE_API_KEY: _k, ...rest } = process.env;
  const args = ['listen', local.url, '--events', eventType, '--keep-alive', String(keepAliveSeconds), '--json'];
  const child = spawn(process.execPath, [join(root, 'bin/hookgate.mjs'), ...args], {
    env: { ...rest, HOME: dir, XDG_CONFIG_HOME: join(dir, 'xdg'), HOOKGATE_URL: hookgate.baseUrl, HOOKGATE_API_KEY: key },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const count = (text: string) => stderr.split(text).length - 1;
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    /** Resolves when the CLI has said `text` `times` times in all, with the moment it noticed. */
    said: (text: string, times = 1, timeoutMs = 30_000) => eventually(async () => count(text), (n) => n >= times, timeoutMs).then(() => Date.now()),
    stop: async () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}

/** Publishes one event of `eventType` and waits until the local server got it through the CLI. */
async function deliveredThrough(cli: ReturnType<typeof listen>, eventType: string) {
  const published = await hookgate.outboundEvents.publish({ event_type: eventType, payload: { at: Date.now() } });
  await eventually(async () => cli.stdout(), (text) => text.includes(published.id), 30_000);
  // The CLI prints the request when it gets it; the attempt is recorded once its answer is back. A
  // try the idle timeout cut (a slow machine reaching it mid-try) fails and is retried: the state
  // waited for is a successful try, not the first one recorded.
  const detail = await eventually(() => hookgate.outboundEvents.get(published.id), (d) => d.attempts.some((a) => a.outcome === 'success'), 30_000);
  expect(detail.attempts.find((a) => a.outcome === 'success')).toMatchObject({ outcome: 'success', response_status: 204 });
}

describe('hookgate listen under API Gateway’s WebSocket limits', () => {
  it('--keep-alive must be able to keep a connection: a wait of 600 s or more (API Gateway’s idle timeout), or none, is a usage error', async () => {
    for (const seconds of ['600', '0', 'often']) {
      const cli = listen('limits.usage', seconds);
      expect(await cli.exited).toBe(2);
      expect(cli.stderr()).toContain('--keep-alive must be a number of seconds from 0.1 to under 600 (API Gateway closes a connection idle for 600)');
    }
  });

  it('a keep-alive inside the idle timeout keeps an idle connection open, and deliveries reach it', async () => {
    const cli = listen('limits.kept', 0.4);
    await cli.said('Connected');
    // The positive sign that the idle timeout has passed, twice: a CLI connected later, sending no
    // keep-alive, has been closed twice by it.
    const control = listen('limits.kept.control', 30, join(home, 'control'));
    await control.said('disconnected; trying again in 0.5 s', 2);
    expect(await control.stop()).toBe(0);
    expect(cli.stderr()).not.toContain('disconnected');
    await deliveredThrough(cli, 'limits.kept');
    expect(await cli.stop()).toBe(0);
  }, 60_000);

  it('a keep-alive slower than the idle timeout loses the connection, and the CLI reconnects by itself', async () => {
    const cli = listen('limits.idle', 30);
    const connectedAt = await cli.said('Connected');
    const closedAt = await cli.said('disconnected; trying again in 0.5 s');
    expect(closedAt - connectedAt).toBeLessThan(LIMITS.maxConnectionMs);
    await cli.said('Connected', 2);
    await deliveredThrough(cli, 'limits.idle');
    expect(await cli.stop()).toBe(0);
  }, 60_000);

  it('the connection limit closes even a kept-alive connection; the CLI reconnects at once and deliveries go on', async () => {
    const cli = listen('limits.lifetime', 0.4);
    const connectedAt = await cli.said('Connected');
    const closedAt = await cli.said('disconnected; trying again in 0.5 s');
    expect(closedAt - connectedAt).toBeGreaterThanOrEqual(LIMITS.maxConnectionMs - 1000);
    await cli.said('Connected', 2, 10_000);
    await deliveredThrough(cli, 'limits.lifetime');
    expect(await cli.stop()).toBe(0);
  }, 60_000);
});
