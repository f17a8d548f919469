import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export const LOCAL_REGION = 'us-east-1';
/**
 * The AWS account of the local runtime: the one local-aws-sqs names in every queue URL and ARN, so
 * every other local ARN (tables, functions, roles, the request contexts API Gateway would send) names it too.
 */
export const LOCAL_ACCOUNT_ID = '123456789012';

/** s3rver only accepts this key pair; dynalite and local-aws-sqs accept anything. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

export interface EmulatorEndpoints {
  dynamodb: string;
  sqs: string;
  s3: string;
}

export interface LocalClients {
  dynamodb: DynamoDBClient;
  sqs: SQSClient;
  s3: S3Client;
  destroy(): void;
}

type Next = (args: { request?: { headers?: Record<string, string> } }) => Promise<unknown>;

/** Any client's stack, whatever its commands' types: the middleware below reads only the request's headers. */
interface Stack {
  remove(name: string): boolean;
  add(middleware: (next: Next) => Next, options: { step: 'finalizeRequest'; name: string }): void;
}

const unsigned = new WeakSet<object>();

/** The date and header of the current second: formatting them on every call cost more than the rest of the middleware. */
let stamp = { second: -1, date: '', authorization: '' };
function currentStamp(): typeof stamp {
  const second = Math.floor(Date.now() / 1000);
  if (second !== stamp.second) {
    const date = new Date(second * 1000).toISOString().replace(/[-:]|\.\d{3}/g, '');
    const scope = `${date.slice(0, 8)}/${LOCAL_REGION}/local/aws4_request`;
    stamp = { second, date, authorization: `AWS4-HMAC-SHA256 Credential=${LOCAL_CREDENTIALS.accessKeyId}/${scope}, SignedHeaders=host, Signature=unsigned` };
  }
  return stamp;
}

/**
 * dynalite and local-aws-sqs never check a request's SigV4 signature (dynalite only wants an
 * Authorization header and a date), yet computing one (hashing the body, an HMAC chain per call) was
 * about a third of the client's CPU per DynamoDB or SQS call. The client sends a well-formed header
 * with no real signature instead. Not for S3: s3rver checks signatures.
 */
export function skipSigning(client: DynamoDBClient | DynamoDBDocumentClient | SQSClient): void {
  const stack = client.middlewareStack as unknown as Stack;
  if (unsigned.has(stack)) return;
  unsigned.add(stack);
  stack.remove('httpSigningMiddleware');
  stack.add(
    (next) => (args) => {
      const headers = args.request?.headers;
      if (headers) {
        const { date, authorization } = currentStamp();
        headers['x-amz-date'] = date;
        headers.authorization = authorization;
      }
      return next(args);
    },
    { step: 'finalizeRequest', name: 'localUnsignedAuth' },
  );
}

export function createLocalClients(endpoints: EmulatorEndpoints): LocalClients {
  const common = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const dynamodb = new DynamoDBClient({ ...common, endpoint: endpoints.dynamodb });
  const sqs = new SQSClient({ ...common, endpoint: endpoints.sqs });
  skipSigning(dynamodb);
  skipSigning(sqs);
  // s3rver cannot decode aws-chunked uploads, which the SDK's default checksums produce for streams.
  const s3 = new S3Client({
    ...common,
    endpoint: endpoints.s3,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    dynamodb,
    sqs,
    s3,
    destroy: () => {
      dynamodb.destroy();
      sqs.destroy();
      s3.destroy();
    },
  };
}
