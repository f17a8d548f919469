import { z } from 'zod';
import { badRequest, notFound } from '../../domain/errors';
import { EVENT_STATUSES } from '../../domain/event-status';
import { encoderFor } from '../../domain/export-rows';
import { downloadUrl } from '../../adapters/export-files';
import { startExportWorker } from '../../adapters/job-trigger';
import { newId } from '../../shared/secrets';
import { findExportJob, insertExportJob, listExportJobs } from '../../store/exports';
import { EXPORT_FORMATS, type ExportJobRecord } from '../../store/records';
import type { Route } from '../router';
import { parseJsonBody, parsePathId, parseWith } from '../validation';

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

const timestampField = (field: string) =>
  z
    .string()
    .refine((v) => ISO_8601.test(v) && !Number.isNaN(Date.parse(v)), { error: () => `${field} must be an ISO 8601 timestamp` })
    .transform((v) => new Date(v).toISOString());

const createExportBody = z.strictObject({
  format: z.enum(EXPORT_FORMATS).optional(),
  filters: z
    .strictObject({
      direction: z.enum(['inbound', 'outbound']).optional(),
      status: z.enum(EVENT_STATUSES).optional(),
      date_from: timestampField('filters.date_from').optional(),
      date_to: timestampField('filters.date_to').optional(),
    })
    .optional(),
});

const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).optional(),
  offset: z.coerce.number().int().min(0).optional(),
});

const presentExportJob = (job: ExportJobRecord) => ({
  id: job.id,
  account_id: job.account_id,
  status: job.status,
  format: job.format,
  filters: job.filters,
  row_count: job.row_count,
  created_at: job.created_at,
  started_at: job.started_at,
  completed_at: job.completed_at,
  error_message: job.error_message,
});

async function ownedJob(accountId: string, rawId: string | undefined): Promise<ExportJobRecord> {
  const job = await findExportJob(accountId, parsePathId(rawId));
  if (!job) throw notFound();
  return job;
}

export const exportRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1/exports',
    auth: 'api_key',
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, createExportBody);
      const filters = body.filters ?? {};
      if (filters.date_from && filters.date_to && filters.date_from > filters.date_to) {
        throw badRequest('filters.date_from must not be after filters.date_to');
      }
      const job: ExportJobRecord = {
        id: newId(),
        account_id: principal.accountId,
        status: 'queued',
        format: body.format ?? 'json',
        filters,
        row_count: null,
        created_at: now.toISOString(),
        started_at: null,
        completed_at: null,
        error_message: null,
        object_key: null,
      };
      await insertExportJob(job);
      await startExportWorker(job);
      return { status: 201, data: presentExportJob(job) };
    },
  },
  {
    method: 'GET',
    path: '/v1/exports',
    auth: 'api_key',
    handle: async ({ request, principal }) => {
      const query = parseWith(listQuery, request.query);
      const jobs = await listExportJobs(principal.accountId, query.limit ?? 25, query.offset ?? 0);
      return { status: 200, data: jobs.map(presentExportJob) };
    },
  },
  {
    method: 'GET',
    path: '/v1/exports/:id',
    auth: 'api_key',
    handle: async ({ params, principal }) => ({ status: 200, data: presentExportJob(await ownedJob(principal.accountId, params.id)) }),
  },
  {
    method: 'GET',
    path: '/v1/exports/:id/download',
    auth: 'api_key',
    handle: async ({ params, principal }) => {
      const job = await ownedJob(principal.accountId, params.id);
      if (job.status !== 'ready' || !job.object_key) throw badRequest('export is not ready');
      const encoder = encoderFor(job.format);
      return { status: 302, location: await downloadUrl(job.object_key, `export-${job.id}.${encoder.extension}`, encoder.contentType) };
    },
  },
];
