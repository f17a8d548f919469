import { once } from 'node:events';
import { readlinkSync } from 'node:fs';
import { getPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';

const threadId = () => Number(readlinkSync('/proc/thread-self').split('/').pop());

// In a worker, so that the test's own thread keeps its priority. thread-priority.ts imports only
// node: modules, so the worker loads it as it is.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { readlinkSync } = require('node:fs');
const { getPriority } = require('node:os');
(async () => {
  const { niceThisThread } = await import(workerData.module);
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  const before = getPriority(tid);
  niceThisThread(3);
  const once = getPriority(tid);
  niceThisThread(3);
  parentPort.postMessage({ before, once, twice: getPriority(tid) });
})();
`;

describe.runIf(process.platform === 'linux')('niceThisThread', () => {
  it('lowers the priority of the calling thread only, and only once', async () => {
    const mine = getPriority(threadId());
    const module = new URL('../../local/thread-priority.ts', import.meta.url).href;
    const worker = new Worker(WORKER, { eval: true, workerData: { module } });
    const [seen] = (await once(worker, 'message')) as [{ before: number; once: number; twice: number }];
    await worker.terminate();

    expect(seen.once).toBe(Math.min(19, seen.before + 3));
    expect(seen.twice).toBe(seen.once);
    expect(getPriority(threadId())).toBe(mine);
  });
});
