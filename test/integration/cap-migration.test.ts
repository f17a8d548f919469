import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { sqsClient } from '../../lambdas/adapters/aws-clients';
import { insertEvent } from '../../lambdas/events/record';
import { config } from '../../lambdas/shared/config';
import { newId } from '../../lambdas/shared/secrets';
import { documentClient } from '../../lambdas/store/client';
import { parkDelivery } from '../../lambdas/store/held-deliveries';
import { getRawItem } from '../../lambdas/store/table';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { accountWithSource, addDestination, addRoute, eventDetail } from '../fixtures/setup';
import { deliveryState, eventRecord } from '../fixtures/records';
import { eventually } from '../fixtures/sink';

// What a deployment of 0.4 leaves when it is upgraded: deliveries parked over their destination's cap
// (a held item each, no message), the chain mark beside them, the slots check each park sent, and
// released tasks carrying the slot they were handed. One pass of the check lets them all go, each
// delivered once, and takes the mark away; the handed fields are dropped as the tasks are read.
const { call, sink } = gatewayWithSinkForFile();

describe('upgrading from the concurrency slots', () => {
  it('lets deliveries parked over the cap go on the slots check, once each, and forgets the chain mark', async () => {
    const { key, accountId } = await accountWithSource(call);
    const dest = await addDestination(call, key, { url: `${sink.url}/upgraded`, max_in_flight: 2 });
    await addRoute(call, key, { destination_id: dest.id });

    const ids: string[] = [];
    for (let n = 0; n < 5; n++) {
      const due = new Date(Date.now() - (10 - n) * 1000).toISOString();
      const event = eventRecord({ id: newId(), account_id: accountId, deliveries: { [dest.id]: deliveryState({ next_attempt_at: due, waiting: { reason: 'concurrency', until: null } }) } });
      await insertEvent(event, { body: Buffer.from(JSON.stringify({ n })), body_size: 8, content_type: 'application/json', headers: {}, payload_hash: 'sha256:test' });
      await parkDelivery(accountId, dest.id, { event_id: event.id, due });
      ids.push(event.id);
    }
    const mark = { pk: `ACCT#${accountId}#HELD#${dest.id}`, sk: 'CHAIN' };
    await documentClient().send(new PutCommand({ TableName: config().tableName, Item: { ...mark, entity: 'held_chain', on: true } }));
    const health = async () => (await call('GET', `/v1/destinations/${dest.id}`, { key })).json.data.health as { held: number };
    expect((await health()).held).toBe(5);

    const send = (task: Record<string, unknown>) => sqsClient().send(new SendMessageCommand({ QueueUrl: config().deliveryQueueUrl, MessageBody: JSON.stringify({ v: 1, account_id: accountId, destination_id: dest.id, ...task }) }));
    // A released task of the first, handed a slot and a share place as 0.4 handed them, and the slots check.
    await send({ event_id: ids[0], flight_slot: 0, handed: { holder: 'h0', lease_until: Date.now() + 60_000, share: { slot: 0, holder: 'h0' } } });
    await send({ kind: 'slots', slots: [0, 1] });

    for (const id of ids) await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'delivered', 30_000);
    const bodies = sink.received.filter((r) => r.path === '/upgraded').map((r) => r.body.toString());
    expect(bodies.sort()).toEqual([0, 1, 2, 3, 4].map((n) => JSON.stringify({ n })));
    await eventually(health, (h) => h.held === 0, 10_000);
    expect(await getRawItem(mark)).toBeUndefined();
  });
});
