/**
 * Entry of the deliver thread (local/deliver-thread.ts). Node loads this file as it is, type-stripped,
 * whether or not the gateway runs under tsx (vitest does not): tsx then loads the handler's module
 * graph, whose imports carry no file extensions.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';
import type { DeliverThreadData, runDeliverThread } from './deliver-thread';

if (parentPort) {
  const thread = (await tsImport('./deliver-thread.ts', import.meta.url)) as { runDeliverThread: typeof runDeliverThread };
  await thread.runDeliverThread(parentPort, workerData as DeliverThreadData);
}
