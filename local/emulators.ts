import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import dynalite from 'dynalite';
import { createRequestHandler } from 'local-aws-sqs';
import S3rver from 's3rver';

/** Every emulator binds here; nothing is exposed beyond the machine. */
export const EMULATOR_HOST = '127.0.0.1';

export interface Emulator {
  endpoint: string;
  close(): Promise<void>;
}

export interface Emulators {
  dynamodb: Emulator;
  sqs: Emulator;
  s3: Emulator;
  close(): Promise<void>;
}

export interface EmulatorPorts {
  dynamodb?: number;
  sqs?: number;
  s3?: number;
}

function endpointOf(address: AddressInfo | string | null): string {
  if (address === null || typeof address === 'string') throw new Error('emulator is not listening on TCP');
  return `http://${EMULATOR_HOST}:${address.port}`;
}

function listen(server: Server, port: number): Promise<AddressInfo | string | null> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, EMULATOR_HOST, () => {
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

/** DynamoDB (dynalite) persisted in LevelDB under `<dataDir>/dynamodb`. */
export async function startDynamoDb(dataDir: string, port = 0): Promise<Emulator> {
  const path = join(dataDir, 'dynamodb');
  await mkdir(path, { recursive: true });
  // Tables become ACTIVE at once: nothing waits half a second per start.
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const endpoint = endpointOf(await listen(server, port));
  return { endpoint, close: () => closeServer(server) };
}

/**
 * SQS (local-aws-sqs). In memory only: the package has no persistence option, so queued messages
 * are lost on restart; the sweeper re-enqueues events left without a live message.
 */
export async function startSqs(port = 0): Promise<Emulator> {
  // createSqsServer() never rejects when listen fails, so serve its request handler ourselves.
  const { service, requestHandler } = createRequestHandler({
    port,
    hostname: EMULATOR_HOST,
    // A restart never deletes queues, and tests must not wait 60 s to recreate one.
    emulateQueueCreationLifecycle: false,
  });
  const server = createServer((req, res) => void requestHandler(req, res));
  const endpoint = endpointOf(await listen(server, port));
  // Queue URLs are built from this; with port 0 it must be the port actually bound.
  service.PORT = Number(new URL(endpoint).port);
  return { endpoint, close: () => closeServer(server) };
}

/** S3 (s3rver) persisted as plain files under `<dataDir>/s3`. */
export async function startS3(dataDir: string, port = 0): Promise<Emulator> {
  const directory = join(dataDir, 's3');
  await mkdir(directory, { recursive: true });
  const server = new S3rver({ address: EMULATOR_HOST, port, directory, silent: true });
  const endpoint = endpointOf(await server.run());
  return { endpoint, close: () => server.close() };
}

export async function startEmulators(dataDir: string, ports: EmulatorPorts = {}): Promise<Emulators> {
  const results = await Promise.allSettled([
    startDynamoDb(dataDir, ports.dynamodb),
    startSqs(ports.sqs),
    startS3(dataDir, ports.s3),
  ]);
  const started = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const closeAll = async (): Promise<void> => {
    await Promise.allSettled(started.map((emulator) => emulator.close()));
  };
  const [dynamodb, sqs, s3] = results;
  if (dynamodb?.status !== 'fulfilled' || sqs?.status !== 'fulfilled' || s3?.status !== 'fulfilled') {
    await closeAll();
    const failed = results.find((r) => r.status === 'rejected');
    throw failed?.reason ?? new Error('emulators failed to start');
  }
  return { dynamodb: dynamodb.value, sqs: sqs.value, s3: s3.value, close: closeAll };
}
