/**
 * The emulators' thread: dynalite, local-aws-sqs and s3rver with their HTTP servers, on an event loop
 * (and so a core) of their own, away from the handlers and the poller. Started by local/emulators.ts.
 * It imports no file of ours, so Node loads it with or without tsx (Node 24 strips the types).
 */
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { getHeapStatistics, setFlagsFromString, type HeapInfo } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import dynalite from 'dynalite';
import { Level } from 'level';
import { createRequestHandler } from 'local-aws-sqs';
import S3rver from 's3rver';

/** What local/emulators.ts hands the worker. */
export interface EmulatorWorkerData {
  host: string;
  dataDir: string;
  ports: { dynamodb?: number; sqs?: number; s3?: number };
}

/** What the worker answers: once `ready` (or `failed`), `closed` after a `close` message and `heap` after a `heap` one. */
export type EmulatorWorkerMessage =
  | { type: 'ready'; endpoints: { dynamodb: string; sqs: string; s3: string } }
  | { type: 'failed'; message: string; stack?: string }
  | { type: 'closed' }
  | { type: 'heap'; heap: HeapInfo };

interface Running {
  endpoint: string;
  close(): Promise<void>;
}

function endpointOf(host: string, address: AddressInfo | string | null): string {
  if (address === null || typeof address === 'string') throw new Error('emulator is not listening on TCP');
  return `http://${host}:${address.port}`;
}

function listen(server: Server, host: string, port: number): Promise<AddressInfo | string | null> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address());
    });
  });
}

/** Closes a server without waiting on the SDK's kept-alive sockets. */
function closeServer(server: Server, graceMs = 2_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close((err) => {
      clearTimeout(force);
      if (err) reject(err);
      else resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * dynalite reads each Query and Scan through a level iterator, which it closes with `return()` once
 * its stream has ended or been cut short (a Limit); abstract-level's iterators have only `close()`,
 * so none was ever closed. Each stayed in the database's set of open resources and held LevelDB's
 * memtables and table files of its moment: at 20 events/s, over 9,000 open iterators within 4
 * minutes, and the gateway's resident memory growing 100 MB a minute. Exported for its test.
 */
export function closeLevelIteratorsOnReturn(): void {
  for (const method of ['keys', 'values'] as const) {
    const open = Level.prototype[method] as (this: Level, ...args: unknown[]) => { close(): Promise<void> };
    Object.defineProperty(Level.prototype, method, {
      configurable: true,
      writable: true,
      value: function (this: Level, ...args: unknown[]) {
        const iterator = open.apply(this, args);
        return Object.assign(iterator, { return: () => iterator.close() });
      },
    });
  }
}

/** DynamoDB (dynalite) persisted in LevelDB under `<dataDir>/dynamodb`. */
async function startDynamoDb(host: string, dataDir: string, port = 0): Promise<Running> {
  closeLevelIteratorsOnReturn();
  const path = join(dataDir, 'dynamodb');
  await mkdir(path, { recursive: true });
  // Tables become ACTIVE at once: nothing waits half a second per start.
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const endpoint = endpointOf(host, await listen(server, host, port));
  return { endpoint, close: () => closeServer(server) };
}

/**
 * SQS (local-aws-sqs). In memory only: the package has no persistence option, so queued messages
 * are lost on restart; the gateway gives unsettled deliveries their messages back (queue-restore.ts).
 */
async function startSqs(host: string, port = 0): Promise<Running> {
  // createSqsServer() never rejects when listen fails, so serve its request handler ourselves.
  const { service, requestHandler } = createRequestHandler({
    port,
    hostname: host,
    // A restart never deletes queues, and tests must not wait 60 s to recreate one.
    emulateQueueCreationLifecycle: false,
  });
  const server = createServer((req, res) => void requestHandler(req, res));
  const endpoint = endpointOf(host, await listen(server, host, port));
  // Queue URLs are built from this; with port 0 it must be the port actually bound.
  service.PORT = Number(new URL(endpoint).port);
  return { endpoint, close: () => closeServer(server) };
}

/** S3 (s3rver) persisted as plain files under `<dataDir>/s3`. */
async function startS3(host: string, dataDir: string, port = 0): Promise<Running> {
  const directory = join(dataDir, 's3');
  await mkdir(directory, { recursive: true });
  const server = new S3rver({ address: host, port, directory, silent: true });
  const endpoint = endpointOf(host, await server.run());
  return { endpoint, close: () => server.close() };
}

let collectGarbage: (() => void) | undefined;

/** As local/worker-thread.ts's heapAfterGc, which this file cannot import (see above). */
function heapAfterGc(): HeapInfo {
  if (!collectGarbage) {
    setFlagsFromString('--expose-gc');
    collectGarbage = runInNewContext('gc') as () => void;
  }
  collectGarbage();
  return getHeapStatistics();
}

async function main(port: NonNullable<typeof parentPort>, { host, dataDir, ports }: EmulatorWorkerData): Promise<void> {
  const send = (message: EmulatorWorkerMessage) => port.postMessage(message);
  const results = await Promise.allSettled([
    startDynamoDb(host, dataDir, ports.dynamodb),
    startSqs(host, ports.sqs),
    startS3(host, dataDir, ports.s3),
  ]);
  const started = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const closeAll = async () => {
    await Promise.allSettled(started.map((emulator) => emulator.close()));
  };
  port.on('message', (message: { type: string }) => {
    if (message.type === 'close') void closeAll().then(() => send({ type: 'closed' }));
    else if (message.type === 'heap') send({ type: 'heap', heap: heapAfterGc() });
  });
  const [dynamodb, sqs, s3] = results;
  if (dynamodb?.status !== 'fulfilled' || sqs?.status !== 'fulfilled' || s3?.status !== 'fulfilled') {
    await closeAll();
    const reason: unknown = results.find((r) => r.status === 'rejected')?.reason;
    const err = reason instanceof Error ? reason : new Error(String(reason ?? 'emulators failed to start'));
    send({ type: 'failed', message: err.message, stack: err.stack });
    return;
  }
  send({ type: 'ready', endpoints: { dynamodb: dynamodb.value.endpoint, sqs: sqs.value.endpoint, s3: s3.value.endpoint } });
}

if (parentPort) await main(parentPort, workerData as EmulatorWorkerData);
