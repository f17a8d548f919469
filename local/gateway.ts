import { mkdir } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HeapInfo } from 'node:v8';
import type { Worker } from 'node:worker_threads';
import { resolve } from 'node:path';
import { DELIVERY_QUEUE, ENV } from '../lambdas/shared/resource-definitions';
import { deliveryLeaseSeconds } from '../lambdas/shared/config';
import { accountTries, borrowedTries } from '../lambdas/domain/max-in-flight';
import { LAMBDA_PAYLOAD_LIMIT_BYTES } from '../lambdas/domain/payload-limits';
import { toApiGatewayEvent, writeApiGatewayResult } from './apigw-event';
import { createLocalClients, LOCAL_ACCOUNT_ID, LOCAL_REGION, type EmulatorEndpoints } from './aws-clients';
import { startEmulators, type EmulatorPorts, type Emulators } from './emulators';
import { applyEnv, handlerEnv } from './handler-env';
import { importHandlers, skipHandlerSigning, type GatewayHandlers, type ScheduledHandler } from './handlers';
import { lockDataDir } from './data-dir-lock';
import { repairIndexes } from './index-repair';
import { startLambdaInvokeEmulator, type LambdaInvokeEmulator } from './lambda-invoke';
import { invokeFunction } from './lambda-context';
import { readBody } from './read-body';
import { ensureResources, type LocalResources } from './resources';
import { resolveRoute } from './routes';
import { scheduledEvent, startSchedule, type Schedule } from './schedules';
import { restoreQueue } from './queue-restore';
import { startSqsPoller, type SqsPoller } from './sqs-poller';
import { startDeliverThread } from './deliver-thread';
import { niceThisThread } from './thread-priority';
import { countCallsIfEnabled } from './call-counts';
import { enforceIam } from './iam/enforce';
import { returnItemsOnConditionFailure } from './condition-returns';
import { startLocalKms, type LocalKms } from './kms';
import { runAs } from './sdk-hooks';
import { applyThrottles, throttleRulesFromEnv, THROTTLES_ENV, type ThrottleRule } from './throttles';
import { meterPartitionLoadIfEnabled } from './partition-load';
import { localIam, synthesiseStacks, type LocalIam, type SynthOptions } from './iam/roles';
import { startListenServer, type ListenLimits, type ListenServer } from './listen-server';
import { heapAfterGc } from './worker-thread';

export type { ApiHandler, GatewayHandlers, ScheduledHandler, SqsHandler } from './handlers';

export const DEFAULT_PORT = 3000;
export const DEFAULT_DATA_DIR = '.hookgate';
const HOST = '127.0.0.1';
/** The name the export worker answers to on the local Lambda invoke endpoint. */
const EXPORT_FUNCTION = 'hookgate-export';
/** API Gateway's integration timeout; only feeds context.getRemainingTimeInMillis. */
const API_TIMEOUT_MS = 30_000;
/**
 * How much lower than the deliver and emulator threads the HTTP thread runs. In AWS, ingest and
 * deliver functions each have CPU of their own; here they share the machine's cores, and at equal
 * priority a burst of ingest takes the cores deliveries need: the backlog, and with it the delivery
 * latency, grows for as long as the burst lasts (50 clients for 30 s: 146 accepted/s, 111 delivered/s,
 * p99 7.4 s on 2 cores). A few steps of niceness let deliveries keep pace, and ingest slows to what is
 * left (135 and 134/s, p99 0.97 s). Only when the cores are short: an idle core is used all the same.
 */
const DELIVERY_FIRST_NICE = 4;
const ALL_BUT_DELIVER: (keyof GatewayHandlers)[] = ['api', 'ingest', 'exportWorker', 'sweeper', 'listen'];

