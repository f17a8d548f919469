import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqsClient } from '../../lambdas/adapters/aws-clients';
import { startChildGateway } from '../fixtures/child-gateway';
import { bootGatewayWithSink, DELIVERY_TEST_ENV } from '../fixtures/gateway';
import { httpClient, type Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually, startSink, type Sink } from '../fixtures/sink';

let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let sink: Sink;

beforeAll(async () => {
  env = await bootGatewayWithSink();
  ({ call, sink } = env);
});
afterAll(() => env?.stop());

describe('an event is queued before it is stored (the outbox)', () => {
  it('answers 500 when the queue send fails: nothing stored; the provider\'s retry is delivered once', async () => {
    const { key, source } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/late` });
    await addRoute(call, key, { destination_id: dest.id });

    // The ingest handler's own SQS client (the same module instance the gateway loaded) refuses sends.
    const queue = mockClient(sqsClient());
    queue.on(SendMessageBatchCommand).rejects(new Error('SQS is throttling'));
    let refused;
    try {
      refused = await ingest(call, source.path_token, '{"lost":false}');
      expect(queue.commandCalls(SendMessageBatchCommand)).toHaveLength(1);
    } finally {
      queue.restore();
    }
    expect(refused.status).toBe(500);
    expect((await call('GET', '/v1/events', { key })).json.data).toEqual([]);

    const retried = await ingest(call, source.path_token, '{"lost":false}');
    expect(retried.status).toBe(202);
    const detail = await eventually(() => eventDetail(call, key, retried.json.data.id), (d) => d.event.status === 'delivered', 20_000);
    expect(detail.attempts).toHaveLength(1);
    expect(sink.received.filter((r) => r.path === '/late')).toHaveLength(1);
  });
});

describe('a gateway killed with SIGKILL loses nothing it answered 202 for', () => {
  it('delivers every accepted event after a restart on the same data', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'hookgate-crash-'));
    const childEnv = { ...DELIVERY_TEST_ENV, HOOKGATE_DATA_DIR: dataDir };
    let down = true;
    const target = await startSink((_req, res) => res.writeHead(down ? 503 : 200).end());
    let gateway = await startChildGateway(childEnv);
    try {
      let child = httpClient(gateway.url);
      const { key, source } = await accountWithSource(child);
      const dest = await addDestination(child, key, { url: `${target.url}/crash` });
      await addRoute(child, key, { destination_id: dest.id });

      // Ingests in flight, some queued, some mid-try, some waiting for a retry: then the process dies.
      const accepted: string[] = [];
      await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const res = await ingest(child, source.path_token, JSON.stringify({ i }));
          if (res.status === 202) accepted.push(res.json.data.id);
        }),
      );
      expect(accepted).toHaveLength(30);
      await gateway.kill('SIGKILL');
      down = false;

      gateway = await startChildGateway(childEnv);
      child = httpClient(gateway.url);
      await eventually(
        async () => {
          const list = await child('GET', '/v1/events?limit=200', { key });
          return list.json.data as Array<{ id: string; status: string }>;
        },
        (events) => events.length === 30 && events.every((e) => e.status === 'delivered'),
        90_000,
      );
      const delivered = new Set(target.received.filter((r) => r.path === '/crash' && r.headers['x-webhook-id']).map((r) => String(r.headers['x-webhook-id'])));
      for (const id of accepted) expect(delivered.has(id), id).toBe(true);
    } finally {
      await gateway.kill('SIGTERM');
      await target.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
