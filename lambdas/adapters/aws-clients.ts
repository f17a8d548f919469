import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { S3Client } from '@aws-sdk/client-s3';
import { config } from '../shared/config';

// One client per service per process, created lazily and reused across invocations (keep-alive).
// Local endpoints come from the SDK's own AWS_ENDPOINT_URL_<SERVICE> variables. No X-Ray subsegments:
// the X-Ray SDK cost each function ~130 KB and ~15 ms of cold start, and async hooks on every call.
let dynamo: DynamoDBDocumentClient | undefined;
let sqs: SQSClient | undefined;
let s3: S3Client | undefined;

export function documentClient(): DynamoDBDocumentClient {
  dynamo ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return dynamo;
}

export function sqsClient(): SQSClient {
  sqs ??= new SQSClient({});
  return sqs;
}

export function s3Client(): S3Client {
  s3 ??= new S3Client({ forcePathStyle: config().s3ForcePathStyle });
  return s3;
}