export interface GatewayOptions {
  /** HTTP port; 0 picks a free one. Default 3000. */
  port?: number;
  /** The `hookgate listen` WebSocket port; 0 picks a free one. Default the HTTP port + 1 (a free one when that is 0). */
  listenPort?: number;
  /** When the listen server closes a connection: API Gateway's limits (10 minutes idle, 2 hours) unless tests shorten them. */
  listenLimits?: ListenLimits;
  /** Where the emulators keep their data. Default `.hookgate` (relative to the working directory). */
  dataDir?: string;
  /** Base of ingest URLs. Default the local base URL. */
  publicUrl?: string;
  /** Set on process.env after the computed variables, so these win. */
  env?: Record<string, string>;
  /** When given, exactly these handlers run, all in this thread, and none is imported from lambdas/handlers. */
  handlers?: GatewayHandlers;
  /**
   * Without `handlers`: run the SQS poller and the deliver handler on a thread of their own (their own
   * module instances, caches and SDK clients, as a separate Lambda function has), and lower the
   * priority of the calling thread, which serves HTTP and runs ingest (see DELIVERY_FIRST_NICE).
   * Default true; tests that reach into the deliver handler's modules from this thread (fault
   * injection, mocks) turn it off.
   */
  deliverThread?: boolean;
  /**
   * Without `handlers`: false runs no deliver function at all, so deliveries wait in the queue, as in a
   * deployment whose deliver function is stopped (what `hookgate smoke` must catch). Default true.
   */
  deliver?: boolean;
  /** Fixed emulator ports; free ones otherwise. */
  emulatorPorts?: EmulatorPorts;
  /** Where the start-up line goes. Default console.log. */
  log?: (line: string) => void;
  /**
   * Delivery batches run at once. Default the deliver event source mapping's maxConcurrency, as in AWS;
   * tests lower it to reach the limit with a few messages.
   */
  deliverConcurrency?: number;
  /**
   * The stack the functions' roles are read from (local/iam): every AWS call a function makes is
   * authorised against its role, as in AWS. Give the deployment's AWS destination targets here, or
   * change the stack (a test drops a grant). Default: the stack as `cdk deploy` builds it, with the
   * deliver role granted the developer's own queues and buckets on the emulators (`emulatorTargets`).
   */
  stack?: SynthOptions;
  /** Calls to answer as a throttled AWS service would (local/throttles.ts); HOOKGATE_LOCAL_THROTTLES otherwise. */
  throttles?: ThrottleRule[];
}

export interface Gateway {
  url: string;
  /** Where `hookgate listen` connects (the API hands it out as `websocket_url`). */
  listenUrl: string;
  port: number;
  dataDir: string;
  endpoints: EmulatorEndpoints;
  resources: LocalResources;
  /**
   * Settles once the start-up runs of the schedules (the first sweep) have ended: a test that writes
   * events behind the API's back waits for it, or races them.
   */
  startupRuns: Promise<void>;
  /** The gateway's worker threads, to read their CPU and event-loop use (bench/e2e-gateway.ts). */
  threads: { emulators: Worker; deliver?: Worker };
  /**
   * Each thread's V8 heap right after a full garbage collection, for a soak to compare over time
   * (bench/soak.ts): `main` (HTTP, ingest, the API, the schedules), `emulators`, and `deliver` when
   * it has a thread of its own.
   */
  heaps(): Promise<ThreadHeaps>;
  /**
   * The deliver event source mapping's BatchSize from now on (DELIVERY_QUEUE.batchSize at start), as
   * UpdateEventSourceMapping sets it: the benchmark prices batches of 1 and 3, what the mapping hands
   * the function at low and moderate traffic.
   */
  setDeliverBatchSize(size: number): void;
  close(): Promise<void>;
}

export interface ThreadHeaps {
  main: HeapInfo;
  emulators: HeapInfo;
  deliver?: HeapInfo;
}

interface Background {
  poller?: SqsPoller;
  schedules: Schedule[];
}

function sendError(res: ServerResponse, statusCode: number, error: string, durationMs: number): void {
  const body = JSON.stringify({ error, duration_ms: durationMs });
  res.writeHead(statusCode, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** What Lambda counts against its limit: the event or the result, serialized as JSON. */
const lambdaPayloadBytes = (payload: unknown): number => Buffer.byteLength(JSON.stringify(payload) ?? '', 'utf8');

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolvePort, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => {
      server.off('error', reject);
      resolvePort((server.address() as AddressInfo).port);
    });
  });
}

