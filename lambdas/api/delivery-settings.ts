import { z } from 'zod';
import { RETRY_SCHEDULE_LIMITS, scheduleFor } from '../domain/backoff';
import { config } from '../shared/config';
import type { DestinationRecord } from '../store/records';

/** A destination's own delivery settings: how it is retried. Inputs of create and PATCH, and their answer. */
export const retryScheduleInput = z
  .array(z.int().min(0).max(RETRY_SCHEDULE_LIMITS.maxStepSeconds))
  .min(1)
  .max(RETRY_SCHEDULE_LIMITS.maxSteps)
  .nullable()
  .optional()
  .describe(
    'Seconds to wait before each try: step 0 before the first, step i after failed try i, so the number of steps is the number of tries. 1 to 20 steps of 0 to 86400. null or absent: the default `[0, 30, 120, 600, 3600]`.',
  );

export const retryScheduleResponse = z.array(z.int().min(0)).describe('The schedule its deliveries follow (its own, or the default).');

export const DELIVERY_SETTINGS_ERRORS = [
  'retry_schedule must contain at least 1 item(s)',
  'retry_schedule must contain at most 20 items',
  'retry_schedule.0 must be at most 86400',
];

export const presentRetrySchedule = (d: DestinationRecord): number[] => [...scheduleFor(d, config().retrySchedule)];
