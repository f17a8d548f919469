/**
 * Counts every AWS call the handlers make, by function, service and operation, through SDK middleware
 * on the exact client instances the handlers use (lambdas/adapters/aws-clients.ts, lambdas/store/client.ts), and times every
 * handler invocation. An AsyncLocalStorage tells which function a call or a log line belongs to.
 *
 * DynamoDB units are computed from the items (local/ddb-units.ts) with a shadow copy of the table: the
 * benchmark starts from an empty table and every write goes through this middleware, so the shadow
 * always holds the item a write replaces. UpdateItem's new image is read back when the call did not
 * ask for it. dynalite's own ReturnConsumedCapacity (table only, no indexes) is recorded next to ours.
 * The shadow also gives the bytes each write adds to (or takes from) what the table and its indexes
 * store, which the cost model bills as storage.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { sqsClient } from '../../lambdas/adapters/aws-clients';
import { documentClient } from '../../lambdas/store/client';
import { s3Client } from '../../lambdas/adapters/s3';
import { indexItems, indexWrites, itemCategory, itemSize, keyOf, readUnits, writeUnits } from '../../local/ddb-units';
import { DYNAMO_ITEM_STORAGE_OVERHEAD_BYTES } from '../prices';

type Item = Record<string, unknown>;

export interface Units {
  rru: number;
  wru: number;
}

export interface AwsCall {
  fn: string;
  service: 'dynamodb' | 'sqs' | 's3';
  op: string;
  rru: number;
  wru: number;
  /** Units by item kind ('event status', 'event body', 'gsi1 (list index)', ...). */
  byCategory: Record<string, Units>;
  /** Billed SQS requests (64 KB chunks). */
  sqsRequests: number;
  s3Put: number;
  s3Get: number;
  /** What dynalite reported (table only). */
  dynaliteUnits: number;
  failed: boolean;
}

export interface Invocation {
  fn: string;
  ms: number;
  /** SQS records in the batch (deliver). */
  records?: number;
  /** Records reported in batchItemFailures (deliver). */
  failures?: number;
  /** Bytes of the received messages (deliver), for the modelled ReceiveMessage. */
  receivedBytes?: number;
}

/** Bytes DynamoDB bills as stored (each item's size plus its overhead), in the table and in its indexes. */
export interface StoredBytes {
  table: number;
  indexes: number;
}

export interface LogTally {
  lines: number;
  bytes: number;
  /** Lines that are not JSON: the local runtime's readable log format (JSON in AWS Lambda). */
  textLines: number;
}

const invocationContext = new AsyncLocalStorage<{ fn: string }>();
const currentFunction = (): string => invocationContext.getStore()?.fn ?? 'outside';

