import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort, markedBlock } from '../fixtures/readme';
import { createAccount, httpClient } from '../fixtures/http-client';
import { eventually } from '../fixtures/sink';

/**
 * docs/aws-destinations.md "Locally", as a developer follows it: `npm start` with the emulators' ports
 * fixed, then the section's commands, the AWS CLI's included, pasted into a shell. An `aws_sqs` and an
 * `aws_s3` destination on the emulators deliver with nothing in cdk.json (their tries failed
 * AccessDenied when the deliver role had only the stack's grants).
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

const sectionScript = (): string => markedBlock('docs/aws-destinations.md', 'local-aws', 'sh');

const awsCli = (() => {
  try {
    return execFileSync('aws', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim() || 'aws';
  } catch {
    return undefined;
  }
})();

let gateway: ChildProcess | undefined;
let log = '';
let dataDir: string;
const ports = { http: 0, listen: 0, sqs: 0, s3: 0 };

beforeAll(async () => {
  if (!awsCli) return;
  dataDir = await mkdtemp(join(tmpdir(), 'hookgate-aws-locally-'));
  for (const name of Object.keys(ports) as (keyof typeof ports)[]) ports[name] = await freePort();
  // `npm start` as the section says, its prestart's dependency check left out: node_modules is the
  // test run's own, and an `npm ci` under the other test files would pull it from under them.
  gateway = spawn('npm', ['start', '--ignore-scripts'], {
    cwd: root,
    detached: true,
    env: {
      ...process.env,
      PORT: String(ports.http),
      HOOKGATE_LISTEN_PORT: String(ports.listen),
      HOOKGATE_SQS_PORT: String(ports.sqs),
      HOOKGATE_S3_PORT: String(ports.s3),
      HOOKGATE_DATA_DIR: dataDir,
    },
  });
  gateway.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  gateway.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  await eventually(
    async () => log,
    (text) => {
      if (gateway?.exitCode !== null) throw new Error(`npm start exited ${gateway?.exitCode}:\n${text}`);
      return text.includes('Hookgate local gateway listening on');
    },
    90_000,
  );
}, 120_000);

afterAll(async () => {
  // npm, its shell and the gateway: the group this test started.
  const group = gateway?.pid;
  if (group !== undefined) {
    const gone = () => {
      try {
        process.kill(-group, 0);
        return false;
      } catch {
        return true;
      }
    };
    if (!gone()) process.kill(-group, 'SIGTERM');
    // npm exits before the gateway has closed its emulators: its data dir goes once every process has.
    await eventually(async () => gone(), (done) => done, 30_000);
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it(`the "Locally" section, run as written: an aws_sqs and an aws_s3 destination on npm start's emulators deliver, with nothing in cdk.json (${awsCli ?? 'no AWS CLI'})`, async (context) => {
  if (!awsCli) return context.skip('the section uses the AWS CLI, which this machine lacks (`aws --version` failed)');
  const base = `http://127.0.0.1:${ports.http}`;
  const { key } = await createAccount(httpClient(base), { name: 'Locally' });
  const { AWS_ACCESS_KEY_ID: _id, AWS_SECRET_ACCESS_KEY: _secret, AWS_SESSION_TOKEN: _token, AWS_PROFILE: _profile, ...rest } = process.env;
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', sectionScript()], {
    cwd: root,
    env: { ...rest, BASE: base, KEY: key, SQS: `http://127.0.0.1:${ports.sqs}`, S3: `http://127.0.0.1:${ports.s3}` },
    encoding: 'utf8',
    timeout: 120_000,
  });
  const [received, object] = splitJson(stdout);
  const message = (received as { Messages: { Body: string; MessageAttributes: Record<string, { StringValue: string }> }[] }).Messages[0];
  expect(message?.Body).toBe('{"order":"o_1"}');
  expect(message?.MessageAttributes['x-event-type']?.StringValue).toBe('order.paid');
  expect(message?.MessageAttributes['webhook-signature']?.StringValue).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  expect(object).toEqual({ order: 'o_1' });
}, 180_000);

/** What the section prints after `make_bucket: …`: receive-message's answer (indented JSON), then the object's bytes. */
function splitJson(text: string): [unknown, unknown] {
  const [start, end] = [text.indexOf('\n{\n'), text.indexOf('\n}\n')];
  if (start < 0 || end < start) throw new Error(`the section printed no message:\n${text}`);
  return [JSON.parse(text.slice(start, end + 2)), JSON.parse(text.slice(end + 3))];
}
