import * as z from 'zod';
import { DIRECTIONS, EVENT_STATUSES, EXPORT_FORMATS, EXPORT_STATUSES } from '../domain/vocabulary';
import { at, ids, later } from '../api-kit/examples';
import { eventStatus, named } from '../api-kit/schemas';
import { timestampField } from '../api-kit/validation';
import type { ExportJobRecord } from './record';

/** An export job's API shapes: the request, the answer (typed, so the presenter cannot drift), the examples. */

const uuid = z.uuid();
const timestamp = z.iso.datetime();

export const createExportBody = named(
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

export const exportJobResponse = named(
  'ExportJob',
  z.strictObject({
    id: uuid,
    account_id: uuid,
    status: z.enum(EXPORT_STATUSES),
    format: z.enum(EXPORT_FORMATS),
    filters: z.strictObject({
      direction: z.enum(DIRECTIONS).optional(),
      status: eventStatus.optional(),
      date_from: timestamp.optional(),
      date_to: timestamp.optional(),
    }),
    row_count: z.int().min(0).nullable(),
    created_at: timestamp,
    started_at: timestamp.nullable(),
    completed_at: timestamp.nullable(),
    error_message: z.string().nullable(),
  }),
);
export type ExportJobResponse = z.output<typeof exportJobResponse>;

export const presentExportJob = (job: ExportJobRecord): ExportJobResponse => ({
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

export const exampleExportJob = {
  id: ids.exportJob,
  account_id: ids.account,
  status: 'queued',
  format: 'csv',
  filters: { status: 'dead_letter', date_from: '2026-05-01T00:00:00.000Z' },
  row_count: null,
  created_at: at,
  started_at: null,
  completed_at: null,
  error_message: null,
} satisfies ExportJobResponse;

export const exampleReadyExportJob = {
  ...exampleExportJob,
  status: 'ready',
  row_count: 42,
  started_at: at,
  completed_at: later,
} satisfies ExportJobResponse;