const INDEX_LABEL: Record<string, string> = { gsi1: 'gsi1 (list index)', gsi2: 'gsi2 (work index)' };
const SUPPORTS_CAPACITY = new Set(['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'Scan', 'BatchGetItem', 'BatchWriteItem']);

function add(target: Record<string, Units>, category: string, units: Partial<Units>): void {
  const entry = (target[category] ??= { rru: 0, wru: 0 });
  entry.rru += units.rru ?? 0;
  entry.wru += units.wru ?? 0;
}

function dynaliteUnitsOf(output: unknown): number {
  const consumed = (output as { ConsumedCapacity?: unknown } | undefined)?.ConsumedCapacity;
  const list = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  return list.reduce((sum: number, c) => sum + Number((c as { CapacityUnits?: number }).CapacityUnits ?? 0), 0);
}

export class Meter {
  invocations: Invocation[] = [];
  calls: AwsCall[] = [];
  logs = new Map<string, LogTally>();
  /** Sizes of the items written, by kind: count, total and largest bytes. */
  itemSizes = new Map<string, { count: number; bytes: number; max: number }>();
  /**
   * What the writes since the last reset added to the bytes stored (net: an item deleted gives its
   * bytes back), so a scenario's figure is what its webhooks leave in the table for their retention.
   */
  stored: StoredBytes = { table: 0, indexes: 0 };
  /** Invocations running now, by function. */
  readonly inFlight = new Map<string, number>();
  /** When false the middleware passes calls through untouched (no units, no shadow). */
  enabled = true;
  private readonly shadow = new Map<string, Item>();
  private raw?: DynamoDBDocumentClient;
  private installed = false;
  private outputOriginals?: Array<typeof process.stdout.write>;

  reset(): void {
    this.invocations = [];
    this.calls = [];
    this.logs = new Map();
    this.itemSizes = new Map();
    this.stored = { table: 0, indexes: 0 };
  }

  /** Adds the middleware to the handlers' own clients. Call after the gateway has set process.env. */
  install(): void {
    if (this.installed) return;
    this.installed = true;
    this.raw = DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } });
    documentClient().middlewareStack.add(
      (next, context) => async (args) => {
        if (!this.enabled) return next(args);
        const op = String(context.commandName ?? '').replace(/Command$/, '');
        const input = args.input as Item;
        const sent = SUPPORTS_CAPACITY.has(op) ? { ...args, input: { ...input, ReturnConsumedCapacity: 'TOTAL' } } : args;
        const fn = currentFunction();
        try {
          const out = await next(sent as typeof args);
          this.calls.push(await this.dynamoCall(fn, op, input, out.output as Item, false));
          return out;
        } catch (error) {
          this.calls.push(await this.dynamoCall(fn, op, input, undefined, true));
          throw error;
        }
      },
      { step: 'initialize', name: 'benchMeterDynamo', priority: 'high' },
    );
    sqsClient().middlewareStack.add(
      (next, context) => async (args) => {
        if (!this.enabled) return next(args);
        const op = String(context.commandName ?? '').replace(/Command$/, '');
        const call = this.blank(currentFunction(), 'sqs', op);
        call.sqsRequests = sqsChunks(op, args.input as Item);
        try {
          return await next(args);
        } catch (error) {
          call.failed = true;
          throw error;
        } finally {
          this.calls.push(call);
        }
      },
      { step: 'initialize', name: 'benchMeterSqs', priority: 'high' },
    );
    s3Client().middlewareStack.add(
      (next, context) => async (args) => {
        if (!this.enabled) return next(args);
        const op = String(context.commandName ?? '').replace(/Command$/, '');
        const call = this.blank(currentFunction(), 's3', op);
        if (/^(Put|Copy|List|CreateMultipart|UploadPart|CompleteMultipart|Post)/.test(op)) call.s3Put = 1;
        else if (/^(Get|Head|Select)/.test(op)) call.s3Get = 1;
        try {
          return await next(args);
        } finally {
          this.calls.push(call);
        }
      },
      { step: 'initialize', name: 'benchMeterS3', priority: 'high' },
    );
  }

  /**
   * What handlers write to stdout and stderr (log lines, EMF metric documents) goes to the tally of the
   * function that wrote it instead of the terminal. Everything else passes through.
   */
  captureOutput(): void {
    if (this.outputOriginals) return;
    const streams = [process.stdout, process.stderr] as const;
    this.outputOriginals = streams.map((stream) => stream.write);
    for (const stream of streams) {
      const original = stream.write.bind(stream);
      stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        const store = invocationContext.getStore();
        if (!store) return original(chunk as string, ...(rest as []));
        const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
        const tally = this.logs.get(store.fn) ?? { lines: 0, bytes: 0, textLines: 0 };
        for (const line of text.split('\n')) {
          if (line.length === 0) continue;
          tally.lines += 1;
          tally.bytes += Buffer.byteLength(line, 'utf8');
          if (!line.startsWith('{')) tally.textLines += 1;
        }
        this.logs.set(store.fn, tally);
        (rest.find((r) => typeof r === 'function') as (() => void) | undefined)?.();
        return true;
      }) as typeof stream.write;
    }
  }

  releaseOutput(): void {
    if (!this.outputOriginals) return;
    process.stdout.write = this.outputOriginals[0] as typeof process.stdout.write;
    process.stderr.write = this.outputOriginals[1] as typeof process.stderr.write;
    this.outputOriginals = undefined;
  }

  /**
   * Runs a handler as function `fn`: timed, and its AWS calls and logs attributed to it. `exclusive`
   * runs one invocation at a time, as one Lambda execution environment does (the local poller runs
   * two batches at once in one process, which module-level state in a handler may not expect).
   */
  wrap<E, R>(
    fn: string,
    handler: (event: E, context: Context) => Promise<R>,
    options: { exclusive?: boolean } = {},
  ): (event: E, context: Context) => Promise<R> {
    let queue: Promise<unknown> = Promise.resolve();
    const timed = this.timed(fn, handler);
    if (!options.exclusive) return timed;
    return (event, context) => {
      const run = queue.then(() => timed(event, context));
      queue = run.catch(() => undefined);
      return run;
    };
  }

  private timed<E, R>(fn: string, handler: (event: E, context: Context) => Promise<R>): (event: E, context: Context) => Promise<R> {
    return async (event, context) => {
      const started = performance.now();
      const invocation: Invocation = { fn, ms: 0 };
      const records = (event as { Records?: Array<{ body?: string }> } | undefined)?.Records;
      if (Array.isArray(records)) {
        invocation.records = records.length;
        invocation.receivedBytes = records.reduce((sum, r) => sum + Buffer.byteLength(r.body ?? '', 'utf8'), 0);
      }
      this.inFlight.set(fn, (this.inFlight.get(fn) ?? 0) + 1);
      try {
        const result = await invocationContext.run({ fn }, () => handler(event, context));
        const failures = (result as { batchItemFailures?: unknown[] } | undefined)?.batchItemFailures;
        if (Array.isArray(failures)) invocation.failures = failures.length;
        return result;
      } finally {
        this.inFlight.set(fn, (this.inFlight.get(fn) ?? 1) - 1);
        invocation.ms = performance.now() - started;
        if (this.enabled) this.invocations.push(invocation);
      }
    };
  }

  private blank(fn: string, service: AwsCall['service'], op: string): AwsCall {
    return { fn, service, op, rru: 0, wru: 0, byCategory: {}, sqsRequests: 0, s3Put: 0, s3Get: 0, dynaliteUnits: 0, failed: false };
  }

  private async dynamoCall(fn: string, op: string, input: Item, output: Item | undefined, failed: boolean): Promise<AwsCall> {
    const call = this.blank(fn, 'dynamodb', op);
    call.failed = failed;
    call.dynaliteUnits = dynaliteUnitsOf(output);
    const table = String(input.TableName ?? '');
    switch (op) {
      case 'GetItem': {
        const units = readUnits(itemSize(output?.Item as Item | undefined), input.ConsistentRead === true);
        add(call.byCategory, itemCategory(input.Key as Item), { rru: units });
        break;
      }
      case 'Query':
      case 'Scan': {
        const items = (output?.Items as Item[] | undefined) ?? [];
        const consistent = input.ConsistentRead === true && !input.IndexName;
        const units = readUnits(items.reduce((sum, item) => sum + itemSize(item), 0), consistent);
        const category = input.IndexName ? `${String(input.IndexName)} query` : queryCategory(input, items);
        add(call.byCategory, category, { rru: units });
        break;
      }
      case 'BatchGetItem':
        for (const [category, units] of Object.entries(batchGetUnits(input, output))) add(call.byCategory, category, units);
        break;
      case 'PutItem':
        this.write(call, input.Item as Item, failed ? 'failed' : 'put');
        break;
      case 'DeleteItem':
        this.write(call, input.Key as Item, failed ? 'failed' : 'delete');
        break;
      case 'UpdateItem': {
        const key = input.Key as Item;
        if (failed) this.write(call, key, 'failed');
        else {
          const after =
            input.ReturnValues === 'ALL_NEW' && output?.Attributes
              ? (output.Attributes as Item)
              : ((await this.raw?.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true })))?.Item as Item | undefined);
          this.write(call, after ?? key, 'put');
        }
        break;
      }
      case 'BatchWriteItem': {
        const requests = (input.RequestItems ?? {}) as Record<string, Array<{ PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }>>;
        const unprocessed = (output?.UnprocessedItems ?? {}) as typeof requests;
        for (const [name, list] of Object.entries(requests)) {
          const skipped = new Set((unprocessed[name] ?? []).map((r) => keyOf(r.PutRequest?.Item ?? r.DeleteRequest?.Key ?? {})));
          for (const request of list) {
            if (failed) continue;
            if (request.PutRequest && !skipped.has(keyOf(request.PutRequest.Item))) this.write(call, request.PutRequest.Item, 'put');
            if (request.DeleteRequest && !skipped.has(keyOf(request.DeleteRequest.Key))) this.write(call, request.DeleteRequest.Key, 'delete');
          }
        }
        break;
      }
      default:
        break;
    }
    for (const units of Object.values(call.byCategory)) {
      call.rru += units.rru;
      call.wru += units.wru;
    }
    return call;
  }

  /** One item write: the table's units on the larger of old and new, and the index writes it causes. */
  private write(call: AwsCall, item: Item, kind: 'put' | 'delete' | 'failed'): void {
    const key = keyOf(item);
    const before = this.shadow.get(key);
    const category = itemCategory(item);
    if (kind === 'failed') {
      add(call.byCategory, category, { wru: writeUnits(Math.max(itemSize(before), itemSize(item))) });
      return;
    }
    const after = kind === 'put' ? structuredClone(item) : undefined;
    if (after) {
      const size = itemSize(after);
      const tally = this.itemSizes.get(category) ?? { count: 0, bytes: 0, max: 0 };
      tally.count += 1;
      tally.bytes += size;
      tally.max = Math.max(tally.max, size);
      this.itemSizes.set(category, tally);
    }
    add(call.byCategory, category, { wru: writeUnits(Math.max(itemSize(before), itemSize(after))) });
    for (const write of indexWrites(before, after)) add(call.byCategory, INDEX_LABEL[write.index] ?? write.index, { wru: write.units });
    this.store(before, -1);
    this.store(after, 1);
    if (after) this.shadow.set(key, after);
    else this.shadow.delete(key);
  }

  private store(item: Item | undefined, sign: 1 | -1): void {
    const bytes = storedBytes(item);
    this.stored.table += sign * bytes.table;
    this.stored.indexes += sign * bytes.indexes;
  }
}

