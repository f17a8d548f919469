/**
 * "AWS answered instantly": aws-sdk-client-mock on the handlers' client classes, backed by a tiny
 * in-memory table, so the handlers run their real logic (zod parsing, routing, signing, the HTTP
 * POST) while every AWS call returns at once. Only the shapes the hot path uses are understood.
 */
import { ChangeMessageVisibilityCommand, SQSClient, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { S3Client } from '@aws-sdk/client-s3';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';

type Item = Record<string, unknown>;
type Key = { pk: string; sk: string };

export function fakeAws(seed: Item[]) {
  const partitions = new Map<string, Map<string, Item>>();
  const put = (item: Item) => {
    const pk = String(item.pk);
    let partition = partitions.get(pk);
    if (!partition) partitions.set(pk, (partition = new Map()));
    partition.set(String(item.sk), item);
  };
  const get = (key: Key) => partitions.get(key.pk)?.get(key.sk);
  for (const item of seed) put(item);

  const counters = { dynamodb: 0, sqs: 0, s3: 0 };
  const sentTasks: string[] = [];
  const ddb = mockClient(DynamoDBDocumentClient);
  const sqs = mockClient(SQSClient);
  const s3 = mockClient(S3Client);

  ddb.on(GetCommand).callsFake((input: { Key: Key }) => {
    counters.dynamodb++;
    const item = get(input.Key);
    return { Item: item ? structuredClone(item) : undefined };
  });
  ddb.on(PutCommand).callsFake((input: { Item: Item }) => {
    counters.dynamodb++;
    put(structuredClone(input.Item));
    return {};
  });
  ddb.on(UpdateCommand).callsFake((input: { Key: Key }) => {
    counters.dynamodb++;
    return { Attributes: structuredClone(get(input.Key)) };
  });
  ddb.on(DeleteCommand).callsFake((input: { Key: Key }) => {
    counters.dynamodb++;
    partitions.get(input.Key.pk)?.delete(input.Key.sk);
    return {};
  });
  ddb.on(BatchWriteCommand).callsFake((input: { RequestItems: Record<string, Array<{ PutRequest?: { Item: Item }; DeleteRequest?: { Key: Key } }>> }) => {
    counters.dynamodb++;
    for (const requests of Object.values(input.RequestItems)) {
      for (const request of requests) {
        if (request.PutRequest) put(structuredClone(request.PutRequest.Item));
        if (request.DeleteRequest) partitions.get(request.DeleteRequest.Key.pk)?.delete(request.DeleteRequest.Key.sk);
      }
    }
    return { UnprocessedItems: {} };
  });
  ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: Key[] }> }) => {
    counters.dynamodb++;
    const Responses: Record<string, Item[]> = {};
    for (const [table, { Keys }] of Object.entries(input.RequestItems)) {
      Responses[table] = Keys.flatMap((key) => {
        const item = get(key);
        return item ? [structuredClone(item)] : [];
      });
    }
    return { Responses, UnprocessedKeys: {} };
  });
  ddb.on(QueryCommand).callsFake(
    (input: { KeyConditionExpression: string; ExpressionAttributeValues: Record<string, string>; ScanIndexForward?: boolean; Limit?: number; IndexName?: string }) => {
      counters.dynamodb++;
      if (input.IndexName) return { Items: [] };
      const values = input.ExpressionAttributeValues;
      const expression = input.KeyConditionExpression;
      const pk = values[/pk\s*=\s*(:\w+)/.exec(expression)?.[1] ?? ''] ?? '';
      const between = /sk\s+BETWEEN\s+(:\w+)\s+AND\s+(:\w+)/i.exec(expression);
      const prefix = /begins_with\(\s*sk\s*,\s*(:\w+)\s*\)/.exec(expression);
      let items = [...(partitions.get(pk)?.values() ?? [])].sort((a, b) => String(a.sk).localeCompare(String(b.sk)));
      if (between) {
        const from = values[between[1] ?? ''] ?? '';
        const to = values[between[2] ?? ''] ?? '';
        items = items.filter((item) => String(item.sk) >= from && String(item.sk) <= to);
      }
      if (prefix) items = items.filter((item) => String(item.sk).startsWith(values[prefix[1] ?? ''] ?? ''));
      if (input.ScanIndexForward === false) items.reverse();
      if (input.Limit) items = items.slice(0, input.Limit);
      return { Items: items.map((item) => structuredClone(item)) };
    },
  );

  sqs.on(SendMessageBatchCommand).callsFake((input: { Entries: Array<{ Id: string; MessageBody: string }> }) => {
    counters.sqs++;
    for (const entry of input.Entries) sentTasks.push(entry.MessageBody);
    return { Successful: input.Entries.map((e) => ({ Id: e.Id, MessageId: e.Id, MD5OfMessageBody: '' })), Failed: [] };
  });
  sqs.on(ChangeMessageVisibilityCommand).callsFake(() => {
    counters.sqs++;
    return {};
  });
  s3.onAnyCommand().callsFake(() => {
    counters.s3++;
    return {};
  });

  return {
    counters,
    totalCalls: () => counters.dynamodb + counters.sqs + counters.s3,
    /** Delivery tasks the handlers sent, as SQS message bodies, oldest first. */
    sentTasks,
    restore() {
      ddb.restore();
      sqs.restore();
      s3.restore();
    },
  };
}