/** Lets requests in flight finish, but not for ever: a kept-alive client must not block shutdown. */
function closeServer(server: Server, graceMs = 10_000): Promise<void> {
  return new Promise((done) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(force);
      done();
    });
    server.closeIdleConnections();
  });
}

/** Serves the HTTP API's two routes (`POST /ingest/{token}`, `ANY /{proxy+}`) with Lambda semantics. */
function createRequestListener(state: { handlers?: GatewayHandlers }) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const startedAt = Date.now();
    const { handlers } = state;
    if (!handlers) return sendError(res, 503, 'Service unavailable', 0);
    const read = await readBody(req);
    if (!read.ok) {
      // The rest of the upload is not read, so this connection cannot be reused.
      res.setHeader('connection', 'close');
      return sendError(res, 413, 'request body too large', 0);
    }
    const route = resolveRoute(req.method ?? 'GET', (req.url ?? '/').split('?')[0] ?? '/');
    const handler = route && (route.target === 'ingest' ? handlers.ingest : handlers.api);
    if (!route || !handler) return sendError(res, 404, 'Not found', 0);
    const event = toApiGatewayEvent(req, read.body, route);
    // Lambda refuses an event over its limit before the function runs; API Gateway answers 413.
    if (lambdaPayloadBytes(event) > LAMBDA_PAYLOAD_LIMIT_BYTES) return sendError(res, 413, 'request body too large', Date.now() - startedAt);
    try {
      const result = await invokeFunction(`hookgate-${route.target}`, API_TIMEOUT_MS, (context) => handler(event, context));
      if (lambdaPayloadBytes(result) > LAMBDA_PAYLOAD_LIMIT_BYTES) {
        // In AWS the invocation fails (Function.ResponseSizeTooLarge) and API Gateway answers 502.
        console.error(`[hookgate local] ${route.target} response over Lambda's ${LAMBDA_PAYLOAD_LIMIT_BYTES} bytes on ${event.routeKey} (${event.rawPath})`);
        return sendError(res, 502, 'Bad gateway', Date.now() - startedAt);
      }
      writeApiGatewayResult(res, result);
    } catch (err) {
      console.error(`[hookgate local] ${route.target} handler failed on ${event.routeKey} (${event.rawPath}):`, err);
      if (res.headersSent) res.destroy();
      else sendError(res, 500, 'Internal server error', Date.now() - startedAt);
    }
  };
}

function intervalMs(name: string, defaultSeconds: number): number {
  const seconds = Number(process.env[name] ?? defaultSeconds);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : defaultSeconds) * 1000;
}

function runScheduled(name: string, handler: ScheduledHandler, everyMs: number): Schedule {
  return startSchedule(name, () => invokeFunction(name, 15 * 60_000, (context) => handler(scheduledEvent(name), context)), everyMs);
}

/** The deliver event source mapping's settings, pointed at the local queue. */
function deliverPolling(resources: LocalResources, deliverConcurrency: number) {
  return {
    queueUrl: resources.deliveryQueueUrl,
    queueArn: resources.deliveryQueueArn,
    batchSize: DELIVERY_QUEUE.batchSize,
    functionName: 'hookgate-deliver',
    // The deliver function's timeout is its tries' lease (HOOKGATE_DELIVERY_LEASE_SECONDS where a test sets a shorter one).
    timeoutMs: deliveryLeaseSeconds(process.env) * 1000,
    visibilityTimeoutMs: DELIVERY_QUEUE.visibilityTimeoutSeconds * 1000,
    concurrency: deliverConcurrency,
  };
}

