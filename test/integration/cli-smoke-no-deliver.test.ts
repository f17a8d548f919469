import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../fixtures/cli-run';
import { bootGateway } from '../fixtures/gateway';
import { createAccount, typedClient } from '../fixtures/http-client';
import { eventually } from '../fixtures/sink';

/**
 * `hookgate smoke` against a gateway whose deliver function does not run (deliveries wait in the
 * queue, as behind a deliver function that is stopped or throttled to zero): every step up to the
 * ingest passes, the delivery step fails within `--timeout` with what the gateway says of the event,
 * and what the smoke made is removed all the same.
 */
let booted: Awaited<ReturnType<typeof bootGateway>>;
let home: string;

beforeAll(async () => {
  booted = await bootGateway({}, { deliver: false });
  home = await mkdtemp(join(tmpdir(), 'hookgate-smoke-home-'));
});
afterAll(async () => {
  await booted?.stop();
  await rm(home, { recursive: true, force: true });
});

describe('hookgate smoke, deliver function stopped', () => {
  it('fails at the delivery step with exit 1, saying the event is queued with no try, after cleaning up', async () => {
    const { key } = await createAccount(booted.call, { name: 'Operator' });
    const hookgate = typedClient(booted.call, key);

    const run = await runCli(['smoke', '--url', booted.gateway.url, '--key', key, '--timeout', '3'], home);

    expect(run.code).toBe(1);
    expect(run.stdout.trim().split('\n').map((line) => line.split(/\s+/)[1])).toEqual(['account', 'source', 'listen', 'ingest', 'cleanup']);
    const [event] = (await hookgate.events.list()).data;
    expect(run.stderr).toMatch(
      new RegExp(`^hookgate: smoke failed at delivery after \\d+ ms: no verified delivery of event ${event?.id} within 3 s: the gateway has it queued, delivery queued after 0 attempt\\(s\\); no try was made: is the deliver function taking`),
    );
    expect(await hookgate.sources.list()).toEqual([]);
    expect(await hookgate.destinations.list()).toEqual([]);
    expect(await hookgate.routes.list()).toEqual([]);
  }, 60_000);

  it('Ctrl-C while it waits for the delivery ends the smoke at once, exit 1, and still removes what it made', async () => {
    const { key } = await createAccount(booted.call, { name: 'Interrupted' });
    const hookgate = typedClient(booted.call, key);
    const smoke = startCli(['smoke', '--url', booted.gateway.url, '--key', key, '--timeout', '3600'], home);
    await eventually(async () => smoke.run.stdout, (stdout) => /^ok {2}ingest /m.test(stdout), 30_000);

    smoke.child.kill('SIGINT');
    const run = await smoke.exited;

    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^hookgate: smoke failed at delivery after \d+ ms: interrupted \(SIGINT or SIGTERM\)\n$/);
    expect(run.stdout).toMatch(/^ok {2}cleanup /m);
    expect(await hookgate.sources.list()).toEqual([]);
    expect(await hookgate.destinations.list()).toEqual([]);
  }, 60_000);
});
