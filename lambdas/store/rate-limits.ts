import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SEND_LEAD_MS, slotIntervalMs } from '../domain/rate-limit';
import { documentClient } from '../adapters/aws-clients';
import { config } from '../shared/config';
import { accountPartition } from './keys';
import { isConditionFailure } from './table';

/**
 * A rate-limited destination's send schedule: one small item in a partition of its own, so its writes
 * (one per delivery, only for destinations with a limit) never land in the account partition the
 * routing table is read from. Only ever updated field by field (no `entity` attribute, no put).
 */
const rateKey = (accountId: string, destinationId: string) => ({ pk: `${accountPartition(accountId)}#RATE#${destinationId}`, sk: 'RATE' });

/**
 * Takes the destination's next send slot (epoch ms): in SEND_LEAD_MS, when nobody is ahead, else the slot after
 * the last one taken. Two conditional updates and no read: the common case (a slot in the future)
 * moves `next_slot` on atomically, whatever the concurrency, so every delivery gets a slot of its own.
 * No TTL: `next_slot` may lie hours ahead during a backlog, and the item is one per limited destination.
 */
export async function takeSendSlot(accountId: string, destinationId: string, limitPerSecond: number, now: Date): Promise<number> {
  const interval = slotIntervalMs(limitPerSecond);
  const key = rateKey(accountId, destinationId);
  for (let round = 0; round < 10; round++) {
    const at = now.getTime();
    try {
      const queued = await documentClient().send(
        new UpdateCommand({
          TableName: config().tableName,
          Key: key,
          UpdateExpression: 'SET next_slot = next_slot + :interval',
          ConditionExpression: 'next_slot > :now',
          ExpressionAttributeValues: { ':interval': interval, ':now': at },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(queued.Attributes?.next_slot) - interval;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    try {
      await documentClient().send(
        new UpdateCommand({
          TableName: config().tableName,
          Key: key,
          UpdateExpression: 'SET next_slot = :next',
          ConditionExpression: 'attribute_not_exists(next_slot) OR next_slot <= :now',
          ExpressionAttributeValues: { ':next': at + SEND_LEAD_MS + interval, ':now': at },
        }),
      );
      return at + SEND_LEAD_MS;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  throw new Error(`send slots of destination ${destinationId} kept changing under us`);
}
