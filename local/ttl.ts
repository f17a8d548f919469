import { DeleteCommand, DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TABLE } from '../lambdas/shared/resource-definitions';

/**
 * DynamoDB's TTL, which dynalite lacks, as one pass at a given instant: every item whose TTL attribute
 * is a number of epoch seconds at or before `atMs` is deleted, as AWS deletes it at some point after
 * (within about two days, free). Nothing runs it on a timer: the local runtime keeps items as dynalite
 * does, and the readers treat an expired status item as gone; a test that moves the clock past a
 * window calls it to see what AWS would have left by then (the worst case of TTL's lag: none).
 * Returns how many items it deleted.
 */
export async function expireItems(dynamodb: DynamoDBClient, tableName: string, atMs: number): Promise<number> {
  const table = DynamoDBDocumentClient.from(dynamodb);
  const at = Math.floor(atMs / 1000);
  let deleted = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#ttl <= :at',
        ExpressionAttributeNames: { '#ttl': TABLE.ttlAttribute },
        ExpressionAttributeValues: { ':at': at },
        ProjectionExpression: 'pk, sk',
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      await table.send(new DeleteCommand({ TableName: tableName, Key: { pk: item.pk, sk: item.sk } }));
      deleted++;
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return deleted;
}
