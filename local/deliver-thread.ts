/**
 * The deliver function on a thread of its own: its SQS poller and the real deliver handler, with their
 * own module instances, caches and AWS SDK clients talking to the emulators over HTTP, as the deliver
 * Lambda is a process of its own in AWS. On the gateway's event loop, deliveries and ingest took
 * turns on one core (the SDK calls of both were most of it); apart, they use two (bench e2e on 2
 * cores: 81-97 delivered/s, p99 1.4-1.6 s before; 98-119/s, p99 0.9-1.1 s after).
 *
 * `startDeliverThread` runs in the gateway's thread; `runDeliverThread` in the worker, where
 * local/deliver-worker.ts loads this file.
 */
import type { HeapInfo } from 'node:v8';
import type { MessagePort, Worker } from 'node:worker_threads';
import { SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_CREDENTIALS, LOCAL_REGION, skipSigning } from './aws-clients';
import { countCallsIfEnabled } from './call-counts';
import { meterPartitionLoadIfEnabled } from './partition-load';
import { importHandlers, skipHandlerSigning, type SqsHandler } from './handlers';
import { startSqsPoller, validBatchSize, type SqsPoller, type SqsPollerOptions } from './sqs-poller';
import { failedMessage, heapAfterGc, startWorker } from './worker-thread';
import { enforceIam } from './iam/enforce';
import { returnItemsOnConditionFailure } from './condition-returns';
import { runAs } from './sdk-hooks';
import { applyThrottles, throttleRulesFromEnv } from './throttles';
import type { LocalIam } from './iam/roles';

/** What the gateway hands the thread; its environment is the gateway's, copied when it starts. */
export type DeliverThreadData = Omit<SqsPollerOptions, 'client' | 'handler' | 'log'> & { sqsEndpoint: string; iam: LocalIam };

export async function startDeliverThread(data: DeliverThreadData): Promise<SqsPoller & { thread: Worker; heap(): Promise<HeapInfo> }> {
  // The handler's log lines and metric documents go where the other handlers' go: this thread's console.
  const { worker, close, heap } = await startWorker(new URL('./deliver-worker.ts', import.meta.url), data, 'deliver', { consoleOutput: true });
  return { stop: close, thread: worker, heap, setBatchSize: (size) => worker.postMessage({ type: 'batch-size', size: validBatchSize(size) }) };
}

export async function runDeliverThread(port: MessagePort, data: DeliverThreadData): Promise<void> {
  let deliver: SqsHandler | undefined;
  try {
    ({ deliver } = await importHandlers(['deliver']));
    if (!deliver) throw new Error('lambdas/handlers/deliver.ts is missing');
    skipHandlerSigning();
    enforceIam(data.iam);
    applyThrottles(throttleRulesFromEnv());
    returnItemsOnConditionFailure();
  } catch (err) {
    port.postMessage(failedMessage(err));
    return;
  }
  const { sqsEndpoint, iam: _, ...options } = data;
  const client = new SQSClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: sqsEndpoint });
  skipSigning(client);
  countCallsIfEnabled('deliver', client);
  meterPartitionLoadIfEnabled('deliver');
  const handler = deliver;
  // The event source mapping receives and deletes with the deliver function's role.
  const poller = runAs(options.functionName ?? 'hookgate-deliver', () => startSqsPoller({ ...options, client, handler }));
  port.on('message', (message: { type: string; size?: number }) => {
    if (message.type === 'batch-size' && message.size !== undefined) {
      poller.setBatchSize(message.size);
    } else if (message.type === 'heap') {
      port.postMessage({ type: 'heap', heap: heapAfterGc() });
    } else if (message.type === 'close') {
      void poller.stop().then(() => {
        client.destroy();
        port.postMessage({ type: 'closed' });
      });
    }
  });
  port.postMessage({ type: 'ready' });
}
