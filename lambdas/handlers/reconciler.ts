import type { ScheduledEvent } from 'aws-lambda';
import { reconcile } from '../pipeline/reconcile';
import { config } from '../shared/config';
import { log } from '../shared/log';
import { observedHandler } from '../shared/observability';

/** Every minute (EventBridge): resend what fell between the table and the queue. */
async function reconcileRun(event: Pick<ScheduledEvent, 'detail'>) {
  const queueLost = (event.detail as { queue_lost?: unknown } | undefined)?.queue_lost === true;
  const report = await reconcile({ now: new Date(), graceSeconds: config().reconcileGraceSeconds, queueLost });
  if (report.examined > 0) log.info('reconciled', { ...report, queue_lost: queueLost });
  return report;
}

export const handler = observedHandler(reconcileRun);
