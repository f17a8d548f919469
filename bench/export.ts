/**
 * Section 6: export of 10,000 events. The events (2 KB each, no route, so they settle as `accepted`)
 * go in through the local gateway; each export job is created through the API and then run by the
 * bundled export function (bench/out/bundles/export, as deployed) in a fresh Node process of its own,
 * which reports the run time and its peak resident memory.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startGateway } from '../local/gateway';
import { handlerEnv } from '../local/handler-env';
import { bundleHandler } from './lib/bundle';
import { OUT_DIR, writeResult } from './lib/child';
import { realHandlers } from './lib/handlers';
import { apiClient, providerHeaders, request, setupAccount, webhookBody } from './lib/http';
import { pool, progress, round, silenceStdout } from './lib/stats';

const EVENTS = 10_000;

const WORKER_SCRIPT = `
const { handler } = await import(process.env.BENCH_BUNDLE_URL);
const rssBefore = process.memoryUsage().rss;
const started = performance.now();
const result = await handler({ detail: { account_id: process.env.BENCH_ACCOUNT_ID, job_id: process.env.BENCH_JOB_ID } });
const runMs = performance.now() - started;
process.stdout.write('BENCH_RESULT ' + JSON.stringify({
  run_ms: runMs,
  rss_before_mb: rssBefore / 1048576,
  peak_rss_mb: process.resourceUsage().maxRSS / 1024,
  processed: result && result.processed,
}) + '\\n');
`;

function runWorker(bundle: string, env: Record<string, string>): Promise<{ run_ms: number; rss_before_mb: number; peak_rss_mb: number; processed: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', WORKER_SCRIPT], {
      env: { PATH: process.env.PATH ?? '', HOOKGATE_LOG_LEVEL: 'warn', ...env, BENCH_BUNDLE_URL: pathToFileURL(bundle).href },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('BENCH_RESULT '));
      if (code !== 0 || !line) return reject(new Error(`export worker exited with ${code}: ${out.slice(-500)}`));
      resolve(JSON.parse(line.slice('BENCH_RESULT '.length)) as { run_ms: number; rss_before_mb: number; peak_rss_mb: number; processed: string[] });
    });
  });
}

const bundle = `${OUT_DIR}bundles/export/index.mjs`;
if (!existsSync(bundle)) await bundleHandler('export');

const dataDir = await mkdtemp(join(tmpdir(), 'hookgate-bench-export-'));
const gateway = await startGateway({
  port: 0,
  dataDir,
  log: (line) => progress(line),
  // No export worker in this process: the job runs in its own process below.
  handlers: { api: realHandlers.api, ingest: realHandlers.ingest },
  env: { HOOKGATE_LOG_LEVEL: 'error' },
});
const api = apiClient(gateway.url);
try {
  const account = await setupAccount(api);
  progress(`export: ingesting ${EVENTS} events of 2 KB (no route: they settle as accepted)...`);
  const seedStarted = Date.now();
  const restoreStdout = silenceStdout();
  await pool(EVENTS, 16, async (i) => {
    const body = webhookBody(i, Date.now());
    const reply = await request(`${gateway.url}/ingest/${account.token}`, { method: 'POST', headers: providerHeaders(body), body });
    if (reply.status !== 202) throw new Error(`ingest answered ${reply.status}`);
  });
  restoreStdout();
  const seedSeconds = (Date.now() - seedStarted) / 1000;
  progress(`export: ingested in ${round(seedSeconds, 1)} s (${round(EVENTS / seedSeconds, 0)}/s, in-process, no deliveries)`);

  const env = { ...handlerEnv(gateway.resources, gateway.endpoints, gateway.url), HOOKGATE_LOG_LEVEL: 'warn' };
  const results: Record<string, unknown> = {};
  for (const format of ['csv', 'json'] as const) {
    const created = await api('POST', '/v1/exports', { key: account.key, body: { format } });
    if (created.status !== 201) throw new Error(`export create answered ${created.status}: ${created.text}`);
    const jobId = created.json.data.id as string;
    progress(`export: ${format}: running the bundled export function in a fresh process...`);
    const run = await runWorker(bundle, { ...env, BENCH_ACCOUNT_ID: account.accountId, BENCH_JOB_ID: jobId });
    const job = (await api('GET', `/v1/exports/${jobId}`, { key: account.key })).json.data;
    const download = await api('GET', `/v1/exports/${jobId}/download`, { key: account.key });
    let fileKb = 0;
    const location = download.status === 302 ? download.headers.location : undefined;
    if (location) fileKb = round(Buffer.byteLength((await request(location)).text) / 1024, 0);
    results[format] = {
      status: job.status,
      rows: job.row_count,
      ms: round(run.run_ms, 0),
      peak_rss_mb: round(run.peak_rss_mb, 1),
      rss_before_mb: round(run.rss_before_mb, 1),
      file_kb: fileKb,
    };
    progress(`export: ${format}: ${JSON.stringify(results[format])}`);
  }
  writeResult({ events: EVENTS, seed_s: round(seedSeconds, 1), ...results });
} finally {
  await gateway.close();
  await rm(dataDir, { recursive: true, force: true });
}
