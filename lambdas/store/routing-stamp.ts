import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws-clients';
import { config } from '../shared/config';
import { ForgetfulCache } from './forgetful-cache';
import { ACCOUNT_SK, accountPartition } from './keys';
import type { RoutingTable } from './routing-table';

// The routing table's cache and the stamp that invalidates it: the account, destination, route and
// breaker writers call this module, and routing-table.ts reads through the cache, so no writer
// depends on the reader. Warm functions reuse an account's routing table for HOOKGATE_ROUTE_CACHE_SECONDS (default 5 s). Each
// Lambda function is its own process with its own cache, so what must not be stale is checked:
// accepting an event compares the cached table with the account's routing stamp (loadCurrentRoutingTable),
// and a delivery whose destination is missing from the cache reads again (reloadRoutingTable). Writes
// through this process forget the entry at once, even when a read was in flight during the write.
export const cache = new ForgetfulCache<RoutingTable | undefined>(() => config().routeCacheSeconds * 1000);

export function forgetRoutingTable(accountId: string): void {
  cache.forget(accountId);
}

/**
 * Raises the account's routing stamp after a destination or route write, so every process's next
 * accept sees the change. After the write, never before: a table read that sees the new stamp reads
 * the ACCOUNT item first and the changed item after it, so it has the change.
 */
export async function markRoutingChanged(accountId: string): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: config().tableName,
      Key: { pk: accountPartition(accountId), sk: ACCOUNT_SK },
      UpdateExpression: 'ADD routing_version :one',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':one': 1 },
    }),
  );
  forgetRoutingTable(accountId);
}
