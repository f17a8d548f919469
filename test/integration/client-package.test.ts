import { execFile as execFileCallback, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { transformSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGatewayWithSink } from '../fixtures/gateway';
import { readmeClientExample } from '../fixtures/readme';

/**
 * The client as a consumer gets it: `npm pack` of clients/typescript (its prepack builds dist/),
 * installed from the tarball into an empty project, offline (the client has no dependencies), then
 * the README's example run by plain `node` (no tsx, no loader) under every Node major found on the
 * machine, and type-checked by `tsc --module nodenext` as a consumer's project would.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const execFile = promisify(execFileCallback);

/** One binary per Node major: the one running the tests (24, the `node` devDependency) and the system's (20). */
function nodeBinaries(): Array<[version: string, path: string]> {
  const candidates = [process.execPath, ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'node')), '/usr/local/bin/node', '/usr/bin/node'];
  const byMajor = new Map<string, [string, string]>();
  for (const path of candidates) {
    if (!existsSync(path)) continue;
    const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim();
    const major = version.split('.')[0] ?? version;
    if (!byMajor.has(major)) byMajor.set(major, [version, path]);
  }
  return [...byMajor.values()];
}
const nodes = nodeBinaries();

/** After the example: wait for the delivery the test hands over on stdin, and answer what `isGenuine` says of it. */
const CHECK_DELIVERY = `
const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const delivered = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { body: string; headers: Record<string, string> };
console.log(JSON.stringify({
  genuine: isGenuine(delivered.body, delivered.headers),
  tampered: isGenuine(delivered.body.replace('in_1', 'in_2'), delivered.headers),
}));
`;

let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let project: string;

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'hookgate-client-package-'));
  const [booted] = await Promise.all([
    bootGatewayWithSink(),
    execFile('npm', ['pack', '--pack-destination', project], { cwd: join(root, 'clients/typescript') }),
  ]);
  env = booted;
  const tarball = (await readdir(project)).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack wrote no tarball');
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await execFile('npm', ['install', '--offline', '--no-audit', '--no-fund', join(project, tarball)], { cwd: project });
}, 240_000);
afterAll(async () => {
  await env?.stop();
  if (project) await rm(project, { recursive: true, force: true });
});

/** The README example, its hosts made the local gateway and a sink path of its own. */
const consumerSource = (sinkPath: string) =>
  readmeClientExample()
    .replaceAll("'http://127.0.0.1:3000'", JSON.stringify(env.gateway.url))
    .replace("'https://consumer.example.com/hooks'", JSON.stringify(`${env.sink.url}${sinkPath}`)) + CHECK_DELIVERY;

describe('the packed client', () => {
  it('ships only the built JavaScript and its declarations', async () => {
    const { stdout } = await execFile('tar', ['-tzf', join(project, (await readdir(project)).find((n) => n.endsWith('.tgz')) ?? '')]);
    const files = stdout.trim().split('\n').sort();
    expect(files).toContain('package/dist/index.js');
    expect(files).toContain('package/dist/index.d.ts');
    expect(files).toContain('package/LICENSE'); // Apache-2.0, as package.json says: legal checks look for the file
    expect(files.filter((file) => !/^package\/(package\.json|README\.md|LICENSE|dist\/[\w.-]+\.(js|d\.ts))$/.test(file))).toEqual([]);
  });

  it('type-checks in a consumer project under tsc --module nodenext', async () => {
    await writeFile(join(project, 'consumer.ts'), consumerSource('/typecheck'));
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'];
    const types = ['--types', 'node', '--typeRoots', join(root, 'node_modules/@types')];
    const result = await execFile(process.execPath, [tsc, ...args, ...types, 'consumer.ts'], { cwd: project }).catch(
      (error: { stdout: string }) => error,
    );
    expect(result.stdout).toBe('');
  });

  it.each(nodes)('runs the README example under plain node %s against a local gateway', async (version, node) => {
    const sinkPath = `/package-${version}`;
    const js = transformSync(consumerSource(sinkPath), { loader: 'ts', format: 'esm' }).code;
    await writeFile(join(project, `example-${version}.mjs`), js);
    const child = spawn(node, [`example-${version}.mjs`], { cwd: project, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));

    const [delivery] = await Promise.race([
      env.sink.waitForPath(sinkPath, 1, 30_000),
      exited.then((code) => Promise.reject(new Error(`${version} exited ${code} before a delivery: ${stderr}`))),
    ]);
    if (!delivery) throw new Error('no delivery');
    expect(delivery.body.toString('utf8')).toBe('{"invoice":"in_1"}');
    child.stdin.end(JSON.stringify({ body: delivery.body.toString('utf8'), headers: delivery.headers }));
    expect(await exited, stderr).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ genuine: true, tampered: false });
  });
});
