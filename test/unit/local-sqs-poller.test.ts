import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { FairScheduler, settleBatch, startSqsPoller, toSqsRecord, type SqsPoller } from '../../local/sqs-poller';

const messages: Message[] = [
  { MessageId: 'm1', ReceiptHandle: 'r1', Body: 'one' },
  { MessageId: 'm2', ReceiptHandle: 'r2', Body: 'two' },
  { MessageId: 'm3', ReceiptHandle: 'r3', Body: 'three' },
];

describe('settleBatch', () => {
  it('deletes every message when the handler reports no failures', () => {
    expect(settleBatch(messages, undefined).toDelete).toEqual(messages);
    expect(settleBatch(messages, { batchItemFailures: [] }).toDelete).toEqual(messages);
  });

  it('keeps the messages listed in batchItemFailures', () => {
    const { toDelete } = settleBatch(messages, { batchItemFailures: [{ itemIdentifier: 'm2' }] });

    expect(toDelete.map((m) => m.MessageId)).toEqual(['m1', 'm3']);
  });

  it('keeps the whole batch when a failure names an id that is not in it, as AWS does', () => {
    const settled = settleBatch(messages, { batchItemFailures: [{ itemIdentifier: 'm9' }] });

    expect(settled).toEqual({ toDelete: [], unknownFailures: true });
  });
});

describe('toSqsRecord', () => {
  it('shapes a received message like a Lambda SQS record', () => {
    const record = toSqsRecord(
      {
        MessageId: 'm1',
        ReceiptHandle: 'r1',
        Body: '{"id":"e1"}',
        MD5OfBody: 'abc',
        Attributes: { ApproximateReceiveCount: '1', SentTimestamp: '1700000000000' },
        MessageAttributes: {
          kind: { DataType: 'String', StringValue: 'event' },
          blob: { DataType: 'Binary', BinaryValue: Uint8Array.from([1, 2, 3]) },
        },
      },
      'arn:aws:sqs:us-east-1:123456789012:hookgate-delivery',
    );

    expect(record).toEqual({
      messageId: 'm1',
      receiptHandle: 'r1',
      body: '{"id":"e1"}',
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: '1700000000000' },
      messageAttributes: {
        kind: { dataType: 'String', stringValue: 'event', stringListValues: [], binaryListValues: [] },
        blob: { dataType: 'Binary', binaryValue: 'AQID', stringListValues: [], binaryListValues: [] },
      },
      md5OfBody: 'abc',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:hookgate-delivery',
      awsRegion: 'us-east-1',
    });
  });
});

const inGroup = (group: string | undefined, id: string): Message => ({
  MessageId: id,
  ReceiptHandle: `rh-${id}`,
  Body: id,
  Attributes: group === undefined ? {} : { MessageGroupId: group },
});
const ids = (batch: { messages: Message[] } | undefined) => batch?.messages.map((m) => m.MessageId);

describe('FairScheduler', () => {
  it('hands out at most `concurrency` batches of at most `batchSize` messages, each from one group', () => {
    const scheduler = new FairScheduler({ concurrency: 2, groupConcurrency: 2, batchSize: 3 });
    scheduler.add([inGroup('a', 'a1'), inGroup('b', 'b1'), inGroup('a', 'a2'), inGroup('a', 'a3'), inGroup('a', 'a4')], 0);

    const first = scheduler.next();
    const second = scheduler.next();

    expect(ids(first)).toEqual(['a1', 'a2', 'a3']);
    expect(ids(second)).toEqual(['b1']);
    expect(scheduler.next()).toBeUndefined();
    expect(scheduler.waiting).toBe(1);
    scheduler.finish(first!);
    expect(ids(scheduler.next())).toEqual(['a4']);
  });

  it('never lets one group hold more than its share of the slots, however much of it waits', () => {
    const scheduler = new FairScheduler({ concurrency: 4, groupConcurrency: 2, batchSize: 1 });
    scheduler.add(Array.from({ length: 50 }, (_, i) => inGroup('noisy', `n${i}`)), 0);

    expect(ids(scheduler.next())).toEqual(['n0']);
    expect(ids(scheduler.next())).toEqual(['n1']);
    expect(scheduler.next()).toBeUndefined();

    scheduler.add([inGroup('quiet', 'q0'), inGroup('other', 'o0')], 1);
    expect(ids(scheduler.next())).toEqual(['q0']);
    expect(ids(scheduler.next())).toEqual(['o0']);
    expect(scheduler.busy).toBe(4);
  });

  it('serves the group holding the fewest slots first, then the one waiting longest', () => {
    const scheduler = new FairScheduler({ concurrency: 10, groupConcurrency: 10, batchSize: 1 });
    scheduler.add([inGroup('a', 'a1'), inGroup('a', 'a2'), inGroup('a', 'a3')], 0);
    scheduler.add([inGroup('b', 'b1'), inGroup('b', 'b2')], 5);
    scheduler.add([inGroup(undefined, 'x1')], 7);

    const order = Array.from({ length: 6 }, () => ids(scheduler.next())?.[0]);

    expect(order).toEqual(['a1', 'b1', 'x1', 'a2', 'b2', 'a3']);
  });

  it('forgets messages that waited past the cutoff and counts them', () => {
    const scheduler = new FairScheduler({ concurrency: 1, groupConcurrency: 1, batchSize: 10 });
    scheduler.add([inGroup('a', 'old')], 0);
    scheduler.add([inGroup('a', 'new'), inGroup('b', 'b-new')], 100);

    expect(scheduler.expire(50)).toBe(1);
    expect(scheduler.waiting).toBe(2);
    expect(ids(scheduler.next())).toEqual(['new']);
  });
});

