import { encoderFor, EXPORT_COLUMNS, MAX_EXPORT_ROWS, type ExportRow } from '../domain/export-rows';
import { firstIdAt, lastIdAt } from '../domain/time-bounds';
import { exportKey, putExport } from '../adapters/export-files';
import { log } from '../shared/log';
import { listEventPages } from '../events/lists';
import { claimExportJob, findClaimableJobs, finishExportJob, type ExportFilters, type ExportJobRecord } from './record';
import { type Direction, DIRECTIONS } from '../domain/vocabulary';

/** A worker that started a job this long ago is presumed dead (the export function's timeout is shorter). */
export const STALE_CLAIM_MS = 20 * 60 * 1000;
const PAGE_SIZE = 500;
export const EXPORT_FAILED_MESSAGE = 'export failed: the file could not be written; create a new export to try again';

/** Takes and runs jobs: one named job (started right after its creation), or whatever is waiting. */
export async function runExportWorker(options: {
  now: () => Date;
  job?: { accountId: string; jobId: string };
  maxJobs?: number;
}): Promise<{ processed: string[] }> {
  const staleBefore = new Date(options.now().getTime() - STALE_CLAIM_MS);
  const candidates = options.job ? [options.job] : await findClaimableJobs(staleBefore, options.maxJobs ?? 10);
  const processed: string[] = [];
  for (const candidate of candidates) {
    const job = await claimExportJob(candidate.accountId, candidate.jobId, options.now(), staleBefore);
    if (!job) continue; // another worker has it, or it is done
    await runJob(job, options.now);
    processed.push(job.id);
  }
  return { processed };
}

async function runJob(job: ExportJobRecord, now: () => Date): Promise<void> {
  const encoder = encoderFor(job.format);
  try {
    const chunks: string[] = [encoder.header()];
    let rowCount = 0;
    for await (const row of exportRows(job.account_id, job.filters)) {
      chunks.push(encoder.row(row, rowCount));
      rowCount++;
      if (rowCount >= MAX_EXPORT_ROWS) break;
    }
    chunks.push(encoder.footer(rowCount));
    const key = exportKey(job.account_id, job.id, encoder.extension);
    await putExport(key, Buffer.from(chunks.join(''), 'utf8'), encoder.contentType);
    await finishExportJob(job, { status: 'ready', row_count: rowCount, object_key: key }, now());
  } catch (error) {
    // The cause stays in the log: AWS's text names buckets, ARNs and account ids the tenant must not see.
    log.error('export failed', { account_id: job.account_id, job_id: job.id }, error);
    await finishExportJob(job, { status: 'failed', error_message: EXPORT_FAILED_MESSAGE }, now());
  }
}

/**
 * The account's events matching the filters, newest first, from the list index: a key range for the
 * dates (ids are time-ordered), a filter for the status, and both directions merged by id.
 */
async function* exportRows(accountId: string, filters: ExportFilters): AsyncGenerator<ExportRow> {
  const directions = filters.direction ? [filters.direction] : DIRECTIONS;
  const streams = directions.map((direction) => listPages(accountId, direction, filters)[Symbol.asyncIterator]());
  const heads = await Promise.all(streams.map((stream) => stream.next()));
  for (;;) {
    let pick = -1;
    heads.forEach((head, i) => {
      if (head.done) return;
      const best = heads[pick];
      if (pick === -1 || (best && !best.done && String(head.value.id) > String(best.value.id))) pick = i;
    });
    if (pick === -1) return;
    const head = heads[pick];
    if (!head || head.done) return;
    yield head.value;
    heads[pick] = await (streams[pick] as AsyncIterator<ExportRow>).next();
  }
}

async function* listPages(accountId: string, direction: Direction, filters: ExportFilters): AsyncGenerator<ExportRow> {
  const range = {
    newestFirst: true,
    from: filters.date_from ? firstIdAt(Date.parse(filters.date_from)) : undefined,
    to: filters.date_to ? lastIdAt(Date.parse(filters.date_to)) : undefined,
    status: filters.status,
  };
  for await (const page of listEventPages(accountId, direction, range, PAGE_SIZE)) {
    for (const listed of page.items) yield Object.fromEntries(EXPORT_COLUMNS.map((column) => [column, listed[column]])) as ExportRow;
  }
}
