import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listApiKeys } from '../../lambdas/accounts/api-key-record';
import { runCli, type CliRun } from '../fixtures/cli-run';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { createAccount, typedClient } from '../fixtures/http-client';

/**
 * `hookgate smoke` as an operator runs it after a deploy: `bin/hookgate.mjs smoke --url …` in a child
 * process against a real local gateway (what `npm start` runs), its deliver function, listen
 * WebSocket server, export worker and erasure included.
 */
const { call } = gatewayWithSinkForFile();

let home: string;
let url: string;

const smoke = (args: readonly string[]) => runCli(['smoke', '--url', url, ...args], home);
const steps = (run: CliRun) => run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { step: string; ok: boolean; ms: number; detail: string });

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'hookgate-smoke-home-'));
  url = typedClient(call).baseUrl;
});
afterAll(() => rm(home, { recursive: true, force: true }));

describe('hookgate smoke', () => {
  it("with --key: every step of the walk-through passes in that account, each printed with its time, and what it made is gone after it", async () => {
    const { key } = await createAccount(call, { name: 'Operator' });
    const hookgate = typedClient(call, key);

    const run = await smoke(['--key', key, '--json']);

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const printed = steps(run);
    expect(printed.map((step) => step.step)).toEqual(['account', 'source', 'listen', 'ingest', 'delivery', 'replay', 'export', 'erasure', 'cleanup']);
    for (const step of printed) {
      expect(step.ok).toBe(true);
      expect(step.ms).toBeGreaterThanOrEqual(0);
    }
    // What the steps say happened, the gateway holds: two events delivered to the listen destination, then erased.
    const events = (await hookgate.events.list()).data;
    expect(events).toHaveLength(2);
    for (const { id } of events) {
      const { event, attempts } = await hookgate.events.get(id);
      expect(event.payload_erased).toBe(true);
      expect(attempts.filter((attempt) => attempt.outcome === 'success')).toHaveLength(1);
    }
    expect((await hookgate.exports.list()).map((job) => job.status)).toEqual(['ready']);
    // Removed: the source, and the listen session's destination and route.
    expect(await hookgate.sources.list()).toEqual([]);
    expect(await hookgate.destinations.list()).toEqual([]);
    expect(await hookgate.routes.list()).toEqual([]);
    // The key given stays usable: the smoke revokes only a key it made.
    expect((await hookgate.account.get()).name).toBe('Operator');
  }, 120_000);

  it('without --key: it creates an account, runs in it, and revokes its key at the end, saying the account stays', async () => {
    const run = await smoke([]);

    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines.map((line) => line.split(/\s+/)[1])).toEqual(['account', 'source', 'listen', 'ingest', 'delivery', 'replay', 'export', 'erasure', 'cleanup']);
    for (const line of lines) expect(line).toMatch(/^ok {2}\S+ +\d+ ms {2}/);
    const accountId = /created account (\S+)/.exec(lines[0] ?? '')?.[1];
    expect(lines.at(-1)).toContain(`the account's API key; account ${accountId} stays`);
    // The account has no key left: nothing can use it.
    expect(await listApiKeys(accountId ?? '')).toEqual([]);
  }, 120_000);

  it('a key the gateway refuses fails at the account step, exit 3, having made nothing', async () => {
    const run = await smoke(['--key', 'hk_not_a_key']);

    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^hookgate: smoke failed at account after \d+ ms: the API refused the key given with --key \(401 /);
  }, 60_000);

  it('a --timeout a timer cannot count, or none, is a usage error (exit 2)', async () => {
    for (const timeout of ['0', '3601', 'soon']) {
      const run = await smoke(['--timeout', timeout]);
      expect(run.code, timeout).toBe(2);
      expect(run.stderr).toBe('hookgate: --timeout must be a number of seconds from 1 to 3600\n');
    }
  }, 60_000);
});
