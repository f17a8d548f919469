import { execFile as execFileCallback, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
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
 * installed from the tarball, offline (the client has no dependencies), into two empty projects: an
 * ES module one (`"type": "module"`) and a CommonJS one made by `npm init -y`. In each, the README's
 * example, as the README says to write it there, runs under plain `node` (no tsx, no loader) under
 * every Node major found on the machine, and type-checks under `tsc --module nodenext`.
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
let workdir: string;
let tarball: string;
/** Where each kind of consumer project lives. */
const projects = { esm: '', cjs: '' };
type Kind = keyof typeof projects;

beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), 'hookgate-client-package-'));
  const [booted] = await Promise.all([
    bootGatewayWithSink(),
    execFile('npm', ['pack', '--pack-destination', workdir], { cwd: join(root, 'clients/typescript') }),
  ]);
  env = booted;
  const packed = (await readdir(workdir)).find((name) => name.endsWith('.tgz'));
  if (!packed) throw new Error('npm pack wrote no tarball');
  tarball = join(workdir, packed);
  projects.esm = join(workdir, 'esm');
  projects.cjs = join(workdir, 'cjs');
  await Promise.all([mkdir(projects.esm), mkdir(projects.cjs)]);
  await writeFile(join(projects.esm, 'package.json'), JSON.stringify({ name: 'consumer-esm', private: true, type: 'module' }));
  // What a newcomer starts from; npm writes "type": "commonjs".
  await execFile('npm', ['init', '-y'], { cwd: projects.cjs });
  const install = (cwd: string) => execFile('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd });
  await Promise.all([install(projects.esm), install(projects.cjs)]);
}, 240_000);
afterAll(async () => {
  await env?.stop();
  if (workdir) await rm(workdir, { recursive: true, force: true });
});

/** The README example, its hosts made the local gateway and a sink path of its own, then the delivery check. */
function esmSource(sinkPath: string): string {
  return (
    readmeClientExample()
      .replaceAll("'http://127.0.0.1:3000'", JSON.stringify(env.gateway.url))
      .replace("'https://consumer.example.com/hooks'", JSON.stringify(`${env.sink.url}${sinkPath}`)) + CHECK_DELIVERY
  );
}

/**
 * The same in CommonJS, as the README says to write it there: without top-level await, the code after
 * the import runs inside an async function. `import` stays for tsc, which makes it a require call in a
 * CommonJS project; for plain node, `requireForm` writes the require line the README gives.
 */
function cjsSource(sinkPath: string): string {
  const [importLine, ...rest] = esmSource(sinkPath).split('\n');
  return `${importLine}\nasync function main() {\n${rest.join('\n')}\n}\nvoid main();\n`;
}

const IMPORT = /^import \{ (.*) \} from ["']@hookgate\/client["'];$/m;
const requireForm = (js: string) => {
  if (!IMPORT.test(js)) throw new Error(`no import of @hookgate/client in ${js}`);
  return js.replace(IMPORT, "const { $1 } = require('@hookgate/client');");
};

const javascript = (kind: Kind, sinkPath: string) =>
  kind === 'esm'
    ? transformSync(esmSource(sinkPath), { loader: 'ts', format: 'esm' }).code
    : requireForm(transformSync(cjsSource(sinkPath), { loader: 'ts', format: 'esm' }).code);

describe('the packed client', () => {
  it('ships only the built JavaScript and its declarations, in an ES module and a CommonJS build', async () => {
    const { stdout } = await execFile('tar', ['-tzf', tarball]);
    const files = stdout.trim().split('\n').sort();
    for (const kind of ['esm', 'cjs']) {
      expect(files).toContain(`package/dist/${kind}/index.js`);
      expect(files).toContain(`package/dist/${kind}/index.d.ts`);
    }
    expect(files).toContain('package/dist/cjs/package.json'); // says "type": "commonjs" to Node and tsc
    expect(files).toContain('package/LICENSE'); // Apache-2.0, as package.json says: legal checks look for the file
    expect(files.filter((file) => !/^package\/(package\.json|README\.md|LICENSE|dist\/(esm|cjs)\/[\w.-]+\.(js|d\.ts)|dist\/cjs\/package\.json)$/.test(file))).toEqual([]);
  });

  it.each(['esm', 'cjs'] as const)('type-checks in a %s consumer project under tsc --module nodenext', async (kind) => {
    const file = join(projects[kind], 'consumer.ts');
    await writeFile(file, kind === 'esm' ? esmSource('/typecheck') : cjsSource('/typecheck'));
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'];
    const types = ['--types', 'node', '--typeRoots', join(root, 'node_modules/@types')];
    const traced = ['--traceResolution'];
    const result = await execFile(process.execPath, [tsc, ...args, ...types, ...traced, 'consumer.ts'], { cwd: projects[kind], maxBuffer: 64 * 1024 * 1024 }).catch(
      (error: { stdout: string }) => error,
    );
    const errors = result.stdout.split('\n').filter((line) => line.includes('error TS'));
    expect(errors).toEqual([]);
    // Each kind of project gets the declarations of its own build.
    expect(result.stdout).toContain(`'@hookgate/client' was successfully resolved to '${join(projects[kind], 'node_modules/@hookgate/client/dist', kind, 'index.d.ts')}'`);
  });

  const runs = nodes.flatMap(([version, node]) => (['esm', 'cjs'] as const).map((kind): [Kind, string, string] => [kind, version, node]));
  it.each(runs)('runs the README example as %s under plain node %s against a local gateway', async (kind, version, node) => {
    const sinkPath = `/package-${kind}-${version}`;
    // example.js, as a newcomer names it: an ES module in the one project, CommonJS in the other.
    const script = `example-${version}.js`;
    await writeFile(join(projects[kind], script), javascript(kind, sinkPath));
    const child = spawn(node, [script], { cwd: projects[kind], stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));

    const [delivery] = await Promise.race([
      env.sink.waitForPath(sinkPath, 1, 30_000),
      exited.then((code) => Promise.reject(new Error(`${kind} ${version} exited ${code} before a delivery: ${stderr}`))),
    ]);
    if (!delivery) throw new Error('no delivery');
    expect(delivery.body.toString('utf8')).toBe('{"invoice":"in_1"}');
    child.stdin.end(JSON.stringify({ body: delivery.body.toString('utf8'), headers: delivery.headers }));
    expect(await exited, stderr).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ genuine: true, tampered: false });
    // Loaded as its own kind: no warning of an ES module required from CommonJS.
    expect(stderr).toBe('');
  });

  it('answers a gateway that is down with HookgateError, status 0, from CommonJS', async () => {
    const script = join(projects.cjs, 'down.js');
    await writeFile(
      script,
      `const { Hookgate, HookgateError } = require('@hookgate/client');
new Hookgate({ baseUrl: 'http://gateway.hookgate.invalid' }).account.get().catch((error) => {
  console.log(JSON.stringify({ isHookgateError: error instanceof HookgateError, status: error.status, message: error.message }));
});
`,
    );
    const { stdout } = await execFile(process.execPath, [script], { cwd: projects.cjs });
    expect(JSON.parse(stdout)).toEqual({ isHookgateError: true, status: 0, message: expect.stringMatching(/^cannot reach http:\/\/gateway\.hookgate\.invalid\/v1\/account: /) });
  });
});
