import type { ScheduledEvent } from 'aws-lambda';
import { runExportWorker } from '../pipeline/export-job';
import { log } from '../shared/log';
import { observedHandler } from '../shared/observability';

/**
 * The export worker: on its schedule it takes waiting jobs; invoked with `detail: {account_id,
 * job_id}` right after a job is created, it takes that one.
 */
async function exportRun(event: Partial<Pick<ScheduledEvent, 'detail'>>) {
  const detail = event.detail as { account_id?: unknown; job_id?: unknown } | undefined;
  const job =
    typeof detail?.account_id === 'string' && typeof detail.job_id === 'string'
      ? { accountId: detail.account_id, jobId: detail.job_id }
      : undefined;
  const result = await runExportWorker({ now: () => new Date(), job });
  if (result.processed.length > 0) log.info('exports processed', { count: result.processed.length });
  return result;
}

export const handler = observedHandler(exportRun);
