import { SQSClient } from '@aws-sdk/client-sqs';

// One client per service per process, created lazily and reused across invocations (keep-alive).
// Local endpoints come from the SDK's own AWS_ENDPOINT_URL_<SERVICE> variables. No X-Ray subsegments:
// the X-Ray SDK cost each function ~130 KB and ~15 ms of cold start, and async hooks on every call.
// DynamoDB's client lives with the store (lambdas/store/client.ts), its only user.
let sqs: SQSClient | undefined;

export function sqsClient(): SQSClient {
  sqs ??= new SQSClient({});
  return sqs;
}
