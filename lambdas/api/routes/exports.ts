import { EVENT_STATUSES } from '../../domain/vocabulary';
import { createExport, exportDownload, listExports, showExport } from '../../exports';
import { createExportBody, exampleExportJob, exampleReadyExportJob, exportJobResponse, presentExportJob } from '../../exports/shapes';
import { ids } from '../../api-kit/examples';
import { settled } from '../outcomes';
import { json, jsonBody, list, redirect } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { JOB_LIST_ERRORS, jobListQuery, parseJsonBody, parsePathId, parseWith } from '../../api-kit/validation';

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
      const { job } = settled(await createExport(principal.accountId, parseJsonBody(request, createExportBody), now));
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
      const jobs = await listExports(principal.accountId, query.limit ?? 25, query.offset ?? 0);
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
    handle: async ({ params, principal }) => {
      const { job } = settled(await showExport(principal.accountId, parsePathId(params.id)));
      return { status: 200, data: presentExportJob(job) };
    },
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
      const { url } = settled(await exportDownload(principal.accountId, parsePathId(params.id), now));
      return { status: 302, location: url };
    },
  }),
];
