/**
 * Section 3: cold start. Each Lambda entry is bundled with esbuild exactly as HookgateFunction does
 * (lib/constructs/lambda-bundle.ts: ESM, node24, minified, code splitting), into bench/out/bundles/.
 * Then each bundle is imported in fresh Node 24 processes and the import is timed from inside.
 * `bundle_kb` is what a cold start loads (the entry and the chunks it imports statically);
 * `lazy_chunks_kb` is what loads only when a code path needs it (the S3 client, SSO credentials…).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Metafile } from 'esbuild';
import { bundleHandler, HANDLERS_DIR, loadedAtStart } from './lib/bundle';
import { REPO_ROOT, writeResult } from './lib/child';
import { median, progress, round } from './lib/stats';

const RUNS = 7;

const names = readdirSync(HANDLERS_DIR)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();

/** Bytes loaded at start by npm package (or "hookgate" for our own code). */
function packagesOf(metafile: Metafile, loaded: Set<string>): Record<string, number> {
  const sizes: Record<string, number> = {};
  for (const output of [...loaded].map((path) => metafile.outputs[path]!)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
      const name = match?.[1] ?? 'hookgate';
      sizes[name] = (sizes[name] ?? 0) + bytesInOutput;
    }
  }
  return Object.fromEntries(
    Object.entries(sizes)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([name, bytes]) => [name, round(bytes / 1024, 1)]),
  );
}

// The node that runs the benchmark is the project's Node 24 (npm puts node_modules/.bin first on PATH).
const NODE = process.version.startsWith('v24') ? process.execPath : fileURLToPath(new URL('node_modules/.bin/node', REPO_ROOT));
const IMPORT_SCRIPT = `
const started = performance.now();
await import(process.env.BENCH_BUNDLE_URL);
const done = performance.now();
process.stdout.write(JSON.stringify({ import_ms: done - started, since_process_start_ms: done }));
`;

function importOnce(bundle: string): Promise<{ import_ms: number; since_process_start_ms: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, ['--input-type=module', '-e', IMPORT_SCRIPT], {
      env: {
        PATH: process.env.PATH ?? '',
        // As in AWS Lambda: the handlers load their Lambda-only parts (X-Ray tracer, JSON logger).
        AWS_LAMBDA_FUNCTION_NAME: 'hookgate-bench',
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
        AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
        BENCH_BUNDLE_URL: pathToFileURL(bundle).href,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'bench',
        AWS_SECRET_ACCESS_KEY: 'bench',
        TABLE_NAME: 'hookgate',
        DELIVERY_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/hookgate-delivery',
        PAYLOAD_BUCKET: 'payloads',
        EXPORT_BUCKET: 'exports',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`importing ${bundle} exited with ${code}`));
      try {
        resolve(JSON.parse(out) as { import_ms: number; since_process_start_ms: number });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

const result: Record<string, unknown> = {};
progress(`cold start: bundling ${names.length} handlers with esbuild (as HookgateFunction does)...`);
for (const name of names) {
  const { outfile, metafile } = await bundleHandler(name);
  const loaded = loadedAtStart(metafile, outfile);
  const files = (paths: Iterable<string>) => [...paths].map((path) => resolve(path));
  const kb = (paths: string[]) => round(paths.reduce((sum, path) => sum + statSync(path).size, 0) / 1024, 1);
  const lazy = Object.keys(metafile.outputs).filter((path) => !loaded.has(path));
  const imports: number[] = [];
  const sinceStart: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const run = await importOnce(outfile);
    imports.push(run.import_ms);
    sinceStart.push(run.since_process_start_ms);
  }
  result[name] = {
    bundle_kb: kb(files(loaded)),
    bundle_gzip_kb: round(gzipSync(Buffer.concat(files(loaded).map((path) => readFileSync(path)))).length / 1024, 1),
    lazy_chunks_kb: kb(files(lazy)),
    import_ms: round(median(imports), 1),
    ready_since_process_start_ms: round(median(sinceStart), 1),
    largest_packages_kb: packagesOf(metafile, loaded),
  };
  progress(`cold start: ${name}: ${JSON.stringify(result[name])}`);
}
writeResult({ runs: RUNS, node: NODE, handlers: result });
