/**
 * Auto-disable (as Svix does after five days): a destination whose every try has failed for
 * `auto_disable_after_hours` is switched off. Pure: the breaker already knows when the failures began.
 */
export const DEFAULT_AUTO_DISABLE_HOURS = 120;
export const MAX_AUTO_DISABLE_HOURS = 8760;
/**
 * The least a value other than 0 may be (0.36 s): DynamoDB stores no number below 1e-130 in
 * magnitude, and a try's own timeout is longer than this anyway.
 */
export const MIN_AUTO_DISABLE_HOURS = 0.0001;

/** The hours a destination may fail before it is disabled; 0: never. */
export const autoDisableHours = (destination: { auto_disable_after_hours?: number | null }) =>
  destination.auto_disable_after_hours ?? DEFAULT_AUTO_DISABLE_HOURS;

/** Why the destination must be disabled now, or null. `failingSince` is the start of its current run of failures. */
export function autoDisableReason(hours: number, failingSince: string | null, now: Date): string | null {
  if (hours <= 0 || failingSince === null) return null;
  if (now.getTime() - Date.parse(failingSince) < hours * 3_600_000) return null;
  return `every delivery failed for ${hours} hour${hours === 1 ? '' : 's'} (since ${failingSince})`;
}
