#!/usr/bin/env node
// Installs dependencies when node_modules is missing or older than package-lock.json; otherwise
// does nothing. Runs as `prestart` and `pretest`, so it must be quick and dependency-free (it may
// run on a system Node 20 before node_modules, and the Node 24 it brings, exist).
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { npmCommand } from './npm-command.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lockFile = join(root, 'package-lock.json');
const installedMarker = join(root, 'node_modules', '.package-lock.json');

/** Why an install is needed, or undefined when node_modules is current. */
function staleReason() {
  if (!existsSync(join(root, 'node_modules'))) return 'node_modules is missing';
  if (!existsSync(lockFile)) return undefined;
  if (!existsSync(installedMarker)) return 'node_modules was not installed by npm';
  // npm writes the marker at the end of every install, so after `npm ci` it is the newer file.
  if (statSync(installedMarker).mtimeMs < statSync(lockFile).mtimeMs) return 'package-lock.json changed';
  return undefined;
}

function runNpm(args) {
  const [command, commandArgs, options] = npmCommand(args);
  const result = spawnSync(command, commandArgs, { ...options, cwd: root, stdio: 'inherit' });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

const reason = staleReason();
if (reason) {
  const args = existsSync(lockFile) ? ['ci'] : ['install'];
  console.log(`ensure-deps: ${reason}; running npm ${args.join(' ')}`);
  const status = runNpm(args);
  if (status !== 0) process.exit(status);
}