/** An in-memory queue behind the two SQS calls the poller makes. */
function fakeQueue(messages: Message[]) {
  const pending = [...messages];
  const deleted: string[] = [];
  let emptyReceives = 0;
  const client = {
    send: async (command: unknown) => {
      if (command instanceof ReceiveMessageCommand) {
        const taken = pending.splice(0, command.input.MaxNumberOfMessages ?? 1);
        if (taken.length === 0) emptyReceives++;
        return { Messages: taken };
      }
      if (command instanceof DeleteMessageBatchCommand) {
        deleted.push(...(command.input.Entries ?? []).map((e) => e.ReceiptHandle ?? ''));
        return { Failed: [] };
      }
      throw new Error('unexpected command');
    },
  } as unknown as SQSClient;
  return {
    client,
    deleted,
    push: (...more: Message[]) => pending.push(...more),
    /**
     * Receives answered with nothing. The poller hands out what it holds after each: once a second
     * one came, it has held every message and had its chance to start whatever its slots allow.
     */
    emptyReceives: () => emptyReceives,
  };
}

/** A handler whose batches run until released, recording what ran at once. */
function heldHandler() {
  const running = new Set<SQSEvent>();
  const releases = new Map<string, Array<() => void>>();
  let freed = false;
  let peak = 0;
  const handled: string[] = [];
  const handler = async (event: SQSEvent) => {
    running.add(event);
    peak = Math.max(peak, running.size);
    const group = event.Records[0]?.attributes.MessageGroupId ?? '';
    if (!freed) await new Promise<void>((resolve) => releases.set(group, [...(releases.get(group) ?? []), resolve]));
    running.delete(event);
    handled.push(...event.Records.map((r) => r.messageId));
  };
  return {
    handler,
    running,
    handled,
    peak: () => peak,
    groupsRunning: () => [...running].map((e) => e.Records[0]?.attributes.MessageGroupId),
    release(group: string) {
      for (const resolve of releases.get(group) ?? []) resolve();
      releases.delete(group);
    },
    /** Ends every batch, now and from now on. */
    free() {
      freed = true;
      for (const group of [...releases.keys()]) this.release(group);
    },
  };
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('startSqsPoller', () => {
  let poller: SqsPoller | undefined;
  let held: ReturnType<typeof heldHandler> | undefined;
  afterEach(async () => {
    held?.free();
    await poller?.stop();
    poller = undefined;
  });
  const start = (client: SQSClient, handler: ReturnType<typeof heldHandler>, concurrency: number, groupConcurrency?: number) => {
    held = handler;
    poller = startSqsPoller({
      client,
      queueUrl: 'q',
      queueArn: 'arn:aws:sqs:us-east-1:000000000000:q',
      handler: handler.handler,
      batchSize: 2,
      concurrency,
      groupConcurrency,
      idleDelayMs: 5,
      log: () => undefined,
    });
  };

  it('runs as many batches at once as its concurrency, and no more', async () => {
    const groups = Array.from({ length: 12 }, (_, i) => `g${i}`);
    const queue = fakeQueue(groups.flatMap((g) => [inGroup(g, `${g}-1`), inGroup(g, `${g}-2`)]));
    const handler = heldHandler();
    start(queue.client, handler, 8);

    await until(() => handler.running.size === 8);
    await until(() => queue.emptyReceives() >= 2);
    expect(handler.peak()).toBe(8);

    handler.free();
    await until(() => queue.deleted.length === 24);
    expect(handler.peak()).toBe(8);
  });

  it('keeps delivering other groups while one group hangs with a backlog deeper than every slot holds', async () => {
    const queue = fakeQueue(Array.from({ length: 50 }, (_, i) => inGroup('hanging', `h${i}`)));
    const handler = heldHandler();
    start(queue.client, handler, 4, 2);
    await until(() => handler.running.size === 2);

    queue.push(inGroup('healthy', 'ok1'), inGroup('other', 'ok2'));
    await until(() => handler.groupsRunning().filter((g) => g !== 'hanging').length === 2);
    handler.release('healthy');
    handler.release('other');
    await until(() => queue.deleted.includes('rh-ok1') && queue.deleted.includes('rh-ok2'));

    expect(handler.groupsRunning()).toEqual(['hanging', 'hanging']);
    expect(handler.peak()).toBe(4);
  });

  it('gives the hanging group every slot it may hold, not more, when nobody else waits', async () => {
    const queue = fakeQueue(Array.from({ length: 50 }, (_, i) => inGroup('hanging', `h${i}`)));
    const handler = heldHandler();
    start(queue.client, handler, 6);

    await until(() => handler.running.size === 3);
    await until(() => queue.emptyReceives() >= 2);

    expect(handler.running.size).toBe(3);
  });

  it('hands out batches of the new size once its batch size changes, and refuses a size no mapping takes', async () => {
    const queue = fakeQueue([]);
    const handler = heldHandler();
    handler.free();
    const sizes: number[] = [];
    start(queue.client, { ...handler, handler: async (event: SQSEvent) => void sizes.push(event.Records.length) }, 1);

    queue.push(...Array.from({ length: 4 }, (_, i) => inGroup('g', `a${i}`)));
    await until(() => queue.deleted.length === 4);
    poller!.setBatchSize(3);
    queue.push(...Array.from({ length: 7 }, (_, i) => inGroup('g', `b${i}`)));
    await until(() => queue.deleted.length === 11);

    expect(sizes).toEqual([2, 2, 3, 3, 1]);
    expect(() => poller!.setBatchSize(0)).toThrow(/batch size/);
  });
});
