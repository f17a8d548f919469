#!/usr/bin/env node
// Makes sure the e2e tests have a Chromium: Debian's /usr/bin/chromium, or else Playwright's own.
// Silent when one answers `--version`. Otherwise gets one, saying so: Debian's package through apt
// where we may (root or passwordless sudo), else Playwright's download. If neither works it exits
// non-zero with the one command to run, so the suite stops before it starts rather than failing in
// the browser tests. Runs as `pretest` after ensure-deps, so it needs nothing from node_modules
// (it asks playwright-core where its Chromium lives only when playwright-core is there).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const DEBIAN_CHROMIUM = '/usr/bin/chromium';
const APT_INSTALL = ['apt-get', 'install', '-y', '--no-install-recommends', 'chromium'];

/** True when the program runs and exits 0 (a binary that is present but broken counts as missing). */
function answers(command, args) {
  const result = spawnSync(command, args, { stdio: 'ignore', timeout: 30_000 });
  return !result.error && result.status === 0;
}

/** Playwright's Chromium path (known before it is downloaded), or undefined without playwright-core. */
function playwrightChromium() {
  try {
    return require('playwright-core').chromium.executablePath();
  } catch {
    return undefined;
  }
}

const usable = () => [DEBIAN_CHROMIUM, playwrightChromium()].some((path) => path && answers(path, ['--version']));

/** Runs a step with our stdio, so its progress and errors show where they belong. */
function run([command, ...args], shown = [command, ...args].join(' ')) {
  console.log(`ensure-browser: ${shown}`);
  return spawnSync(command, args, { cwd: root, stdio: 'inherit' }).status === 0;
}

if (usable()) process.exit(0);

console.log(`ensure-browser: the e2e tests need Chromium and there is none (${DEBIAN_CHROMIUM}, Playwright's); getting one`);
const hasApt = answers('apt-get', ['--version']);
const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
const aptUpdate = [...sudo, 'apt-get', 'update'];
const aptInstall = [...sudo, ...APT_INSTALL];

// Debian's package first: unlike Playwright's download, it brings the libraries Chromium needs.
if (hasApt && (sudo.length === 0 || answers('sudo', ['-n', 'true']))) {
  if (run(aptUpdate) && run(aptInstall) && usable()) process.exit(0);
}
if (playwrightChromium()) {
  const cli = join(dirname(require.resolve('playwright-core/package.json')), 'cli.js');
  if (run([process.execPath, cli, 'install', 'chromium'], 'npx playwright-core install chromium') && usable()) process.exit(0);
}

const fix = hasApt ? `${aptUpdate.join(' ')} && ${aptInstall.join(' ')}` : 'npx playwright-core install chromium';
console.error(`\nensure-browser: could not install Chromium for the e2e tests. Run this, then npm test again:\n\n  ${fix}\n`);
process.exit(1);
