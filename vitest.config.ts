import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { LongestProjectsFirst } from './test/sequencer';

export default defineConfig({
  test: {
    // Three files at a time at least: most files wait on timers (retries, cooldowns, polls) rather than
    // on the CPU, so on a 2-core CI machine vitest's default (cores − 1) leaves a core idle. Measured
    // idle on 2 cores: one at a time 13 min, two 676 s, three 546 s, four 550 s with two files failing
    // on the starved machine: three it is.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    sequence: { sequencer: LongestProjectsFirst },
    // EMF metric lines (one JSON document per invocation) say nothing to a person reading test output.
    onConsoleLog: (line) => !line.startsWith('{"_aws"'),
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node' } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          pool: 'forks',
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Worst-day scenarios (issue 8): crashes, hostile destinations, poison messages, bad input,
        // SSRF, tenant isolation. Prints a summary and fails on any lost event or 5xx on bad input.
        test: {
          name: 'reliability',
          include: ['test/reliability/**/*.test.ts'],
          environment: 'node',
          pool: 'forks',
          globalSetup: ['test/reliability/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The consumer portal in a real browser: Debian's chromium (/usr/bin/chromium), else Playwright's;
        // `npm test` installs one first when missing (scripts/ensure-browser.mjs).
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          pool: 'forks',
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          // aws-cdk-lib checks every template against the CloudFormation schemas on each synth (a WebAssembly
          // validator, ~3 of a synth's 7 s of CPU) and only warns; the infra tests synthesise over a hundred
          // times, so they skip it, and cli-synth's bundled run keeps it and asserts its report clean.
          env: { CDK_VALIDATION: 'false' },
          environment: 'node',
          pool: 'forks',
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
