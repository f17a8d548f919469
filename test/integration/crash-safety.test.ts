import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqsClient } from '../../lambdas/adapters/aws-clients';
import { bootGatewayWithSink } from '../fixtures/gateway';
import type { Call } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, eventDetail, ingest } from '../fixtures/setup';
import { eventually, type Sink } from '../fixtures/sink';

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
