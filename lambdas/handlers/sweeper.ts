import type { Context, ScheduledEvent } from 'aws-lambda';
import { sweepRetention, type SweepReport } from '../pipeline/retention';
import { config } from '../shared/config';
import { log } from '../shared/log';
import { observedHandler } from '../shared/observability';

/** No new work starts with less than this left before the Lambda timeout. */
export const SAFETY_MARGIN_MS = 30_000;
/** The budget when invoked without a Lambda context (scripts, tests). */
export const DEFAULT_BUDGET_MS = 10 * 60_000;

/** "Now" for retention: the schedule's `time` (EventBridge sets it; tests inject their clock there). */
export function sweepClock(event: { time?: unknown } | undefined, fallback: () => Date = () => new Date()): Date {
  const parsed = typeof event?.time === 'string' ? Date.parse(event.time) : Number.NaN;
  return Number.isFinite(parsed) ? new Date(parsed) : fallback();
}

/**
 * Retention sweeper: hourly (EventBridge) and once at deploy (the local runtime: at start-up). Takes
 * stranded delivery tasks back from the DLQ, deletes settled events older than their account's window
 * (keeping unsettled ones whole: rule 5), and re-times TTLs after a retention change; stops in time
 * and resumes from a checkpoint on the next run.
 */
async function sweep(
  event: Partial<Pick<ScheduledEvent, 'time'>> = {},
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<SweepReport> {
  const startedAt = Date.now();
  const budget = context ? context.getRemainingTimeInMillis() - SAFETY_MARGIN_MS : DEFAULT_BUDGET_MS;
  const now = sweepClock(event);
  const report = await sweepRetention({ now, deadline: startedAt + budget, ttlLagSeconds: config().ttlLagSeconds, dlqUrl: config().deliveryDlqUrl });
  log.info('retention sweep', { ...report, now: now.toISOString(), duration_ms: Date.now() - startedAt });
  return report;
}

export const handler = observedHandler(sweep);