/** What DynamoDB bills as stored for one item: in the table, and in the indexes it projects into. */
export function storedBytes(item: Item | undefined): StoredBytes {
  if (!item) return { table: 0, indexes: 0 };
  return {
    table: itemSize(item) + DYNAMO_ITEM_STORAGE_OVERHEAD_BYTES,
    indexes: indexItems(item).reduce((sum, { item: projected }) => sum + itemSize(projected) + DYNAMO_ITEM_STORAGE_OVERHEAD_BYTES, 0),
  };
}

/**
 * A BatchGetItem's read units by item kind: each item found as a GetItem of it, and each key that
 * found no item (neither answered nor left unprocessed) the least a read costs, under `<kind> (not found)`.
 */
export function batchGetUnits(input: Item, output: Item | undefined): Record<string, Units> {
  const units: Record<string, Units> = {};
  const requested = (input.RequestItems ?? {}) as Record<string, { Keys?: Item[]; ConsistentRead?: boolean }>;
  const responses = (output?.Responses ?? {}) as Record<string, Item[]>;
  const unprocessed = (output?.UnprocessedKeys ?? {}) as typeof requested;
  for (const [name, { Keys = [], ConsistentRead }] of Object.entries(requested)) {
    const consistent = ConsistentRead === true;
    const found = responses[name] ?? [];
    for (const item of found) add(units, itemCategory(item), { rru: readUnits(itemSize(item), consistent) });
    const answered = new Set([...found, ...(unprocessed[name]?.Keys ?? [])].map(keyOf));
    for (const key of Keys) if (!answered.has(keyOf(key))) add(units, `${itemCategory(key)} (not found)`, { rru: readUnits(0, consistent) });
  }
  return units;
}

