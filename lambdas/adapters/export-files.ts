import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { config } from '../shared/config';
import { s3Client } from './aws-clients';

export const DOWNLOAD_URL_SECONDS = 300;

export const exportKey = (accountId: string, jobId: string, extension: string) => `exports/${accountId}/${jobId}.${extension}`;

export async function putExport(key: string, body: Buffer, contentType: string): Promise<void> {
  await s3Client().send(new PutObjectCommand({ Bucket: config().exportBucket, Key: key, Body: body, ContentType: contentType }));
}

/** A short-lived link to the file itself, so large exports never pass through the API function. */
export function downloadUrl(key: string, fileName: string, contentType: string): Promise<string> {
  return getSignedUrl(
    s3Client(),
    new GetObjectCommand({
      Bucket: config().exportBucket,
      Key: key,
      ResponseContentType: contentType,
      ResponseContentDisposition: `attachment; filename="${fileName}"`,
    }),
    { expiresIn: DOWNLOAD_URL_SECONDS },
  );
}
