import type { HeapInfo } from 'node:v8';
import type { Worker } from 'node:worker_threads';
import type { EmulatorWorkerData, EmulatorWorkerMessage } from './emulator-worker';
import { startWorker } from './worker-thread';

/** Every emulator binds here; nothing is exposed beyond the machine. */
const EMULATOR_HOST = '127.0.0.1';

export interface Emulators {
  dynamodb: { endpoint: string };
  sqs: { endpoint: string };
  s3: { endpoint: string };
  thread: Worker;
  /** The thread's V8 heap after a full collection. */
  heap(): Promise<HeapInfo>;
  close(): Promise<void>;
}

type Endpoints = Extract<EmulatorWorkerMessage, { type: 'ready' }>['endpoints'];

export interface EmulatorPorts {
  dynamodb?: number;
  sqs?: number;
  s3?: number;
}

/**
 * Starts dynalite, local-aws-sqs and s3rver in a worker thread. On the gateway's event loop they
 * took as much CPU as the SDK calls made to them and starved the deliveries; on their own thread
 * they use another core.
 */
export async function startEmulators(dataDir: string, ports: EmulatorPorts = {}): Promise<Emulators> {
  const data: EmulatorWorkerData = { host: EMULATOR_HOST, dataDir, ports };
  const { ready, worker, heap, close } = await startWorker<{ endpoints: Endpoints }>(new URL('./emulator-worker.ts', import.meta.url), data, 'emulator');
  return {
    dynamodb: { endpoint: ready.endpoints.dynamodb },
    sqs: { endpoint: ready.endpoints.sqs },
    s3: { endpoint: ready.endpoints.s3 },
    thread: worker,
    heap,
    close,
  };
}
