import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqsClient } from '../../lambdas/adapters/aws-clients';
import { documentClient } from '../../lambdas/store/client';
import { startChildGateway } from '../fixtures/child-gateway';
import { bootGatewayWithSink, DELIVERY_TEST_ENV } from '../fixtures/gateway';
import { httpClient, type Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually, startSink, type Sink } from '../fixtures/sink';
import { awsError, freePort, injectFault, listAll, quietExpectedErrors, receivedIds } from './helpers';
import { recordFigures } from './summary';

// Worst days between the table and the queue. The in-process gateway's own SDK clients get the
// faults (a middleware on the very instances the handlers use); the SIGKILL cases run the gateway
// as `npm start` does, in a child process.

const FAST_RECONCILE = { HOOKGATE_RECONCILE_INTERVAL: '1', HOOKGATE_RECONCILE_GRACE_SECONDS: '1' };
const SOURCE = 'crash-safety';

let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let sink: Sink;
// The faults below are logged by the gateway as they should be; those lines are expected here.
const quiet = quietExpectedErrors([
  /enqueue failed; the reconciler will resend/,
  /unhandled error.*(ProvisionedThroughputExceeded|DynamoDB had an internal failure|socket hang up|left event writes unprocessed)/,
]);

beforeAll(async () => {
  env = await bootGatewayWithSink(FAST_RECONCILE);
  ({ call, sink } = env);
});
afterAll(async () => {
  quiet.restore();
  await env?.stop();
});

/** Waits until the sink has seen every id on `path`, then records accepted / delivered / lost (unless told not to). */
async function expectAllDelivered(target: Sink, ids: string[], path: string, timeoutMs = 30_000, record = true) {
  const seen = await eventually(
    async () => receivedIds(target, path),
    (got) => ids.every((id) => got.has(id)),
    timeoutMs,
  ).catch(() => receivedIds(target, path));
  const delivered = ids.filter((id) => seen.has(id)).length;
  if (record) recordFigures(SOURCE, { accepted: ids.length, delivered, lost: ids.length - delivered });
  expect(ids.filter((id) => !seen.has(id)), 'accepted but never delivered').toEqual([]);
}

describe('the queue send fails after the event is stored', () => {
  it('SQS throttles part of a fan-out (Failed entries, no exception): 202, and every delivery arrives later', async () => {
    const { key, source } = await accountWithSource(call);
    for (const n of [1, 2, 3]) await addRoute(call, key, { destination_id: (await addDestination(call, key, { url: `${sink.url}/fanout-${n}` })).id });

    // SendMessageBatch answers 200 with one entry Failed (SQS throttling part of a batch); the rest are sent.
    type Entry = { Id: string };
    const throttled = injectFault(sqsClient(), ['SendMessageBatchCommand'], async (input, pass) => {
      const entries = input.Entries as Entry[];
      input.Entries = entries.filter((e) => e.Id !== '0');
      const sent = (await pass()).output as { Successful?: Entry[] };
      return {
        Successful: sent.Successful ?? [],
        Failed: [{ Id: '0', Code: 'RequestThrottled', SenderFault: false, Message: 'Rate exceeded' }],
      };
    });
    let res;
    try {
      res = await ingest(call, source.path_token, '{"throttled":true}');
    } finally {
      throttled.restore();
    }
    expect(throttled.hits).toBe(1);
    recordFigures(SOURCE, { faultsInjected: 1 });
    expect(res.status).toBe(202);
    const id = res.json.data.id as string;
    // One event, three deliveries: counted once, as delivered when all three arrived.
    for (const n of [1, 2]) await expectAllDelivered(sink, [id], `/fanout-${n}`, 30_000, false);
    await expectAllDelivered(sink, [id], '/fanout-3');
    const detail = await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered');
    expect(detail.attempts).toHaveLength(3);
  });

  it('the send is lost on the way (as when the process dies right after the write): every entry point still delivers', async () => {
    const { key, source } = await accountWithSource(call);
    await addRoute(call, key, { destination_id: (await addDestination(call, key, { url: `${sink.url}/vanished` })).id });
    const first = await ingest(call, source.path_token, '{"replay":"me"}');
    await expectAllDelivered(sink, [first.json.data.id], '/vanished');

    // SQS "accepts" every entry and keeps none: the table holds the only record of these events.
    const vanish = injectFault(sqsClient(), ['SendMessageBatchCommand'], (input) => ({
      Successful: (input.Entries as Array<{ Id: string }>).map(({ Id }) => ({ Id, MessageId: `lost-${Id}`, MD5OfMessageBody: '' })),
      Failed: [],
    }));
    const ids: string[] = [];
    try {
      const inbound = await ingest(call, source.path_token, '{"lost":"on the way"}');
      expect(inbound.status).toBe(202);
      ids.push(inbound.json.data.id);
      const outbound = await call('POST', '/v1/outbound-events', { key, body: { payload: '{"out":1}' } });
      expect(outbound.status).toBe(201);
      ids.push(outbound.json.data.id);
      const batch = await call('POST', '/v1/outbound-events/batch', { key, body: { events: [{ payload: '{"b":1}' }, { payload: '{"b":2}' }] } });
      expect(batch.status).toBe(200);
      ids.push(...batch.json.data.map((item: { status: number; data: { id: string } }) => (expect(item.status).toBe(201), item.data.id)));
      const replay = await call('POST', `/v1/events/${first.json.data.id}/replay`, { key });
      expect(replay.status).toBe(202);
      ids.push(replay.json.data.replay_event_id);
    } finally {
      vanish.restore();
    }
    expect(vanish.hits).toBeGreaterThanOrEqual(4);
    recordFigures(SOURCE, { faultsInjected: ids.length });
    await expectAllDelivered(sink, ids, '/vanished');
  });
});

