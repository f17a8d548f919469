import { csvLine } from './csv';

/** The columns of an export, in order (contract). */
export const EXPORT_COLUMNS = [
  'id',
  'direction',
  'event_type',
  'external_event_id',
  'status',
  'attempts_count',
  'received_at',
  'created_at',
] as const;

export type ExportRow = Record<(typeof EXPORT_COLUMNS)[number], string | number | null>;

export const MAX_EXPORT_ROWS = 10_000;

/** Encodes rows one by one, so a caller can stream them and never hold the whole file. */
export interface RowEncoder {
  contentType: string;
  extension: string;
  header(): string;
  row(row: ExportRow, index: number): string;
  footer(rowCount: number): string;
}

export const csvEncoder: RowEncoder = {
  contentType: 'text/csv',
  extension: 'csv',
  header: () => csvLine(EXPORT_COLUMNS),
  row: (row) => csvLine(EXPORT_COLUMNS.map((column) => row[column])),
  footer: () => '',
};

export const jsonEncoder: RowEncoder = {
  contentType: 'application/json',
  extension: 'json',
  header: () => '[',
  row: (row, index) => `${index === 0 ? '' : ','}\n${JSON.stringify(row)}`,
  footer: (rowCount) => (rowCount === 0 ? ']' : '\n]'),
};

export const encoderFor = (format: 'json' | 'csv'): RowEncoder => (format === 'csv' ? csvEncoder : jsonEncoder);
