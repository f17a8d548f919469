/**
 * Counts the DynamoDB and SQS requests a thread of the local gateway makes (its handlers' clients and
 * the SQS poller's), by service, operation and the account each request is about, so the benchmark
 * (bench/storm.ts) can tell what one account's held deliveries cost while another's run beside them.
 * And the functions' KMS calls, whose account is their encryption context's `account_id`.
 * Off unless HOOKGATE_LOCAL_CALL_COUNTS=1: without it nothing is added to any client.
 *
 * The account is read from the request itself: a tenant key (`ACCT#<id>`, the partition of every
 * tenant item), a delivery task's `account_id` (message bodies sent and received), or the receipt
 * handle of a message received with one. A batch about several accounts is shared between them by its
 * entries, so the counts still add up to the requests made; a request about none (an empty receive)
 * counts under ''. Any thread reads every thread's counts with `readCallCounts`: a BroadcastChannel,
 * since the deliver thread has no other way out than the port it started with.
 */
import { BroadcastChannel } from 'node:worker_threads';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { sqsClient } from '../lambdas/adapters/aws-clients';
import { documentClient } from '../lambdas/store/client';
import { beforeFunctionCalls } from './sdk-hooks';
import { readThreads } from './thread-readings';

export const CALL_COUNTS_ENV = 'HOOKGATE_LOCAL_CALL_COUNTS';
const CHANNEL = 'hookgate-local-call-counts';

type Service = 'dynamodb' | 'sqs' | 'kms';

export interface CallCount {
  thread: string;
  account: string;
  service: Service;
  op: string;
  /** Requests; a batch's are shared between the accounts of its entries. */
  requests: number;
}

type Message = { type: 'read'; id: string } | { type: 'counts'; id: string; thread: string; counts: CallCount[] };

/** Each account's share of one request. */
type Shares = Map<string, number>;

type Json = Record<string, unknown>;

const TENANT_KEY = /ACCT#([^#"\\]+)/g;

function shareByEntries(accounts: string[]): Shares {
  const shares: Shares = new Map();
  if (accounts.length === 0) return new Map([['', 1]]);
  for (const account of accounts) shares.set(account, (shares.get(account) ?? 0) + 1 / accounts.length);
  return shares;
}

function accountOfBody(body: unknown): string {
  try {
    const parsed = JSON.parse(String(body)) as { account_id?: unknown };
    return typeof parsed.account_id === 'string' ? parsed.account_id : '';
  } catch {
    return '';
  }
}

/** Remembers the account of each message received, for the deletes and visibility changes that name its receipt handle. */
export class AccountAttribution {
  private readonly byReceiptHandle = new Map<string, string>();

  /** The accounts one request is about, from its input and (for a receive) its output. */
  shares(service: Service, op: string, input: Json, output: Json | undefined): Shares {
    if (service === 'dynamodb') {
      const accounts = new Set([...JSON.stringify(input).matchAll(TENANT_KEY)].map((m) => m[1] ?? ''));
      return shareByEntries([...accounts]);
    }
    if (service === 'kms') {
      const context = (input.EncryptionContext ?? {}) as Json;
      return shareByEntries(typeof context.account_id === 'string' ? [context.account_id] : []);
    }
    const entries = (input.Entries as Json[] | undefined) ?? [];
    switch (op) {
      case 'SendMessage':
        return shareByEntries([accountOfBody(input.MessageBody)]);
      case 'SendMessageBatch':
        return shareByEntries(entries.map((entry) => accountOfBody(entry.MessageBody)));
      case 'ReceiveMessage': {
        const messages = (output?.Messages as Json[] | undefined) ?? [];
        return shareByEntries(
          messages.map((message) => {
            const account = accountOfBody(message.Body);
            this.byReceiptHandle.set(String(message.ReceiptHandle), account);
            return account;
          }),
        );
      }
      case 'DeleteMessage':
      case 'ChangeMessageVisibility':
        return shareByEntries([this.handleAccount(input.ReceiptHandle, op === 'DeleteMessage')]);
      case 'DeleteMessageBatch':
      case 'ChangeMessageVisibilityBatch':
        return shareByEntries(entries.map((entry) => this.handleAccount(entry.ReceiptHandle, op === 'DeleteMessageBatch')));
      default:
        return shareByEntries([]);
    }
  }