describe('the DynamoDB write fails', () => {
  it('throttled or failing BatchWriteItem: 500 in the envelope, nothing stored, nothing queued', async () => {
    const { key, source } = await accountWithSource(call);
    await addRoute(call, key, { destination_id: (await addDestination(call, key, { url: `${sink.url}/never-written` })).id });
    await ingest(call, source.path_token, '{"warm":"caches"}'); // routing and token caches warm: the write is the first call
    await sink.waitForPath('/never-written', 1);

    const sends = injectFault(sqsClient(), ['SendMessageBatchCommand'], () => undefined); // counts, lets through
    const errors = [
      awsError('ProvisionedThroughputExceededException', 'The level of configured provisioned throughput for the table was exceeded', 400),
      awsError('InternalServerError', 'DynamoDB had an internal failure', 500),
      awsError('TimeoutError', 'socket hang up', 500),
    ];
    try {
      for (const error of errors) {
        const failing = injectFault(documentClient(), ['BatchWriteItemCommand'], () => {
          throw error;
        });
        try {
          const inbound = await ingest(call, source.path_token, `{"fails":"${error.name}"}`);
          const outbound = await call('POST', '/v1/outbound-events', { key, body: { payload: '{"never":1}' } });
          for (const res of [inbound, outbound]) {
            expect(res.status).toBe(500);
            expect(res.json).toEqual({ error: 'Internal server error', duration_ms: expect.any(Number) });
            expect(res.text).not.toContain(error.message); // never echoed
          }
        } finally {
          failing.restore();
        }
        recordFigures(SOURCE, { faultsInjected: 2 });
      }
    } finally {
      sends.restore();
    }
    // One event (the warm-up) and nothing else: no list entry, no queue message, no delivery.
    expect(sends.hits).toBe(0);
    expect((await listAll(call, key, '/v1/events')).length).toBe(1);
    expect(await listAll(call, key, '/v1/outbound-events')).toEqual([]);
    expect(sink.received.filter((r) => r.path === '/never-written')).toHaveLength(1);
  });

  it('a BatchWriteItem that keeps leaving the status item unprocessed: 500, and the body written alone is unreachable', async () => {
    const { key, source } = await accountWithSource(call);
    await addRoute(call, key, { destination_id: (await addDestination(call, key, { url: `${sink.url}/half` })).id });
    await ingest(call, source.path_token, '{"warm":"caches"}');
    await sink.waitForPath('/half', 1);

    type Put = { PutRequest: { Item: { sk: string } } };
    // DynamoDB writes the body item and hands the status item back as unprocessed, round after round.
    const partial = injectFault(documentClient(), ['BatchWriteItemCommand'], async (input, pass) => {
      const [table, puts] = Object.entries(input.RequestItems as Record<string, Put[]>)[0]!;
      const held = puts.filter((p) => p.PutRequest.Item.sk === 'EVENT');
      (input.RequestItems as Record<string, Put[]>)[table] = puts.filter((p) => p.PutRequest.Item.sk !== 'EVENT');
      if ((input.RequestItems as Record<string, Put[]>)[table]!.length > 0) await pass();
      return { UnprocessedItems: { [table]: held } };
    });
    let res;
    try {
      res = await ingest(call, source.path_token, '{"half":"written"}');
    } finally {
      partial.restore();
    }
    recordFigures(SOURCE, { faultsInjected: 1 });
    expect(partial.hits).toBe(5); // the store's own retries, then it gives up
    expect(res.status).toBe(500);
    expect(res.json).toEqual({ error: 'Internal server error', duration_ms: expect.any(Number) });
    const listed = await listAll(call, key, '/v1/events');
    expect(listed).toHaveLength(1); // the warm-up only
    await new Promise((resolve) => setTimeout(resolve, 2500)); // two reconciler runs: nothing surfaces
    expect(sink.received.filter((r) => r.path === '/half')).toHaveLength(1);
  });
});

