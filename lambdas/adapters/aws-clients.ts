import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { S3Client } from '@aws-sdk/client-s3';
import { config } from '../shared/config';
import { traced } from '../shared/tracing';

// One client per service per process, created lazily and reused across invocations (keep-alive).
// Local endpoints come from the SDK's own AWS_ENDPOINT_URL_<SERVICE> variables. In AWS Lambda every
// call is an X-Ray subsegment (the document client shares its base client's middleware stack).
let dynamo: DynamoDBDocumentClient | undefined;
let sqs: SQSClient | undefined;
let s3: S3Client | undefined;

export function documentClient(): DynamoDBDocumentClient {
  dynamo ??= DynamoDBDocumentClient.from(traced(new DynamoDBClient({})), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return dynamo;
}

export function sqsClient(): SQSClient {
  sqs ??= traced(new SQSClient({}));
  return sqs;
}

export function s3Client(): S3Client {
  s3 ??= traced(new S3Client({ forcePathStyle: config().s3ForcePathStyle }));
  return s3;
}
