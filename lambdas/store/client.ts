import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

// One client per process, created lazily and reused across invocations (keep-alive). The store's
// toolkit (table.ts) is its only user in lambdas/; local/, bench/ and tests reach it here to skip
// signing, meter calls or inject faults on the very instance the handlers use. The local endpoint
// comes from the SDK's own AWS_ENDPOINT_URL_DYNAMODB. No X-Ray subsegments: the X-Ray SDK cost each
// function ~130 KB and ~15 ms of cold start, and async hooks on every call.
let dynamo: DynamoDBDocumentClient | undefined;

export function documentClient(): DynamoDBDocumentClient {
  dynamo ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return dynamo;
}
