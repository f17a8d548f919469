import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { messageAttributes } from '../../domain/aws-messages';
import { objectKey, type AwsTarget } from '../../domain/aws-targets';
import { config as deployment } from '../../shared/config';
import { targetClient } from './clients';
import { answered, type AwsMessage, type AwsSent } from './message';

/**
 * The body as the object, under the destination's key template, with the signed headers as its
 * user metadata (`x-amz-meta-webhook-signature`, ...) and the body's content type as its own.
 */
export async function putEventObject(target: Extract<AwsTarget, { type: 'aws_s3' }>, message: AwsMessage): Promise<AwsSent> {
  const { 'content-type': contentType, ...metadata } = messageAttributes(message.headers, 'utf8');
  const key = objectKey(target.key_template, { id: message.eventId, type: message.eventType, receivedAt: message.receivedAt });
  const client = targetClient(
    's3',
    target.region,
    message.credentials,
    (config) => new S3Client({ ...config, forcePathStyle: deployment().s3ForcePathStyle, followRegionRedirects: true }),
  );
  const output = await client.send(
    new PutObjectCommand({ Bucket: target.bucket, Key: key, Body: message.body, ContentType: contentType, Metadata: metadata }),
    { abortSignal: message.signal },
  );
  return answered(output, { key, etag: output.ETag });
}
