import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';

export const LOCAL_REGION = 'us-east-1';

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

export function createLocalClients(endpoints: EmulatorEndpoints): LocalClients {
  const common = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const dynamodb = new DynamoDBClient({ ...common, endpoint: endpoints.dynamodb });
  const sqs = new SQSClient({ ...common, endpoint: endpoints.sqs });
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
