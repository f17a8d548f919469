import * as z from 'zod';
import { autoDisableHours, DEFAULT_AUTO_DISABLE_HOURS, MAX_AUTO_DISABLE_HOURS } from '../domain/auto-disable';
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

export const autoDisableInput = z
  .number()
  .min(0)
  .max(MAX_AUTO_DISABLE_HOURS)
  .optional()
  .describe(
    `Hours during which every try failed after which Hookgate disables the destination (\`active: false\`, \`health.state: disabled\`, \`disabled_reason\`) and publishes \`hookgate.destination.disabled\`. Decimals allowed; 0: never. Default ${DEFAULT_AUTO_DISABLE_HOURS} (five days).`,
  );

export const MAX_RATE_LIMIT_PER_SECOND = 1000;

export const rateLimitInput = z
  .int()
  .min(1)
  .max(MAX_RATE_LIMIT_PER_SECOND)
  .nullable()
  .optional()
  .describe(
    'Deliveries per second to this destination, across every deliver function: deliveries over the rate wait for their turn (never dropped, no try spent). null or absent: no limit.',
  );

export const rateLimitResponse = z.int().min(1).nullable().describe('Deliveries per second at most; null: no limit.');

export const autoDisableResponse = z.number().min(0).describe('Hours of nothing but failures before Hookgate disables it; 0: never.');

export const presentAutoDisable = (d: DestinationRecord): number => autoDisableHours(d);

export const retryScheduleResponse = z.array(z.int().min(0)).describe('The schedule its deliveries follow (its own, or the default).');

export const DELIVERY_SETTINGS_ERRORS = [
  'retry_schedule must contain at least 1 item(s)',
  'retry_schedule must contain at most 20 items',
  'retry_schedule.0 must be at most 86400',
  'rate_limit_per_second must be an integer',
  'rate_limit_per_second must be at least 1',
  `rate_limit_per_second must be at most ${MAX_RATE_LIMIT_PER_SECOND}`,
  'auto_disable_after_hours must be at least 0',
  `auto_disable_after_hours must be at most ${MAX_AUTO_DISABLE_HOURS}`,
];

export const presentRetrySchedule = (d: DestinationRecord): number[] => [...scheduleFor(d, config().retrySchedule)];
