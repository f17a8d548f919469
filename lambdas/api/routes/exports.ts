import * as z from 'zod';
import { BUCKETS } from '../../shared/resource-definitions';
import { gone, invalid, notFound } from '../../domain/errors';
import { encoderFor } from '../../domain/export-rows';
import { exportExpiresAt, isExpired } from '../../domain/retention';
import { downloadUrl } from '../../adapters/export-files';
import { startJobWorker } from '../../adapters/job-trigger';
import { newId } from '../../shared/secrets';
import { findExportJob, insertExportJob, listExportJobs } from '../../store/exports';
import { type ExportJobRecord } from '../../store/records';
import { exampleExportJob, exampleReadyExportJob, ids } from '../examples';
import { json, jsonBody, list, redirect } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { exportJobResponse, named, type ExportJobResponse } from '../schemas';
import { JOB_LIST_ERRORS, jobListQuery, parseJsonBody, parsePathId, parseWith, timestampField } from '../validation';
import { DIRECTIONS, EVENT_STATUSES, EXPORT_FORMATS } from '../../domain/vocabulary';

const createExportBody = named(
  'CreateExportRequest',
  z.strictObject({
    format: z.enum(EXPORT_FORMATS).optional().describe('Default `json`.'),
    filters: z
      .strictObject({
        direction: z.enum(DIRECTIONS).optional(),
        status: z.enum(EVENT_STATUSES).optional(),
        date_from: timestampField('filters.date_from').optional().describe('ISO 8601; inclusive bound on `created_at`.'),
        date_to: timestampField('filters.date_to').optional().describe('ISO 8601; inclusive bound on `created_at`.'),
      })
      .optional()
      .describe('Every member optional; an absent filter restricts nothing.'),
  }),
);

const presentExportJob = (job: ExportJobRecord): ExportJobResponse => ({
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
  defineRoute({
    method: 'POST',
    path: '/v1/exports',
    auth: 'api_key',
    doc: {
      operationId: 'createExport',
      summary: 'Start an export of event history',
      description:
        'The worker moves the job to `processing` and then `ready` (`row_count`, `completed_at`) or `failed` (`error_message`). Rows are the newest events first, at most 10,000, with the columns `id,direction,event_type,external_event_id,status,attempts_count,received_at,created_at`.',
      tag: 'Exports',
      body: jsonBody(createExportBody, { format: 'csv', filters: { status: 'dead_letter', date_from: '2026-05-01T00:00:00Z' } }),
      responses: { 201: json('The job, queued.', exportJobResponse, exampleExportJob) },
      errors: {
        400: [
          'format must be one of: json, csv',
          'filters.direction must be one of: inbound, outbound',
          `filters.status must be one of: ${EVENT_STATUSES.join(', ')}`,
          'filters.date_from must be an ISO 8601 timestamp',
          'filters.date_to must be an ISO 8601 timestamp',
          'filters.date_from must not be after filters.date_to',
          'filters must be an object',
          'unknown field: filters.colour',
        ],
      },
    },
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, createExportBody);
      const filters = body.filters ?? {};
      if (filters.date_from && filters.date_to && filters.date_from > filters.date_to) {
        throw invalid('filters.date_from must not be after filters.date_to');
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
      await startJobWorker('export', job);
      return { status: 201, data: presentExportJob(job) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/exports',
    auth: 'api_key',
    doc: {
      operationId: 'listExports',
      summary: 'List export jobs',
      tag: 'Exports',
      query: jobListQuery,
      responses: { 200: list('The account’s jobs, newest first.', exportJobResponse, [exampleReadyExportJob]) },
      errors: { 400: JOB_LIST_ERRORS },
    },
    handle: async ({ request, principal }) => {
      const query = parseWith(jobListQuery, request.query);
      const jobs = await listExportJobs(principal.accountId, query.limit ?? 25, query.offset ?? 0);
      return { status: 200, data: jobs.map(presentExportJob) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/exports/:id',
    auth: 'api_key',
    doc: {
      operationId: 'getExport',
      summary: 'Show an export job',
      tag: 'Exports',
      responses: { 200: json('The job.', exportJobResponse, exampleReadyExportJob) },
    },
    handle: async ({ params, principal }) => ({ status: 200, data: presentExportJob(await ownedJob(principal.accountId, params.id)) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/exports/:id/download',
    auth: 'api_key',
    doc: {
      operationId: 'downloadExport',
      summary: 'Download a ready export',
      description: 'Redirects to a pre-signed URL of the file, valid 5 minutes, served as `application/json` or `text/csv` and as an attachment.',
      tag: 'Exports',
      responses: {
        302: redirect(
          'The file’s pre-signed URL, in `Location`.',
          `https://hookgate-exports.s3.amazonaws.com/exports/${ids.exportJob}.csv?X-Amz-Expires=300&X-Amz-Signature=5d41402abc4b2a76b9719d911017c592`,
        ),
      },
      errors: { 400: ['export is not ready'], 410: ['export file expired'] },
    },
    handle: async ({ params, principal, now }) => {
      const job = await ownedJob(principal.accountId, params.id);
      if (job.status !== 'ready' || !job.object_key) throw invalid('export is not ready');
      // Its file is gone (the bucket's lifecycle rule): say so, rather than redirect to nothing.
      if (job.completed_at && isExpired(exportExpiresAt(job.completed_at, BUCKETS.exports.fileExpiryDays), now)) throw gone('export file expired');
      const encoder = encoderFor(job.format);
      return { status: 302, location: await downloadUrl(job.object_key, `export-${job.id}.${encoder.extension}`, encoder.contentType) };
    },
  }),
];