describe('a gateway killed with SIGKILL under load', () => {
  it('300 ingests, SIGKILL half way, restart on the same data: every event answered 202 is delivered at least once', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'hookgate-reliability-crash-'));
    const port = await freePort();
    const childEnv = { ...DELIVERY_TEST_ENV, ...FAST_RECONCILE, HOOKGATE_DATA_DIR: dataDir, PORT: String(port) };
    // Before the crash the destination is having a bad day: a third of the events fail their first try,
    // a third are answered slowly (tries in flight at the kill), a third succeed. A retry succeeds, so no
    // event can run out of tries however slow the machine makes the run. Afterwards it is healthy.
    let crashed = false;
    const tried = new Set<string>();
    const target = await startSink((req, res) => {
      res.on('error', () => undefined); // the gateway may be gone before a slow answer is written
      const event = req.body.toString('utf8'); // {"i":N}: one per event
      const retry = tried.has(event);
      tried.add(event);
      if (crashed || retry) return void res.writeHead(200).end('ok');
      const kind = tried.size % 3;
      if (kind === 0) res.writeHead(503).end('busy');
      else if (kind === 1) setTimeout(() => res.writeHead(200).end('slow'), 1500);
      else res.writeHead(200).end('ok');
    });
    let gateway = await startChildGateway(childEnv);
    const base = httpClient(gateway.url);
    try {
      const { key, source } = await accountWithSource(base);
      await addRoute(base, key, { destination_id: (await addDestination(base, key, { url: `${target.url}/load` })).id });

      // A provider sends 300 webhooks, 10 at a time, and retries each (same delivery id) until it gets
      // its 202, as providers do. Half way through, the gateway is killed; it comes back on the same port.
      const TOTAL = 300;
      const accepted = new Map<number, string>();
      let restarted: Promise<void> | undefined;
      let refusedWhileDown = 0;
      const send = async (i: number) => {
        for (;;) {
          const res = await ingest(base, source.path_token, JSON.stringify({ i }), { 'idempotency-key': `load-${i}` }).catch(() => undefined);
          if (res?.status === 202) return void accepted.set(i, res.json.data.id as string);
          if (res && res.status !== 202) throw new Error(`ingest ${i}: ${res.status} ${res.text}`);
          refusedWhileDown++;
          await (restarted ?? new Promise((resolve) => setTimeout(resolve, 100)));
        }
      };
      let next = 0;
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (next < TOTAL) {
            const i = next++;
            if (i === TOTAL / 2 && !restarted) {
              restarted = (async () => {
                await gateway.kill('SIGKILL');
                crashed = true;
                gateway = await startChildGateway(childEnv);
              })();
            }
            await send(i);
          }
        }),
      );
      await restarted;
      expect(accepted.size).toBe(TOTAL);
      recordFigures(SOURCE, { faultsInjected: 1 });
      console.log(`SIGKILL under load: ${TOTAL} accepted, ${refusedWhileDown} requests refused while the gateway was down`);

      await expectAllDelivered(target, [...accepted.values()], '/load', 120_000);
      // The gateway is consistent with what it answered: every accepted id is there, delivered.
      const after = httpClient(gateway.url);
      // (the sink hears of a delivery a moment before the outcome is written)
      for (const id of new Set(accepted.values())) await eventually(() => eventDetail(after, key, id), (d) => d.event.status === 'delivered');
    } finally {
      await gateway.kill('SIGTERM');
      await target.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 240_000);

  it('an index entry torn off by the kill (dynalite writes item and index separately) is mended at restart', async () => {
    // A SIGKILL can land between dynalite's index write and its item write. The worst case is an
    // unsettled event whose entry in the reconciler's work index is gone: nothing would ever resend
    // it. Recreate that state exactly, then restart.
    const dataDir = await mkdtemp(join(tmpdir(), 'hookgate-reliability-torn-'));
    const childEnv = { ...DELIVERY_TEST_ENV, ...FAST_RECONCILE, HOOKGATE_RETRY_SCHEDULE: '4,1', HOOKGATE_DATA_DIR: dataDir };
    const target = await startSink();
    let gateway = await startChildGateway(childEnv);
    try {
      let child = httpClient(gateway.url);
      const { key, accountId, source } = await accountWithSource(child);
      await addRoute(child, key, { destination_id: (await addDestination(child, key, { url: `${target.url}/torn` })).id });
      const res = await ingest(child, source.path_token, '{"torn":true}'); // first try due in 4 s
      expect(res.status).toBe(202);
      const id = res.json.data.id as string;
      await gateway.kill('SIGKILL');

      const db = new Level<string, Record<string, { S?: string }>>(join(dataDir, 'dynamodb'), { valueEncoding: 'json' });
      let removed = 0;
      for await (const [dbKey, value] of db.iterator()) {
        const keys = Object.keys(value ?? {}).sort().join(',');
        if (keys === 'gsi2pk,gsi2sk,pk,sk' && value.pk?.S === `ACCT#${accountId}#EVT#${id}`) {
          await db.del(dbKey);
          removed++;
        }
      }
      await db.close();
      expect(removed).toBe(1);
      recordFigures(SOURCE, { faultsInjected: 1 });

      gateway = await startChildGateway(childEnv);
      child = httpClient(gateway.url);
      await expectAllDelivered(target, [id], '/torn', 30_000);
      expect(gateway.output()).toMatch(/did not stop cleanly; repaired \d+ index entr/);
      await eventually(() => eventDetail(child, key, id), (d) => d.event.status === 'delivered');
    } finally {
      await gateway.kill('SIGTERM');
      await target.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
