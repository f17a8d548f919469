#!/usr/bin/env node
// `npm test`: the type-check and lint beside the vitest run instead of before it. Most test files
// wait on timers (retries, leases, polls) and leave part of the cores idle; the checks (~40 s of one
// core) run in that idle time, at a lower priority so they never slow a test that has work to do.
// Their output is held back and printed after the tests', so the two never interleave. Arguments go
// to vitest (`npm test -- test/unit`).
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { npmCommand } from './npm-command.mjs';

const CHECKS_NICE = 10;

/** Runs one command to its end: its exit code, and what it printed when `capture`. */
function run([command, args, options = {}], { capture = false, nice = 0 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    if (nice) {
      try {
        setPriority(child.pid, nice);
      } catch {
        // Not allowed here: the checks run at the same priority, only slower for the tests.
      }
    }
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.on('error', (err) => resolve({ code: 1, output: `${output}${err.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

async function checks() {
  const results = [];
  for (const script of ['typecheck', 'lint']) {
    const result = await run(npmCommand(['run', '--silent', script]), { capture: true, nice: CHECKS_NICE });
    results.push({ script, ...result });
    if (result.code !== 0) break;
  }
  return results;
}

const [checked, tests] = await Promise.all([checks(), run([process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)]])]);
for (const { script, code, output } of checked) {
  console.log(`\n${code === 0 ? '✓' : '✗'} npm run ${script}${code === 0 ? '' : ` failed (exit code ${code})`}`);
  if (output.trim()) console.log(output.trimEnd());
}
process.exit(tests.code !== 0 || checked.some((c) => c.code !== 0) ? 1 : 0);
