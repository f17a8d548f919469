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
 * A delivery's last chance is its event's retention window (issue 37, "nothing lost in silence"): one
 * that still waits then (held by a paused destination, a retry scheduled far out) is ended by the
 * retention sweeper before its data expires, never left `queued` for good. The sweeper runs here with
 * its clock moved past the window; everything else runs on the wall clock.
 */

const DAY_MS = 86_400_000;
/** A free account's window is a day; locally nothing expires items, so no TTL lag is waited for. */
const PAST_THE_WINDOW_MS = 2 * DAY_MS;

let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let sink: Sink;

beforeAll(async () => {
  // Only the start-up runs of the schedules happen during this file; the test invokes the sweeper itself.
  env = await bootGatewayWithSink({ SCHEDULER_RETENTION_INTERVAL: '3600', HOOKGATE_RECONCILE_INTERVAL: '3600', SCHEDULER_EXPORT_POLL_INTERVAL: '3600' });
  ({ call, sink } = env);
  await env.gateway.startupRuns;
  sink.respondWith((req, res) => res.writeHead(req.path === '/far' ? 500 : 200).end());
});
afterAll(() => env?.stop());

/** As the sweeper function, so its calls are held to its role (local IAM, from the synthesised stack). */
const runSweeper = (nowMs: number) => runAs('hookgate-sweeper', () => sweeper({ time: new Date(nowMs).toISOString() }));

interface Notice {
  type: string;
  data: Record<string, unknown>;
}
const noticesAt = (path: string) => sink.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body.toString('utf8')) as Notice);

async function exportRows(key: string): Promise<Array<Record<string, unknown>>> {
  const hookgate = typedClient(call, key);
  const created = await hookgate.exports.create({ format: 'json', filters: { direction: 'outbound' } });
  const job = await eventually(() => hookgate.exports.get(created.id), (j) => j.status === 'ready' || j.status === 'failed', 60_000);
  expect(job.status).toBe('ready');
  const file = await fetch(await hookgate.exports.downloadUrl(job.id));
  return (await file.json()) as Array<Record<string, unknown>>;
}

describe('a delivery still waiting when its event’s window ends', () => {
  it('ends expired: dead-lettered, its event settled, announced, exported; its held item skipped on release', async () => {
    const { key } = await createAccount(call, { name: 'expiry' });
    const hookgate = typedClient(call, key);
    const ops = await addDestination(call, key, { url: `${sink.url}/ops`, retry_schedule: [0] });
    await addRoute(call, key, { destination_id: ops.id, event_type_pattern: 'hookgate.*' });
    const paused = await addDestination(call, key, { url: `${sink.url}/paused`, active: false });
    await addRoute(call, key, { destination_id: paused.id, event_type_pattern: 'order.held' });
    // Nine days of retries: past the window plus TTL's margin, where its body would be gone.
    const far = await addDestination(call, key, { url: `${sink.url}/far`, retry_schedule: [0, ...Array(9).fill(86_400)] });
    await addRoute(call, key, { destination_id: far.id, event_type_pattern: 'order.retried' });

    const held = (await hookgate.outboundEvents.publish({ event_type: 'order.held', payload: { n: 1 } })).id;
    const retried = (await hookgate.outboundEvents.publish({ event_type: 'order.retried', payload: { n: 2 } })).id;
    await eventually(() => eventDetail(call, key, held, '/v1/outbound-events'), (d) => d.event.deliveries[0]?.waiting?.reason === 'paused', 20_000);
    await eventually(() => eventDetail(call, key, retried, '/v1/outbound-events'), (d) => d.event.deliveries[0]?.status === 'retry_scheduled', 20_000);
    await eventually(() => hookgate.destinations.get(paused.id), (d) => d.health.held === 1);

    // Inside the window nothing ends.
    expect(await runSweeper(Date.now())).toMatchObject({ expired_deliveries: 0, failed_accounts: 0 });
    expect((await eventDetail(call, key, held, '/v1/outbound-events')).event.status).toBe('queued');

    const report = await runSweeper(Date.now() + PAST_THE_WINDOW_MS);
    expect(report).toMatchObject({ expired_deliveries: 2, skipped_unsettled: 0, deleted_events: 0, failed_accounts: 0, complete: true });

    // The clock moved for the sweeper alone: for the API's readers both events are still inside their window.
    const heldDetail = await eventDetail(call, key, held, '/v1/outbound-events');
    expect(heldDetail.event.status).toBe('dead_letter');
    expect(heldDetail.event.deliveries).toEqual([expect.objectContaining({ destination_id: paused.id, status: 'dead_letter', attempts: 0, end_reason: 'expired', waiting: null })]);
    const retriedDetail = await eventDetail(call, key, retried, '/v1/outbound-events');
    expect(retriedDetail.event.status).toBe('dead_letter');
    expect(retriedDetail.event.deliveries).toEqual([expect.objectContaining({ destination_id: far.id, status: 'dead_letter', attempts: 1, end_reason: 'expired', next_attempt_at: null })]);
    expect(retriedDetail.attempts).toHaveLength(1);

    // Each is announced once, with its last try (none for the one held from the start).
    await eventually(async () => noticesAt('/ops').length, (n) => n === 2, 20_000);
    const notices = noticesAt('/ops');
    expect(notices.every((n) => n.type === 'hookgate.delivery.dead_lettered')).toBe(true);
    expect(notices.find((n) => n.data.event_id === held)?.data).toMatchObject({ destination_id: paused.id, end_reason: 'expired', last_attempt: null });
    expect(notices.find((n) => n.data.event_id === retried)?.data).toMatchObject({
      destination_id: far.id,
      end_reason: 'expired',
      last_attempt: { attempt_number: 1, outcome: 'http_error', response_status: 500 },
    });

    // The announcements are events of the account, in its exports; so are the events, settled.
    const rows = await exportRows(key);
    expect(rows.filter((row) => row.event_type === 'hookgate.delivery.dead_lettered')).toHaveLength(2);
    expect(rows.filter((row) => row.id === held || row.id === retried).map((row) => row.status)).toEqual(['dead_letter', 'dead_letter']);

    // The paused destination switched back on releases the held item of the ended delivery: its task
    // finds the delivery ended and sends nothing. A new event goes through as usual.
    await hookgate.destinations.update(paused.id, { active: true });
    await eventually(() => hookgate.destinations.get(paused.id), (d) => d.health.held === 0);
    const after = (await hookgate.outboundEvents.publish({ event_type: 'order.held', payload: { n: 3 } })).id;
    await eventually(() => eventDetail(call, key, after, '/v1/outbound-events'), (d) => d.event.status === 'delivered', 20_000);
    expect(sink.received.filter((r) => r.path === '/paused').map((r) => JSON.parse(r.body.toString('utf8')))).toEqual([{ n: 3 }]);
    expect((await eventDetail(call, key, held, '/v1/outbound-events')).event.deliveries[0]).toMatchObject({ status: 'dead_letter', end_reason: 'expired' });
    // The far endpoint had its one try and no other.
    expect(sink.received.filter((r) => r.path === '/far')).toHaveLength(1);

    // Settled, the expired events are past their window: the next pass deletes them.
    await runSweeper(Date.now() + PAST_THE_WINDOW_MS);
    expect((await call('GET', `/v1/outbound-events/${held}`, { key })).status).toBe(404);
    expect((await call('GET', `/v1/outbound-events/${retried}`, { key })).status).toBe(404);
  });
});

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
