import { gunzipSync, gzipSync } from 'node:zlib';
import { payloadClassPrefix, payloadRetentionClass } from '../domain/retention';
import { config } from '../shared/config';

/** The S3 client loads on first use only: most bodies are stored inline and never reach S3. */
const s3 = () => import('./s3');

/** How long a body's download link lives: long enough to follow it, short enough not to be shared. */
const BODY_URL_SECONDS = 300;

/** Bodies larger than this go to the payload bucket; the event keeps a pointer (DynamoDB items cap at 400 KB). */
export const INLINE_BODY_LIMIT_BYTES = 300 * 1024;

/**
 * Where an event's large body is kept: under the retention class of the event's window, whose lifecycle
 * rule deletes the object after the event in AWS, where nothing else does (TTL removes the items only).
 */
export const payloadKey = (accountId: string, eventId: string, retentionDays: number) =>
  `${payloadClassPrefix(payloadRetentionClass(retentionDays))}${accountId}/${eventId}`;

export async function putPayload(key: string, body: Buffer, contentType: string | null): Promise<void> {
  await (await s3()).putObject(config().payloadBucket, key, body, contentType ?? 'application/octet-stream');
}

async function getPayload(key: string): Promise<Buffer> {
  return (await s3()).getObjectBytes(config().payloadBucket, key);
}

export async function copyPayload(fromKey: string, toKey: string): Promise<void> {
  await (await s3()).copyObject(config().payloadBucket, fromKey, toKey);
}

/**
 * A short-lived link to a stored body, for one too large to answer inline. Served as an opaque
 * download whatever the sender declared: a body of type text/html must never render as a page of our
 * bucket's origin (the event's `content_type` says what it is).
 */
export async function payloadUrl(key: string): Promise<string> {
  return (await s3()).presignedGet(config().payloadBucket, key, { contentType: 'application/octet-stream', contentDisposition: 'attachment' }, BODY_URL_SECONDS);
}

/** Removes a payload object (retention). Deleting a key that is already gone is not an error in S3. */
export async function deletePayload(key: string): Promise<void> {
  await (await s3()).deleteObject(config().payloadBucket, key);
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
