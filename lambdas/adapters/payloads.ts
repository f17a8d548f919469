import { gunzipSync, gzipSync } from 'node:zlib';
import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { config } from '../shared/config';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { s3Client } from './aws-clients';

/** How long a body's download link lives: long enough to follow it, short enough not to be shared. */
export const BODY_URL_SECONDS = 300;

/** Bodies larger than this go to the payload bucket; the event keeps a pointer (DynamoDB items cap at 400 KB). */
export const INLINE_BODY_LIMIT_BYTES = 300 * 1024;

export const payloadKey = (accountId: string, eventId: string) => `payloads/${accountId}/${eventId}`;

export async function putPayload(key: string, body: Buffer, contentType: string | null): Promise<void> {
  await s3Client().send(
    new PutObjectCommand({
      Bucket: config().payloadBucket,
      Key: key,
      Body: body,
      ContentType: contentType ?? 'application/octet-stream',
    }),
  );
}

export async function getPayload(key: string): Promise<Buffer> {
  const out = await s3Client().send(new GetObjectCommand({ Bucket: config().payloadBucket, Key: key }));
  if (!out.Body) throw new Error(`payload ${key} has no body`);
  return Buffer.from(await out.Body.transformToByteArray());
}

export async function copyPayload(fromKey: string, toKey: string): Promise<void> {
  const bucket = config().payloadBucket;
  await s3Client().send(new CopyObjectCommand({ Bucket: bucket, Key: toKey, CopySource: `${bucket}/${encodeURIComponent(fromKey).replace(/%2F/g, '/')}` }));
}

/** A short-lived link to a stored body, for one too large to answer inline. */
export function payloadUrl(key: string, contentType: string | null): Promise<string> {
  return getSignedUrl(
    s3Client(),
    new GetObjectCommand({ Bucket: config().payloadBucket, Key: key, ResponseContentType: contentType ?? 'application/octet-stream' }),
    { expiresIn: BODY_URL_SECONDS },
  );
}

/** Removes a payload object (retention). Deleting a key that is already gone is not an error in S3. */
export async function deletePayload(key: string): Promise<void> {
  await s3Client().send(new DeleteObjectCommand({ Bucket: config().payloadBucket, Key: key }));
}

/** The exact bytes of a stored body, wherever and however it was kept. */
export async function readStoredBody(stored: { body?: Uint8Array; body_ref?: string; body_compression?: 'gzip' }): Promise<Buffer> {
  if (stored.body_ref) return getPayload(stored.body_ref);
  const bytes = Buffer.from(stored.body ?? new Uint8Array());
  return stored.body_compression === 'gzip' ? gunzipSync(bytes) : bytes;
}

/** Bodies of 1 KB and more are kept gzipped when that saves at least a tenth: DynamoDB bills by the kilobyte. */
export function compactBody(body: Buffer): { body: Buffer; body_compression?: 'gzip' } {
  if (body.length < 1024) return { body };
  const packed = gzipSync(body, { level: 6 });
  return packed.length <= body.length * 0.9 ? { body: packed, body_compression: 'gzip' } : { body };
}
