import { config } from '../shared/config';

/** The S3 client loads on first use only, so the api function does not load it for every request. */
const s3 = () => import('./s3');

const DOWNLOAD_URL_SECONDS = 300;

export const exportKey = (accountId: string, jobId: string, extension: string) => `exports/${accountId}/${jobId}.${extension}`;

export async function putExport(key: string, body: Buffer, contentType: string): Promise<void> {
  await (await s3()).putObject(config().exportBucket, key, body, contentType);
}

/** A short-lived link to the file itself, so large exports never pass through the API function. */
export async function downloadUrl(key: string, fileName: string, contentType: string): Promise<string> {
  return (await s3()).presignedGet(config().exportBucket, key, { contentType, contentDisposition: `attachment; filename="${fileName}"` }, DOWNLOAD_URL_SECONDS);
}
