import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machineNode, tooOldForTheCli } from '../fixtures/machine-node';

/**
 * bin/hookgate.mjs started by a Node older than the CLI needs, as `node bin/hookgate.mjs` in a
 * reader's shell is on Debian and CI images (Node 20): it runs again on the clone's Node 24, and
 * where there is none it says which Node it needs and how to get it. The machine's own node plays
 * the old one; where it is not old there is nothing to show, and each test says so as it skips.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const machine = machineNode();
const old = machine && tooOldForTheCli(machine.version) ? machine : undefined;
const skipNote = `this machine's own node is ${machine ? `${machine.version}, which runs the CLI itself` : 'missing'}; CI's is a Node 20`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const runOn = (node: string, script: string, args: readonly string[], cwd: string): Promise<Run> =>
  new Promise((resolve) => {
    const { HOOKGATE_URL: _url, HOOKGATE_API_KEY: _key, ...rest } = process.env;
    execFile(node, [script, ...args], { cwd, env: { ...rest, HOME: cwd, XDG_CONFIG_HOME: join(cwd, 'xdg') }, encoding: 'utf8' }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'hookgate-old-node-'));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe(`node bin/hookgate.mjs on the machine's own node (${old ? `${old.version}, ${old.path}` : 'not an old one here'})`, () => {
  it('runs the CLI on the clone\'s Node 24: its output on the same pipes, its exit code the CLI\'s', async (context) => {
    if (!old) return context.skip(skipNote);
    const version = await runOn(old.path, join(root, 'bin/hookgate.mjs'), ['--version'], scratch);
    expect(version.stderr).toBe('');
    expect(version).toMatchObject({ code: 0, stdout: `${JSON.parse(await readFile(join(root, 'clients/cli/package.json'), 'utf8')).version}\n` });
    const unknown = await runOn(old.path, join(root, 'bin/hookgate.mjs'), ['listen-to-everything'], scratch);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("error: unknown command 'listen-to-everything'");
    expect(`${version.stderr}${unknown.stderr}`).not.toContain('ERR_REQUIRE_CYCLE_MODULE');
  });

  it('without the clone\'s Node 24 (no npm install yet) says which Node it needs and how to run it, and exits 3', async (context) => {
    if (!old) return context.skip(skipNote);
    // The script alone, as in a clone before `npm install`: no node_modules/.bin/node beside it.
    const clone = join(scratch, 'fresh-clone');
    await mkdir(join(clone, 'bin'), { recursive: true });
    await copyFile(join(root, 'bin/hookgate.mjs'), join(clone, 'bin/hookgate.mjs'));
    const run = await runOn(old.path, join(clone, 'bin/hookgate.mjs'), ['--version'], clone);
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`hookgate: this CLI needs Node ^22.13.0 or >=24; this is Node ${old.version} (${old.path}).`);
    expect(run.stderr).toContain('run `npm install` in the clone, which puts Node 24 at node_modules/.bin/node, then `npm exec --no -- hookgate …`');
    expect(run.stderr).not.toContain('ERR_REQUIRE_CYCLE_MODULE');
  });
});
