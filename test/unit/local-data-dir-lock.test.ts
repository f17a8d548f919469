import { describe, expect, it } from 'vitest';
import { isRunning, parseProcStat, type ProcStat } from '../../local/data-dir-lock';

// A line as /proc/<pid>/stat prints it: the command name may hold spaces and parentheses.
const statLine = (state: string, startTime: string, comm = 'node') =>
  `4242 (${comm}) ${state} 1 4242 4242 0 -1 4194304 95 0 0 0 0 0 0 0 20 0 1 0 ${startTime} 3133440 380 18446744073709551615 0 0`;

describe('parseProcStat', () => {
  it.each([
    ['a running process', statLine('S', '493781'), { state: 'S', startTime: '493781' }],
    ['a zombie', statLine('Z', '493781'), { state: 'Z', startTime: '493781' }],
    ['a command name with spaces and parentheses', statLine('R', '7', 'a) b (c'), { state: 'R', startTime: '7' }],
    ['a truncated line', '4242 (node) S 1 4242', undefined],
    ['nothing', '', undefined],
  ])('%s', (_name, line, expected) => {
    expect(parseProcStat(line)).toEqual(expected);
  });
});

describe('isRunning (the lock holder still runs)', () => {
  // process.ppid answers kill -0 in any environment; what /proc says about it is the fixture's.
  const pid = process.ppid;
  const reads = (stat: ProcStat | undefined) => () => Promise.resolve(stat);
  it.each([
    ['running, same start time', `${pid} 100`, { state: 'S', startTime: '100' }, true],
    ['a zombie (killed, not reaped): dead although kill -0 answers', `${pid} 100`, { state: 'Z', startTime: '100' }, false],
    ['dead (X)', `${pid} 100`, { state: 'X', startTime: '100' }, false],
    ['another process under a reused pid', `${pid} 100`, { state: 'S', startTime: '999' }, false],
    ['a lock file of before start times, running', `${pid}`, { state: 'R', startTime: '999' }, true],
    ['a lock file of before start times, zombie', `${pid}`, { state: 'Z', startTime: '999' }, false],
    ['no /proc (macOS): kill -0 decides', `${pid}`, undefined, true],
    ['gone from /proc between the two looks', `${pid} 100`, undefined, false],
    ['a pid no process has', '2147483646 100', { state: 'S', startTime: '100' }, false],
    ['garbage', 'x', { state: 'S', startTime: '100' }, false],
  ])('%s', async (_name, recorded, stat, expected) => {
    expect(await isRunning(recorded, reads(stat))).toBe(expected);
  });
});
