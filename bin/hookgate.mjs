#!/usr/bin/env node
// `npm exec --no -- hookgate` in a clone (not npx, which outside a clone installs the registry's
// `hookgate`, not ours): the CLI's TypeScript runs as it is, through the repository's tsx,
// so a fresh clone needs no build step. clients/cli's own package ships a bundle instead (its `build`).
//
// Plain JavaScript up to the version check, which any Node from 14.8 (top-level await) parses: the
// walk-through runs this file with the reader's own `node`, often Debian's or a CI image's Node 20,
// where tsx's loader dies with ERR_REQUIRE_CYCLE_MODULE. There it runs itself again on the Node 24
// that `npm install` brings.
import { spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** package.json's `engines.node`, `^22.13.0 || >=24`: the Nodes whose require(esm) tsx's loader works on. */
const NEEDED = 'Node ^22.13.0 or >=24';
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const supported = (major === 22 && minor >= 13) || major >= 24;
const clonesNode = fileURLToPath(new URL('../node_modules/.bin/node', import.meta.url));

if (supported) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../clients/cli/src/main.ts');
} else if (existsSync(clonesNode) && realpathSync(clonesNode) !== realpathSync(process.execPath)) {
  runOn(clonesNode);
} else {
  process.stderr.write(
    `hookgate: this CLI needs ${NEEDED}; this is Node ${process.versions.node} (${process.execPath}).\n` +
      `hookgate: run \`npm install\` in the clone, which puts Node 24 at node_modules/.bin/node, then \`npm exec --no -- hookgate …\`\n` +
      `hookgate: (or \`node bin/hookgate.mjs …\` again, which then runs itself on that Node).\n`,
  );
  // The CLI's "no usable configuration" code (clients/cli/src/exit.ts): the machine needs setting up, not the command line changing.
  process.exitCode = 3;
}

/**
 * The CLI as a child on `node`, with this process's streams, signals and exit status, so a script
 * that captures its output, waits for it or kills it sees no difference. Node 20 has no execve.
 */
function runOn(node) {
  const child = spawn(node, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  // Ctrl-C reaches the whole foreground process group, the child already included: passed on as
  // well, it would be the child's second SIGINT, which ends `listen` before it removes its
  // destination. A SIGINT while stdin is a terminal is taken to be that one.
  const forward = (signal) => () => {
    if (signal !== 'SIGINT' || !process.stdin.isTTY) child.kill(signal);
  };
  const handlers = ['SIGINT', 'SIGTERM', 'SIGHUP'].map((signal) => [signal, forward(signal)]);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  child.on('error', (error) => {
    process.stderr.write(`hookgate: cannot run ${node}: ${error.message}\n`);
    process.exitCode = 3;
  });
  child.on('exit', (code, signal) => {
    for (const [name, handler] of handlers) process.off(name, handler);
    // Ended by a signal: end the same way, so the caller's shell reports it as the child's.
    if (signal) process.kill(process.pid, signal);
    else process.exitCode = code ?? 1;
  });
}