function queryCategory(input: Item, items: Item[]): string {
  const categories = new Set(items.map((item) => itemCategory(item)));
  if (categories.size === 0) {
    const placeholder = /\bpk\s*=\s*(:\w+)/.exec(String(input.KeyConditionExpression ?? ''))?.[1];
    const pk = placeholder ? (input.ExpressionAttributeValues as Item | undefined)?.[placeholder] : undefined;
    return `${itemCategory({ pk, sk: '' })} (query)`;
  }
  if (categories.has('event status') && categories.has('event body')) return 'event status+body (query)';
  return `${[...categories].sort().join('+')} (query)`;
}

/** SQS bills each 64 KB chunk of a request's payload as one request. */
function sqsChunks(op: string, input: Item): number {
  let bytes = 0;
  if (op === 'SendMessageBatch') {
    for (const entry of (input.Entries as Array<{ MessageBody?: string; MessageAttributes?: unknown }> | undefined) ?? []) {
      bytes += Buffer.byteLength(entry.MessageBody ?? '', 'utf8') + Buffer.byteLength(JSON.stringify(entry.MessageAttributes ?? {}), 'utf8');
    }
  } else if (op === 'SendMessage') {
    bytes = Buffer.byteLength(String(input.MessageBody ?? ''), 'utf8');
  }
  return Math.max(1, Math.ceil(bytes / (64 * 1024)));
}
