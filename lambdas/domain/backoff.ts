/**
 * The retry schedule: step i is the delay before try i+1 (step 0 is before the first try), so the
 * number of steps is the number of tries. Default: now, 30 s, 2 min, 10 min, 1 h.
 */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [0, 30, 120, 600, 3600];

export function parseRetrySchedule(raw: string | undefined): number[] {
  if (raw === undefined || raw.trim() === '') return [...DEFAULT_RETRY_SCHEDULE];
  const steps = raw.split(',').map((part) => Number(part.trim()));
  if (steps.length === 0 || steps.some((s) => !Number.isFinite(s) || s < 0 || s > 43_200)) {
    throw new Error(`invalid retry schedule "${raw}": comma-separated seconds between 0 and 43200`);
  }
  return steps;
}

export type RetryDecision = { retry: true; delaySeconds: number } | { retry: false };

/**
 * What follows failed try number `attempt` (1-based). A `Retry-After` from the destination is honoured
 * as a floor, capped by the time the remaining schedule would have taken anyway.
 */
export function nextRetry(schedule: readonly number[], attempt: number, retryAfterSeconds: number | null): RetryDecision {
  if (attempt >= schedule.length) return { retry: false };
  const planned = schedule[attempt] ?? 0;
  if (retryAfterSeconds === null || retryAfterSeconds <= planned) return { retry: true, delaySeconds: planned };
  const remaining = schedule.slice(attempt).reduce((sum, step) => sum + step, 0);
  return { retry: true, delaySeconds: Math.min(Math.ceil(retryAfterSeconds), Math.max(planned, remaining)) };
}

/** What a destination may set as its own schedule: a day's wait at most per step, as Stripe retries for days. */
export const RETRY_SCHEDULE_LIMITS = { maxSteps: 20, maxStepSeconds: 86_400 } as const;

/** A destination's own schedule when it has one, else the deployment's. */
export const scheduleFor = (destination: { retry_schedule?: readonly number[] | null } | undefined, fallback: readonly number[]): readonly number[] =>
  destination?.retry_schedule ?? fallback;