function startSchedules(handlers: GatewayHandlers): Schedule[] {
  const schedules: Schedule[] = [];
  if (handlers.exportWorker) {
    const every = intervalMs('SCHEDULER_EXPORT_POLL_INTERVAL', 30);
    schedules.push(runScheduled('hookgate-export', handlers.exportWorker, every));
  }
  if (handlers.sweeper) {
    const every = intervalMs('SCHEDULER_RETENTION_INTERVAL', 3600);
    schedules.push(runScheduled('hookgate-sweeper', handlers.sweeper, every));
  }
  return schedules;
}

/** The functions' roles on the local resources. */
async function loadIam(resources: LocalResources, signingKeysKeyArn: string, stack: SynthOptions | undefined): Promise<LocalIam> {
  const account = resources.deliveryQueueArn.split(':')[4];
  if (account !== LOCAL_ACCOUNT_ID) throw new Error(`the local queue's ARN names account ${account}, not ${LOCAL_ACCOUNT_ID}: ${resources.deliveryQueueArn}`);
  return localIam(await synthesiseStacks(stack), { account, region: LOCAL_REGION, ...resources, signingKeysKeyArn }, { emulatorTargets: stack?.emulatorTargets ?? true });
}

/**
 * Starts the emulators, creates the resources, sets the handlers' environment, imports the
 * handlers and serves HTTP. One gateway per process: handlers read process.env once.
 */
