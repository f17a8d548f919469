import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = new URL('../../', import.meta.url);
export const OUT_DIR = fileURLToPath(new URL('bench/out/', REPO_ROOT));

/**
 * Runs one benchmark section in its own Node process (`node --import tsx bench/<file>`): the handlers
 * read process.env once per process, and the sections must not share emulators, mocks or heap.
 * Resolves with what the section passed to `writeResult`; rejects on a non-zero exit or a timeout.
 */
export function runSection<T>(file: string, timeoutMs: number, env: Record<string, string> = {}): Promise<T> {
  mkdirSync(OUT_DIR, { recursive: true });
  const resultFile = `${OUT_DIR}${file.replace(/\W+/g, '-')}-result.json`;
  rmSync(resultFile, { force: true });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(`bench/${file}`, REPO_ROOT))], {
      cwd: fileURLToPath(REPO_ROOT),
      env: { ...process.env, ...env, BENCH_RESULT_FILE: resultFile },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} did not finish in ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`${file} exited with ${code ?? signal}`));
      try {
        resolve(JSON.parse(readFileSync(resultFile, 'utf8')) as T);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/** The section's side: hands its figures back to bench/run.ts. */
export function writeResult(result: unknown): void {
  const file = process.env.BENCH_RESULT_FILE;
  if (!file) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  writeFileSync(file, JSON.stringify(result, null, 2));
}
