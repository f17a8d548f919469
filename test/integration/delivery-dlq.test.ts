import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as sweeper } from '../../lambdas/handlers/sweeper';
import { insertEvent } from '../../lambdas/events/record';
import { newId } from '../../lambdas/shared/secrets';
import { createLocalClients } from '../../local/aws-clients';
import { eventRecord } from '../fixtures/records';
import { runAs } from '../../local/sdk-hooks';
import { bootGatewayWithSink } from '../fixtures/gateway';
import { createAccount, typedClient, type Call } from '../fixtures/http-client';
import { addDestination, addRoute, eventDetail } from '../fixtures/setup';
import { eventually, type Sink } from '../fixtures/sink';

/**
 * Delivery tasks SQS moved to the delivery DLQ (received `maxReceiveCount` times without being done):
 * the retention sweeper takes them back first on every run. Retention itself never ends a delivery
 * that waits (retention-rule-5.test.ts).
 */

let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let sink: Sink;

beforeAll(async () => {
  // Only the start-up runs of the schedules happen during this file; the test invokes the sweeper itself.
  env = await bootGatewayWithSink({ SCHEDULER_RETENTION_INTERVAL: '3600', SCHEDULER_EXPORT_POLL_INTERVAL: '3600' });
  ({ call, sink } = env);
  sink.respondWith((req, res) => res.writeHead(req.path === '/far' ? 500 : 200).end());
});
afterAll(() => env?.stop());

/** As the sweeper function, so its calls are held to its role (local IAM, from the synthesised stack). */
const runSweeper = (nowMs: number) => runAs('hookgate-sweeper', () => sweeper({ time: new Date(nowMs).toISOString() }));

describe('a delivery task in the delivery DLQ', () => {
  /**
   * An event whose only delivery waits with no message of its own: its task was received
   * `maxReceiveCount` times without being done (crashes, throttles), and SQS moved it to the DLQ.
   */
  async function stranded(accountId: string, destinationId: string, n: number): Promise<string> {
    const at = new Date().toISOString();
    const event = eventRecord({
      id: newId(),
      account_id: accountId,
      direction: 'outbound',
      event_type: 'order.stranded',
      created_by: 'api',
      deliveries: { [destinationId]: { status: 'queued', attempts: 0, next_attempt_at: at, claimed_at: null } },
      received_at: at,
      created_at: at,
      version: 1,
    });
    const body = Buffer.from(JSON.stringify({ n }));
    await insertEvent(event, { body, body_size: body.length, content_type: 'application/json', headers: {}, payload_hash: 'sha256:test' });
    return event.id;
  }

  it('is sent once more; back again, its delivery ends task_failed, announced; what cannot be read stays for the operator', async () => {
    const { key, accountId } = await createAccount(call, { name: 'stranded' });
    const hookgate = typedClient(call, key);
    const ops = await addDestination(call, key, { url: `${sink.url}/ops-dlq`, retry_schedule: [0] });
    await addRoute(call, key, { destination_id: ops.id, event_type_pattern: 'hookgate.*' });
    const app = await addDestination(call, key, { url: `${sink.url}/app-dlq` });

    const rearmed = await stranded(accountId, app.id, 1);
    const failedTwice = await stranded(accountId, app.id, 2);
    const delivered = (await hookgate.outboundEvents.publish({ event_type: 'order.delivered', payload: { n: 3 } })).id;
    await addRoute(call, key, { destination_id: app.id, event_type_pattern: 'order.*' });
    const settled = (await hookgate.outboundEvents.publish({ event_type: 'order.settled', payload: { n: 4 } })).id;
    await eventually(() => eventDetail(call, key, settled, '/v1/outbound-events'), (d) => d.event.status === 'delivered', 20_000);

    // What SQS's redrive would have moved there: two tasks of waiting deliveries (one already sent once
    // more), one of a delivery that has settled since, one of an event never routed here, a message no
    // task, and two of the destination's own release pages (one already sent once more).
    const clients = createLocalClients(env.gateway.endpoints);
    const dlq = env.gateway.resources.deliveryDlqUrl;
    const task = (eventId: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ v: 1, account_id: accountId, event_id: eventId, destination_id: app.id, flight_slot: 3, ...extra });
    const release = (extra: Record<string, unknown> = {}) => JSON.stringify({ v: 1, kind: 'release', account_id: accountId, destination_id: app.id, ...extra });
    for (const body of [task(rearmed), task(failedTwice, { rearmed: true }), task(settled), task(delivered), 'not a task', release(), release({ rearmed: true })]) {
      await clients.sqs.send(new SendMessageCommand({ QueueUrl: dlq, MessageBody: body }));
    }

    const report = await runSweeper(Date.now());
    // The release page goes once more (it finds nothing held); the one back again stays for the operator.
    expect(report).toMatchObject({ dlq_rearmed: 2, dlq_ended: 1, dlq_dropped: 2, dlq_left: 2, failed_accounts: 0 });

    // Sent once more, it is delivered as any task is.
    await eventually(() => eventDetail(call, key, rearmed, '/v1/outbound-events'), (d) => d.event.status === 'delivered', 20_000);
    expect(sink.received.filter((r) => r.path === '/app-dlq').map((r) => JSON.parse(r.body.toString('utf8')))).toEqual(expect.arrayContaining([{ n: 1 }, { n: 4 }]));
    expect(sink.received.filter((r) => r.path === '/app-dlq')).toHaveLength(2);

    // Back a second time, it ends, no try spent, and the account is told.
    const ended = await eventDetail(call, key, failedTwice, '/v1/outbound-events');
    expect(ended.event.status).toBe('dead_letter');
    expect(ended.event.deliveries).toEqual([expect.objectContaining({ destination_id: app.id, status: 'dead_letter', attempts: 0, end_reason: 'task_failed' })]);
    const notices = await sink.waitForPath('/ops-dlq', 1, 20_000);
    expect(notices.map((r) => JSON.parse(r.body.toString('utf8')).data)).toEqual([
      expect.objectContaining({ event_id: failedTwice, destination_id: app.id, end_reason: 'task_failed', last_attempt: null }),
    ]);

    // The message that is no task and the release back again stay in the DLQ, hidden a while from the sweeper's next reads.
    const attributes = await clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq, AttributeNames: ['ApproximateNumberOfMessagesNotVisible'] }));
    clients.destroy();
    expect(attributes.Attributes?.ApproximateNumberOfMessagesNotVisible).toBe('2');
    expect(await runSweeper(Date.now())).toMatchObject({ dlq_rearmed: 0, dlq_ended: 0, dlq_dropped: 0, dlq_left: 0 });
  });
});