export async function startGateway(opts: GatewayOptions = {}): Promise<Gateway> {
  const dataDir = resolve(opts.dataDir ?? DEFAULT_DATA_DIR);
  await mkdir(dataDir, { recursive: true });
  const lock = await lockDataDir(dataDir);
  const unlock = lock.unlock;
  let emulators: Emulators;
  try {
    emulators = await startEmulators(dataDir, opts.emulatorPorts);
  } catch (err) {
    await unlock();
    throw err;
  }
  const endpoints: EmulatorEndpoints = {
    dynamodb: emulators.dynamodb.endpoint,
    sqs: emulators.sqs.endpoint,
    s3: emulators.s3.endpoint,
  };
  const clients = createLocalClients(endpoints);
  const state: { handlers?: GatewayHandlers } = {};
  const listener = createRequestListener(state);
  const server = createServer((req, res) => {
    listener(req, res).catch((err: unknown) => {
      console.error('[hookgate local] request failed:', err);
      if (res.headersSent) res.destroy();
      else sendError(res, 500, 'Internal server error', 0);
    });
  });
  const background: Background = { schedules: [] };
  let invoke: LambdaInvokeEmulator | undefined;
  let kms: LocalKms | undefined;
  let listenServer: ListenServer | undefined;

  const close = async (): Promise<void> => {
    state.handlers = undefined;
    await Promise.all([
      server.listening ? closeServer(server) : Promise.resolve(),
      background.poller?.stop(),
      ...background.schedules.map((schedule) => schedule.stop()),
      invoke?.close(),
      kms?.close(),
      listenServer?.close(),
    ]);
    clients.destroy();
    await emulators.close();
    await unlock();
  };

  try {
    const resources = await ensureResources(clients);
    if (lock.uncleanStop) {
      // dynalite is not crash-atomic between an item and its index entries: mend them before use.
      const repaired = await repairIndexes(clients.dynamodb, resources.tableName);
      if (repaired > 0) console.warn(`[hookgate local] the last gateway on ${dataDir} did not stop cleanly; repaired ${repaired} index entries`);
    }
    invoke = await startLambdaInvokeEmulator(() => ({ [EXPORT_FUNCTION]: state.handlers?.exportWorker }));
    kms = await startLocalKms(dataDir);
    const asked = opts.port ?? DEFAULT_PORT;
    const port = await listen(server, asked);
    const url = `http://${HOST}:${port}`;
    // A port asked for (npm start's 3000) has its listen port beside it; a free one (0, the tests) gets a free one too, never the next one up, which another process may hold.
    listenServer = await startListenServer(opts.listenPort ?? (asked === 0 ? 0 : port + 1), () => state.handlers?.listen, opts.listenLimits);
    applyEnv({
      ...handlerEnv(resources, endpoints, opts.publicUrl ?? url),
      [ENV.listenUrl]: listenServer.url,
      [ENV.listenEndpoint]: listenServer.endpoint,
      AWS_ENDPOINT_URL_LAMBDA: invoke.endpoint,
      AWS_ENDPOINT_URL_KMS: kms.endpoint,
      [ENV.signingKeysKmsKey]: kms.keyArn,
      [ENV.exportFunctionName]: EXPORT_FUNCTION,
      // An account's share of this gateway's deliver batches, as the stack derives it from the mapping's.
      [ENV.accountTries]: String(accountTries(opts.deliverConcurrency ?? DELIVERY_QUEUE.maxConcurrency)),
      [ENV.borrowedTries]: String(borrowedTries(opts.deliverConcurrency ?? DELIVERY_QUEUE.maxConcurrency, accountTries(opts.deliverConcurrency ?? DELIVERY_QUEUE.maxConcurrency))),
      ...opts.env,
      // In the environment, so that the deliver thread, which copies it, throttles the same calls.
      ...(opts.throttles ? { [THROTTLES_ENV]: JSON.stringify(opts.throttles) } : {}),
    });
    applyThrottles(throttleRulesFromEnv());
    returnItemsOnConditionFailure();
    const iam = await loadIam(resources, kms.keyArn, opts.stack);
    enforceIam(iam);
    const restored = await restoreQueue(clients, resources, new Date());
    if (restored > 0) (opts.log ?? console.log)(`[hookgate local] gave ${restored} unsettled deliveries their queue messages back (the local queue keeps none across restarts)`);
    const polling = deliverPolling(resources, opts.deliverConcurrency ?? DELIVERY_QUEUE.maxConcurrency);
    let handlers: GatewayHandlers;
    const threads: Gateway['threads'] = { emulators: emulators.thread };
    let deliverHeap: (() => Promise<HeapInfo>) | undefined;
    if (opts.handlers || opts.deliverThread === false || opts.deliver === false) {
      handlers = opts.handlers ?? (await importHandlers(opts.deliver === false ? ALL_BUT_DELIVER : undefined));
      const { deliver } = handlers;
      // The event source mapping receives and deletes with the deliver function's role.
      if (deliver) background.poller = runAs(polling.functionName, () => startSqsPoller({ ...polling, client: clients.sqs, handler: deliver }));
    } else {
      handlers = await importHandlers(ALL_BUT_DELIVER);
      const deliverThread = await startDeliverThread({ ...polling, sqsEndpoint: endpoints.sqs, iam });
      background.poller = deliverThread;
      threads.deliver = deliverThread.thread;
      deliverHeap = deliverThread.heap;
      niceThisThread(DELIVERY_FIRST_NICE);
    }
    skipHandlerSigning();
    // Ingest, the API and the schedules (and the poller, when it runs on this thread).
    countCallsIfEnabled('main', clients.sqs);
    meterPartitionLoadIfEnabled('main');
    background.schedules = startSchedules(handlers);
    state.handlers = handlers;
    (opts.log ?? console.log)(`Hookgate local gateway listening on ${url} (data in ${dataDir}); hookgate listen connects to ${listenServer.url}`);
    let closing: Promise<void> | undefined;
    const startupRuns = Promise.all(background.schedules.map((schedule) => schedule.firstRun)).then(() => undefined);
    const heaps = async (): Promise<ThreadHeaps> => ({
      main: heapAfterGc(),
      emulators: await emulators.heap(),
      ...(deliverHeap && { deliver: await deliverHeap() }),
    });
    const poller = background.poller;
    const setDeliverBatchSize = (size: number) => {
      if (!poller) throw new Error('no deliver handler runs in this gateway');
      poller.setBatchSize(size);
    };
    return { url, listenUrl: listenServer.url, port, dataDir, endpoints, resources, startupRuns, threads, heaps, setDeliverBatchSize, close: () => (closing ??= close()) };
  } catch (err) {
    await close();
    throw err;
  }
}
