import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort, markedBlock } from '../fixtures/readme';
import { bootGateway } from '../fixtures/gateway';
import { machineNode, tooOldForTheCli } from '../fixtures/machine-node';

let env: Awaited<ReturnType<typeof bootGateway>>;
let home: string;

beforeAll(async () => {
  env = await bootGateway();
  // `hookgate listen` keeps its session id under the config directory: not the developer's own.
  home = await mkdtemp(join(tmpdir(), 'hookgate-walkthrough-home-'));
});
afterAll(async () => {
  await env?.stop();
  await rm(home, { recursive: true, force: true });
});

const walkthroughScript = (): string => markedBlock('README.md', 'walkthrough', 'bash');

// Asynchronous on purpose: the gateway answers from this same process.
const run = promisify(execFile);

/** The walk-through run as written, as bash runs a reader's paste; `path` is the PATH it finds its `node` on. */
async function walkthrough(path = process.env.PATH) {
  const { HOOKGATE_URL: _u, HOOKGATE_API_KEY: _k, HOOKGATE_SIGNING_SECRET: _s, ...rest } = process.env;
  const result = await run('bash', ['-euo', 'pipefail', '-c', walkthroughScript()], {
    cwd: new URL('../../', import.meta.url),
    env: { ...rest, PATH: path, HOME: home, XDG_CONFIG_HOME: join(home, 'xdg'), BASE: env.gateway.url, RECEIVER_PORT: String(await freePort()) },
    encoding: 'utf8',
    timeout: 90_000,
  });
  return result.stdout;
}

/** What the walk-through prints when it worked: each step's answer, and the receiver's word that the signature verified. */
function expectDelivered(stdout: string) {
  const lines = stdout.trim().split('\n');
  expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${env.gateway.url}/ingest/[A-Za-z0-9_-]{43}$`)));
  expect(lines).toContainEqual(expect.stringMatching(/^signing secret: whsec_/));
  const routes = JSON.parse(lines.find((line) => line.includes('"event_type_pattern"')) ?? '');
  expect(routes.data).toHaveLength(1);
  expect(routes.data[0]).toMatchObject({ event_type_pattern: 'payment.*', active: true });
  const { event, attempts } = JSON.parse(lines.find((line) => line.startsWith('{"data":{"event":')) ?? '').data;
  expect(event).toMatchObject({ event_type: 'payment.succeeded', direction: 'inbound', status: 'delivered' });
  expect(attempts).toEqual([expect.objectContaining({ outcome: 'success', response_status: 204 })]);
  expect(lines).toContainEqual(`receiver: signature verified for ${event.webhook_id} (payment.succeeded)`);
  expect(stdout).not.toContain('REFUSED');
}

it('the README walk-through, run as written on the local gateway, delivers a webhook whose signature the receiver verifies', async () => {
  expectDelivered(await walkthrough());
});

// Under npm (npm test, npm exec vitest) `node` is the clone's Node 24; a reader's shell has the
// machine's own, on Debian and CI images a Node 20, which cannot run the CLI's TypeScript itself.
const machine = machineNode();

it(`the walk-through works as well with the machine's own node (${machine ? `${machine.version}, ${machine.path}` : 'none on PATH'}), as a reader's shell runs it`, async (context) => {
  if (!machine || !tooOldForTheCli(machine.version)) {
    return context.skip(`nothing to show here: this machine's own node is ${machine ? `${machine.version}, which runs the CLI itself` : 'missing'}; CI's is a Node 20`);
  }
  const { stdout: shellsNode } = await run('bash', ['-c', 'node -p process.versions.node'], { env: { ...process.env, PATH: machine.searchPath }, encoding: 'utf8' });
  expect(shellsNode.trim()).toBe(machine.version);
  expectDelivered(await walkthrough(machine.searchPath));
});