  private handleAccount(handle: unknown, forget: boolean): string {
    const account = this.byReceiptHandle.get(String(handle)) ?? '';
    if (forget) this.byReceiptHandle.delete(String(handle));
    return account;
  }
}

type Next = (args: { input: unknown }) => Promise<{ output: unknown }>;

/** Any client's stack, whatever its commands' types: the middleware reads only a command's input and output. */
interface Stack {
  add(middleware: (next: Next, context: { commandName?: string }) => Next, options: { step: 'initialize'; name: string }): void;
}

const counted = new WeakSet<object>();

/**
 * With HOOKGATE_LOCAL_CALL_COUNTS=1, counts what this thread's handler clients (and `pollerClient`, the
 * SQS poller's) send from now on, and answers `readCallCounts` as `thread`. Once process.env is final.
 */
export function countCallsIfEnabled(thread: string, pollerClient?: SQSClient): void {
  if (process.env[CALL_COUNTS_ENV] !== '1') return;
  const attribution = new AccountAttribution();
  const tally = new Map<string, CallCount>();
  const count = (service: Service, op: string, input: Json, output: Json | undefined) => {
    for (const [account, share] of attribution.shares(service, op, input, output)) {
      const key = `${account}\u0000${service}\u0000${op}`;
      const entry = tally.get(key) ?? { thread, account, service, op, requests: 0 };
      entry.requests += share;
      tally.set(key, entry);
    }
  };
  const clients: Array<[Service, { middlewareStack: unknown }]> = [
    ['dynamodb', documentClient()],
    ['sqs', sqsClient()],
    ...(pollerClient ? [['sqs', pollerClient] as [Service, SQSClient]] : []),
  ];
  for (const [service, client] of clients) {
    const stack = client.middlewareStack as Stack;
    if (counted.has(stack)) continue;
    counted.add(stack);
    stack.add(
      (next, context) => async (args) => {
        const op = String(context.commandName ?? '').replace(/Command$/, '');
        let output: Json | undefined;
        try {
          const result = await next(args);
          output = result.output as Json;
          return result;
        } finally {
          count(service, op, args.input as Json, output);
        }
      },
      { step: 'initialize', name: 'localCallCounts' },
    );
  }
  // The KMS client is made on first use, inside the functions' code: counted where every SDK call passes.
  beforeFunctionCalls('call-counts', (client, command) => {
    if (client.config.serviceId === 'KMS') count('kms', command.constructor.name.replace(/Command$/, ''), command.input, undefined);
  });
  const channel = new BroadcastChannel(CHANNEL);
  channel.unref();
  channel.onmessage = (event) => {
    const message = (event as { data: Message }).data;
    if (message.type === 'read') channel.postMessage({ type: 'counts', id: message.id, thread, counts: [...tally.values()] } satisfies Message);
  };
}

/** Every listed thread's counts so far; rejects when one does not answer (counting is off, or the thread is gone). */
export async function readCallCounts(threads: readonly string[], timeoutMs = 5000): Promise<CallCount[]> {
  const answers = await readThreads<CallCount[]>(
    CHANNEL,
    threads,
    { type: 'read' },
    (data, id) => {
      const message = data as Message;
      return message.type === 'counts' && message.id === id ? { thread: message.thread, answer: message.counts } : undefined;
    },
    (missing) => `no call counts from the ${missing} thread(s): is ${CALL_COUNTS_ENV}=1 set?`,
    timeoutMs,
  );
  return answers.flat();
}
