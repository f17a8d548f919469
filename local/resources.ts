import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  type AttributeDefinition,
  type DynamoDBClient,
  type GlobalSecondaryIndex,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, HeadBucketCommand, NotFound, type S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { BUCKETS, DELIVERY_DLQ, DELIVERY_QUEUE, TABLE } from '../lambdas/shared/resource-definitions';
import type { LocalClients } from './aws-clients';

export interface LocalResources {
  tableName: string;
  deliveryQueueUrl: string;
  deliveryQueueArn: string;
  deliveryDlqUrl: string;
  payloadBucket: string;
  exportBucket: string;
}

/**
 * local-aws-sqs counts a ChangeMessageVisibility as one more receive, and the deliver handler
 * changes visibility on every failed try, so each try costs two. Doubling keeps the number of
 * tries before the DLQ the same as on AWS.
 */
export const LOCAL_MAX_RECEIVE_COUNT = DELIVERY_QUEUE.maxReceiveCount * 2;

function keyAttributes(): AttributeDefinition[] {
  const names = [
    TABLE.partitionKey,
    TABLE.sortKey,
    ...TABLE.globalIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
  return names.map((name) => ({ AttributeName: name, AttributeType: 'S' }));
}

function globalIndexes(): GlobalSecondaryIndex[] {
  return TABLE.globalIndexes.map((index) => ({
    IndexName: index.indexName,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: 'HASH' },
      { AttributeName: index.sortKey, KeyType: 'RANGE' },
    ],
    Projection:
      index.projection === 'INCLUDE'
        ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.nonKeyAttributes] }
        : { ProjectionType: index.projection },
  }));
}

/** Creates the table unless a previous run on the same data dir already did. TTL is skipped: dynalite has none. */
async function ensureTable(client: DynamoDBClient): Promise<string> {
  const TableName = TABLE.logicalName;
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName }));
    const existing = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
    const missing = TABLE.globalIndexes.filter((index) => !existing.has(index.indexName));
    if (missing.length > 0) {
      console.warn(
        `[hookgate local] table ${TableName} lacks ${missing.map((i) => i.indexName).join(', ')}; delete the data dir to recreate it`,
      );
    }
    return TableName;
  } catch (err) {
    if (!(err instanceof ResourceNotFoundException)) throw err;
  }
  await client.send(
    new CreateTableCommand({
      TableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: keyAttributes(),
      KeySchema: [
        { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: globalIndexes(),
    }),
  );
  return TableName;
}

async function queueArn(client: SQSClient, QueueUrl: string): Promise<string> {
  const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
  const arn = Attributes?.QueueArn;
  if (!arn) throw new Error(`queue ${QueueUrl} has no ARN`);
  return arn;
}

async function createQueue(client: SQSClient, QueueName: string, Attributes: Record<string, string>): Promise<string> {
  const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName, Attributes }));
  if (!QueueUrl) throw new Error(`queue ${QueueName} was not created`);
  return QueueUrl;
}

async function ensureQueues(
  client: SQSClient,
): Promise<Pick<LocalResources, 'deliveryQueueUrl' | 'deliveryQueueArn' | 'deliveryDlqUrl'>> {
  const deliveryDlqUrl = await createQueue(client, DELIVERY_DLQ.logicalName, {
    MessageRetentionPeriod: String(DELIVERY_DLQ.retentionSeconds),
  });
  const deliveryQueueUrl = await createQueue(client, DELIVERY_QUEUE.logicalName, {
    VisibilityTimeout: String(DELIVERY_QUEUE.visibilityTimeoutSeconds),
    MessageRetentionPeriod: String(DELIVERY_QUEUE.retentionSeconds),
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: await queueArn(client, deliveryDlqUrl),
      maxReceiveCount: LOCAL_MAX_RECEIVE_COUNT,
    }),
  });
  return { deliveryQueueUrl, deliveryQueueArn: await queueArn(client, deliveryQueueUrl), deliveryDlqUrl };
}

async function ensureBucket(client: S3Client, Bucket: string): Promise<string> {
  try {
    await client.send(new HeadBucketCommand({ Bucket }));
  } catch (err) {
    if (!(err instanceof NotFound)) throw err;
    await client.send(new CreateBucketCommand({ Bucket }));
  }
  return Bucket;
}

export async function ensureResources(clients: LocalClients): Promise<LocalResources> {
  const [tableName, queues, payloadBucket, exportBucket] = await Promise.all([
    ensureTable(clients.dynamodb),
    ensureQueues(clients.sqs),
    ensureBucket(clients.s3, BUCKETS.payloads.logicalName),
    ensureBucket(clients.s3, BUCKETS.exports.logicalName),
  ]);
  return { tableName, ...queues, payloadBucket, exportBucket };
}
