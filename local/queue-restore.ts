import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { enqueueDeliveries, type DeliveryTask, type QueueTask } from '../lambdas/adapters/delivery-queue';
import { accountPartition } from '../lambdas/store/keys';
import { breakerRecord } from '../lambdas/store/records';
import { heldItemOf } from '../lambdas/store/held-deliveries';
import { isTerminalDelivery, SETTLED_STATUSES } from '../lambdas/domain/event-status';
import { isExpired } from '../lambdas/domain/retention';
import { assembleEvent, eventItemKind, eventPartition, eventRecord, type EventRecord } from '../lambdas/events/record';
import { deliveryLeaseSeconds } from '../lambdas/shared/config';
import { destinationRecord } from '../lambdas/destinations/record';
import { pendingVerification } from '../lambdas/domain/endpoint-verification';

/**
 * SQS keeps every message it accepted; the local queue (local-aws-sqs) keeps them in memory only, so
 * a gateway that starts on existing data has lost the messages of every unsettled delivery. This gives
 * each one its message back, due when it was due: a try in flight when the gateway died comes back
 * when its lease ends, as its message would have in SQS. Nothing in AWS does this: there nothing is
 * lost. It scans the whole table and sends with the gateway's own clients (the handlers' clients and
 * settings belong to the gateway that first loaded them). An open breaker gets its wakes back too (its
 * parked deliveries wait for them), and a destination waiting for its endpoint's proof the next try of
 * its challenge (sent at once, its resends counted afresh). Returns how many messages it sent.
 */
export async function restoreQueue(
  clients: { dynamodb: DynamoDBClient; sqs: SQSClient },
  resources: { tableName: string; deliveryQueueUrl: string },
  now: Date,
): Promise<number> {
  const table = DynamoDBDocumentClient.from(clients.dynamodb);
  const leaseMs = deliveryLeaseSeconds(process.env) * 1000;
  const byDelay = new Map<number, QueueTask[]>();
  const later = (task: QueueTask, due: number) => {
    const delay = Math.max(0, Math.ceil((due - now.getTime()) / 1000));
    byDelay.set(delay, [...(byDelay.get(delay) ?? []), task]);
  };
  const events: EventRecord[] = [];
  const parked = new Set<string>();
  const releases = new Map<string, QueueTask>();
  const deliveryItems = new Map<string, Array<Record<string, unknown>>>();
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.send(new ScanCommand({ TableName: resources.tableName, ExclusiveStartKey: startKey }));
    startKey = page.LastEvaluatedKey;
    for (const item of page.Items ?? []) {
      // A parked delivery keeps its park (not given a message: in AWS it has none); its destination gets a
      // release, which lets it go once the breaker lets it (a release chain was a message too).
      const held = heldItemOf(item);
      if (held) {
        parked.add(`${held.accountId}/${held.destinationId}/${held.eventId}`);
        releases.set(`${held.accountId}/${held.destinationId}`, { v: 1, kind: 'release', account_id: held.accountId, destination_id: held.destinationId });
      }
      // An open breaker's parked deliveries wait for its wakes, which were messages too.
      if (item.entity === 'breaker' && item.state === 'open') {
        const breaker = breakerRecord.parse(item);
        const accountId = String(item.pk).slice(accountPartition('').length);
        for (const at of [breaker.open_until, breaker.probe_until]) {
          if (at) later({ v: 1, kind: 'wake', account_id: accountId, destination_id: breaker.destination_id, at }, Date.parse(at));
        }
      }
      if (item.entity === 'destination') {
        const destination = destinationRecord.parse(item);
        if (destination.active && pendingVerification(destination) && destination.verification_challenge) {
          const { account_id, id, verification_challenge: challenge } = destination;
          later({ v: 1, kind: 'verify', account_id, destination_id: id, challenge, attempt: 1 }, now.getTime());
        }
      }
      const kind = eventItemKind(item);
      if (kind === 'delivery') deliveryItems.set(String(item.pk), [...(deliveryItems.get(String(item.pk)) ?? []), item]);
      if (kind !== 'status' || isExpired(item.expires_at, now)) continue;
      const event = eventRecord.parse(item);
      if (!SETTLED_STATUSES.includes(event.status)) events.push(event);
    }
  } while (startKey);

  for (const stored of events) {
    const event = assembleEvent(stored, deliveryItems.get(eventPartition(stored.account_id, stored.id)) ?? []);
    const open = Object.entries(event.deliveries).filter(([, delivery]) => !isTerminalDelivery(delivery.status));
    // Every delivery ended but the event did not settle (its last worker died in between): one task settles it on arrival.
    // A parked delivery under a claim was released and claimed, and its gateway died before the release took
    // the park away: in AWS the claim's message comes back when its lease ends (a release finds the claim live).
    const waitsParked = (destinationId: string, status: string) => status !== 'delivering' && parked.has(`${event.account_id}/${destinationId}/${event.id}`);
    const restore = open.length > 0 ? open.filter(([destination_id, delivery]) => !waitsParked(destination_id, delivery.status)) : Object.entries(event.deliveries).slice(0, 1);
    for (const [destination_id, delivery] of restore) {
      const due =
        delivery.status === 'delivering' ? Date.parse(delivery.claimed_at ?? event.received_at) + leaseMs : Date.parse(delivery.next_attempt_at ?? event.received_at);
      const task: DeliveryTask = { v: 1, account_id: event.account_id, event_id: event.id, destination_id, ...(due > now.getTime() && { not_before: due }) };
      later(task, due);
    }
  }

  for (const release of releases.values()) later(release, now.getTime());

  let restored = 0;
  for (const [delay, tasks] of byDelay) {
    await enqueueDeliveries(tasks, delay, { client: clients.sqs, url: resources.deliveryQueueUrl });
    restored += tasks.length;
  }
  return restored;
}
