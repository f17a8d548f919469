import { downloadUrl } from '../adapters/export-files';
import { startJobWorker } from '../adapters/job-trigger';
import { encoderFor } from '../domain/export-rows';
import { gone, invalid } from '../domain/errors';
import { exportExpiresAt, isExpired } from '../domain/retention';
import { refused, type NotFound, type Refused } from '../domain/outcomes';
import { BUCKETS } from '../shared/resource-definitions';
import { newId } from '../shared/secrets';
import { findExportJob, insertExportJob, listExportJobs, type ExportFilters, type ExportJobRecord } from './record';

/**
 * An export of the account's event history: created queued (and the worker started at once), then
 * written by the worker (./worker.ts); shown, listed, and downloaded once ready, while its file lasts.
 */

export interface ExportRequest {
  format?: ExportJobRecord['format'];
  filters?: ExportFilters;
}

export async function createExport(accountId: string, request: ExportRequest, now: Date): Promise<{ kind: 'created'; job: ExportJobRecord } | Refused> {
  const filters = request.filters ?? {};
  if (filters.date_from && filters.date_to && filters.date_from > filters.date_to) {
    return refused(invalid('filters.date_from must not be after filters.date_to'));
  }
  const job: ExportJobRecord = {
    id: newId(),
    account_id: accountId,
    status: 'queued',
    format: request.format ?? 'json',
    filters,
    row_count: null,
    created_at: now.toISOString(),
    started_at: null,
    completed_at: null,
    error_message: null,
    object_key: null,
  };
  await insertExportJob(job);
  await startJobWorker('export', job);
  return { kind: 'created', job };
}

export { listExportJobs as listExports };

export async function showExport(accountId: string, jobId: string): Promise<{ kind: 'found'; job: ExportJobRecord } | NotFound> {
  const job = await findExportJob(accountId, jobId);
  return job ? { kind: 'found', job } : { kind: 'not_found' };
}

/** A short-lived URL of a ready job's file; refused before the file is written and once it has expired. */
export async function exportDownload(accountId: string, jobId: string, now: Date): Promise<{ kind: 'download'; url: string } | NotFound | Refused> {
  const job = await findExportJob(accountId, jobId);
  if (!job) return { kind: 'not_found' };
  if (job.status !== 'ready' || !job.object_key) return refused(invalid('export is not ready'));
  // Its file is gone (the bucket's lifecycle rule): say so, rather than redirect to nothing.
  if (job.completed_at && isExpired(exportExpiresAt(job.completed_at, BUCKETS.exports.fileExpiryDays), now)) return refused(gone('export file expired'));
  const encoder = encoderFor(job.format);
  return { kind: 'download', url: await downloadUrl(job.object_key, `export-${job.id}.${encoder.extension}`, encoder.contentType) };
}
