import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { formatSummary, readTally } from './summary';

/**
 * Creates this run's tally file and, when the run ends, prints the summary line. A run that lost an
 * accepted event or answered bad input with a 5xx fails here too, whatever the tests said.
 */
export default function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-reliability-'));
  const file = join(dir, 'tally.jsonl');
  writeFileSync(file, '');
  project.provide('reliabilitySummaryFile', file);
  const startedAt = Date.now();

  return () => {
    const { total, bySource } = readTally(file);
    rmSync(dir, { recursive: true, force: true });
    const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
    const lines = [...bySource].map(
      ([source, f]) =>
        `  ${source.padEnd(16)} faults ${f.faultsInjected}, bad inputs ${f.badInputsTried}, accepted ${f.accepted}, delivered ${f.delivered}, lost ${f.lost}, not delivered by a deadline ${f.undelivered}, 5xx ${f.badInput5xx}`,
    );
    console.log(['', ...lines, `${formatSummary(total)} (${seconds} s)`, ''].join('\n'));
    if (total.lost > 0 || total.badInput5xx > 0) {
      throw new Error(`reliability run failed: lost ${total.lost}, 5xx on bad input ${total.badInput5xx}`);
    }
  };
}
