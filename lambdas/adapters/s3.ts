import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { config } from '../shared/config';

// The S3 client and every call that needs it. Nothing imports this module statically: payloads.ts
// and export-files.ts load it on first use, so the bundler puts it in a chunk of its own and a
// function loads the S3 client (~150 KB) only when a body over 300 KB, a replay copy or an export
// actually reaches S3.
let s3: S3Client | undefined;

export function s3Client(): S3Client {
  s3 ??= new S3Client({ forcePathStyle: config().s3ForcePathStyle });
  return s3;
}

export async function putObject(bucket: string, key: string, body: Buffer, contentType: string): Promise<void> {
  await s3Client().send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType }));
}

export async function getObjectBytes(bucket: string, key: string): Promise<Buffer> {
  const out = await s3Client().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  if (!out.Body) throw new Error(`object ${key} has no body`);
  return Buffer.from(await out.Body.transformToByteArray());
}

export async function copyObject(bucket: string, fromKey: string, toKey: string): Promise<void> {
  await s3Client().send(new CopyObjectCommand({ Bucket: bucket, Key: toKey, CopySource: `${bucket}/${encodeURIComponent(fromKey).replace(/%2F/g, '/')}` }));
}

/** Deleting a key that is already gone is not an error in S3. */
export async function deleteObject(bucket: string, key: string): Promise<void> {
  await s3Client().send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
}

/** A pre-signed GET, answered with the given headers. */
export function presignedGet(
  bucket: string,
  key: string,
  response: { contentType: string; contentDisposition?: string },
  expiresIn: number,
): Promise<string> {
  return getSignedUrl(
    s3Client(),
    new GetObjectCommand({ Bucket: bucket, Key: key, ResponseContentType: response.contentType, ResponseContentDisposition: response.contentDisposition }),
    { expiresIn },
  );
}
