import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';

/** The first message a worker of ours sends: it started, or why not. */
export type WorkerStartMessage<Ready> = ({ type: 'ready' } & Ready) | { type: 'failed'; message: string; stack?: string };

export interface StartedWorker<Ready> {
  ready: Ready;
  worker: Worker;
  /**
   * Sends `{type: 'close'}`, waits for the worker's next message (it has let go of what it held) or
   * its exit, then terminates it. Safe to call more than once.
   */
  close(): Promise<void>;
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
    await Promise.race([once(worker, 'message'), exited]);
    await worker.terminate();
  };
  return { ready: message, worker, close: () => (closing ??= close()) };
}

/** How a worker reports an error thrown while starting. */
export function failedMessage(reason: unknown): { type: 'failed'; message: string; stack?: string } {
  const err = reason instanceof Error ? reason : new Error(String(reason));
  return { type: 'failed', message: err.message, stack: err.stack };
}
