import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { EmulatorWorkerData, EmulatorWorkerMessage } from './emulator-worker';

/** Every emulator binds here; nothing is exposed beyond the machine. */
export const EMULATOR_HOST = '127.0.0.1';

export interface Emulators {
  dynamodb: { endpoint: string };
  sqs: { endpoint: string };
  s3: { endpoint: string };
  close(): Promise<void>;
}

export interface EmulatorPorts {
  dynamodb?: number;
  sqs?: number;
  s3?: number;
}

/**
 * Starts dynalite, local-aws-sqs and s3rver in a worker thread. On the gateway's event loop they
 * took as much CPU as the SDK calls made to them and starved the deliveries; on their own thread
 * they use the second core. A thread, not a child process: whatever kills the gateway (Ctrl-C,
 * kill -9) ends the emulators with it, and nothing is left listening or holding the data dir.
 */
export async function startEmulators(dataDir: string, ports: EmulatorPorts = {}): Promise<Emulators> {
  const data: EmulatorWorkerData = { host: EMULATOR_HOST, dataDir, ports };
  const worker = new Worker(new URL('./emulator-worker.ts', import.meta.url), { workerData: data });
  let closing: Promise<void> | undefined;
  const exited = once(worker, 'exit').then(([code]) => code as number);
  let message: EmulatorWorkerMessage;
  try {
    // events.once rejects when the worker emits 'error' first (it throws while starting).
    message = await Promise.race([
      once(worker, 'message').then(([first]) => first as EmulatorWorkerMessage),
      exited.then((code): EmulatorWorkerMessage => ({ type: 'failed', message: `the emulator thread exited with ${code}` })),
    ]);
  } catch (err) {
    await worker.terminate();
    throw err;
  }
  if (message.type !== 'ready') {
    await worker.terminate();
    const err = new Error(message.type === 'failed' ? message.message : 'emulators failed to start');
    if (message.type === 'failed' && message.stack) err.stack = message.stack;
    throw err;
  }
  worker.on('error', (err) => console.error('[hookgate local] the emulator thread failed:', err));
  void exited.then((code) => {
    if (!closing) console.error(`[hookgate local] the emulator thread stopped (exit code ${code}); restart the gateway`);
  });
  const close = async (): Promise<void> => {
    worker.postMessage({ type: 'close' });
    await Promise.race([once(worker, 'message'), exited]);
    await worker.terminate();
  };
  return {
    dynamodb: { endpoint: message.endpoints.dynamodb },
    sqs: { endpoint: message.endpoints.sqs },
    s3: { endpoint: message.endpoints.s3 },
    close: () => (closing ??= close()),
  };
}
