import type { Context, ScheduledEvent } from 'aws-lambda';
import { runExportWorker } from '../exports/worker';
import { runReplayWorker } from '../replays/worker';
import { runErasureWorker } from '../erasures/worker';
import { log } from '../shared/log';
import { observedHandler } from '../shared/observability';

/** Without a Lambda context (a direct call), a run has the function's whole 15 minutes. */
const FULL_RUN_MS = 15 * 60_000;

/**
 * The job worker, for export files, bulk replays and erasures: on its schedule it takes whatever is
 * waiting of each; invoked with `detail: {kind, account_id, job_id}` right after a job is created, it takes that one.
 */
async function jobRun(event: Partial<Pick<ScheduledEvent, 'detail'>>, context?: Context) {
  const detail = event.detail as { kind?: unknown; account_id?: unknown; job_id?: unknown } | undefined;
  const job =
    typeof detail?.account_id === 'string' && typeof detail.job_id === 'string'
      ? { accountId: detail.account_id, jobId: detail.job_id }
      : undefined;
  const now = () => new Date();
  const startedAt = Date.now();
  const remainingMs = () => context?.getRemainingTimeInMillis() ?? FULL_RUN_MS - (Date.now() - startedAt);
  const kind = job ? (detail?.kind === 'replay' || detail?.kind === 'erasure' ? detail.kind : 'export') : undefined;
  const runs = (own: typeof kind) => kind === undefined || kind === own;
  const exports = runs('export') ? await runExportWorker({ now, job: kind ? job : undefined }) : { processed: [] };
  const replays = runs('replay') ? await runReplayWorker({ now, job: kind ? job : undefined, remainingMs }) : { processed: [] };
  const erasures = runs('erasure') ? await runErasureWorker({ now, job: kind ? job : undefined, remainingMs }) : { processed: [] };
  if (exports.processed.length > 0) log.info('exports processed', { count: exports.processed.length });
  return { processed: exports.processed, replays: replays.processed, erasures: erasures.processed };
}

export const handler = observedHandler(jobRun);
