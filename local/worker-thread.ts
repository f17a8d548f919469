import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { getHeapStatistics, setFlagsFromString, type HeapInfo } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';

/** The first message a worker of ours sends: it started, or why not. */
export type WorkerStartMessage<Ready> = ({ type: 'ready' } & Ready) | { type: 'failed'; message: string; stack?: string };

export interface StartedWorker<Ready> {
  ready: Ready;
  worker: Worker;
  /** Sends `{type: 'heap'}` and resolves with the heap the worker answers with (see heapAfterGc). */
  heap(): Promise<HeapInfo>;
  /**
   * Sends `{type: 'close'}`, waits for the worker's `{type: 'closed'}` (it has let go of what it held)
   * or its exit, then terminates it. Safe to call more than once.
   */
  close(): Promise<void>;
}

/** The worker's next message of this type; rejects if the worker exits first. */
function reply<T extends { type: string }>(worker: Worker, type: T['type']): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: T) => {
      if (message?.type !== type) return;
      stop();
      resolve(message);
    };
    const onExit = (code: number) => {
      stop();
      reject(new Error(`the worker exited with ${code} before it answered ${type}`));
    };
    const stop = () => {
      worker.off('message', onMessage);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.on('exit', onExit);
  });
}

/**
 * Starts a worker thread and waits for its first message. A thread, not a child process: whatever
 * kills the gateway (Ctrl-C, kill -9) ends the thread with it, and nothing is left listening or
 * holding the data dir. After start-up, an unplanned exit is logged under `name`. With
 * `consoleOutput`, what the worker writes to stdout and stderr goes line by line through this
 * thread's console, where whoever runs the gateway (a test runner) may filter or capture it.
 */
export async function startWorker<Ready extends object>(
  url: URL,
  workerData: unknown,
  name: string,
  options: { consoleOutput?: boolean } = {},
): Promise<StartedWorker<Ready>> {
  const output = options.consoleOutput === true;
  const worker = new Worker(url, { workerData, stdout: output, stderr: output });
  if (output) {
    createInterface({ input: worker.stdout, crlfDelay: Infinity }).on('line', (line) => console.log(line));
    createInterface({ input: worker.stderr, crlfDelay: Infinity }).on('line', (line) => console.error(line));
  }
  let closing: Promise<void> | undefined;
  const exited = once(worker, 'exit').then(([code]) => code as number);
  let message: WorkerStartMessage<Ready>;
  try {
    // events.once rejects when the worker emits 'error' first (it throws while starting).
    message = await Promise.race([
      once(worker, 'message').then(([first]) => first as WorkerStartMessage<Ready>),
      exited.then((code): WorkerStartMessage<Ready> => ({ type: 'failed', message: `the ${name} thread exited with ${code}` })),
    ]);
  } catch (err) {
    await worker.terminate();
    throw err;
  }
  if (message.type !== 'ready') {
    await worker.terminate();
    const err = new Error(message.message);
    if (message.stack) err.stack = message.stack;
    throw err;
  }
  worker.on('error', (err) => console.error(`[hookgate local] the ${name} thread failed:`, err));
  void exited.then((code) => {
    if (!closing) console.error(`[hookgate local] the ${name} thread stopped (exit code ${code}); restart the gateway`);
  });
  const close = async (): Promise<void> => {
    worker.postMessage({ type: 'close' });
    await Promise.race([reply(worker, 'closed'), exited]).catch(() => undefined);
    await worker.terminate();
  };
  let stopped = false;
  void exited.then(() => (stopped = true));
  const heap = async (): Promise<HeapInfo> => {
    if (stopped) throw new Error(`the ${name} thread has stopped`);
    const answer = reply<{ type: 'heap'; heap: HeapInfo }>(worker, 'heap');
    worker.postMessage({ type: 'heap' });
    return (await answer).heap;
  };
  return { ready: message, worker, heap, close: () => (closing ??= close()) };
}

/** How a worker reports an error thrown while starting. */
export function failedMessage(reason: unknown): { type: 'failed'; message: string; stack?: string } {
  const err = reason instanceof Error ? reason : new Error(String(reason));
  return { type: 'failed', message: err.message, stack: err.stack };
}

let collectGarbage: (() => void) | undefined;

/**
 * This thread's V8 heap right after a full garbage collection: what a soak compares over time, free of
 * the garbage of the moment (which swings by a hundred megabytes under load). Node runs without
 * --expose-gc; set now, the flag reaches contexts created from now on, and one such context hands
 * out its `gc`.
 */
export function heapAfterGc(): HeapInfo {
  if (!collectGarbage) {
    setFlagsFromString('--expose-gc');
    collectGarbage = runInNewContext('gc') as () => void;
  }
  collectGarbage();
  return getHeapStatistics();
}
