import { invalid } from './errors';

export const PLANS = ['free', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

const DEFAULT_RETENTION_DAYS: Record<Plan, number> = { free: 1, pro: 30, enterprise: 90 };
export const MAX_RETENTION_DAYS = 3650;

/**
 * The retention an account ends up with after a create or an update. Only enterprise accounts
 * choose their own window; a plan change without an explicit window takes the new plan's default.
 */
export function resolveRetention(input: {
  plan: Plan;
  requestedDays: number | undefined;
  currentPlan?: Plan;
  currentDays?: number;
}): number {
  const { plan, requestedDays, currentPlan, currentDays } = input;
  if (requestedDays !== undefined) {
    if (plan !== 'enterprise') throw invalid('retention_days can only be set on the enterprise plan');
    return requestedDays;
  }
  if (currentPlan === plan && currentDays !== undefined) return currentDays;
  return DEFAULT_RETENTION_DAYS[plan];
}
