import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ScheduledEvent } from 'aws-lambda';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './aws-clients';

export interface Schedule {
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
  /** Settles when the first run (the start-up run) has ended, however it ended. */
  firstRun: Promise<void>;
}

/**
 * Runs `task` once now and then every `intervalMs`, never two at once: a run that overlaps the
 * next tick delays it. Errors are reported and the schedule goes on.
 */
export function startSchedule(
  name: string,
  task: () => Promise<unknown>,
  intervalMs: number,
  onError: (err: unknown) => void = (err) => console.error(`[hookgate local] schedule ${name} failed:`, err),
): Schedule {
  const abort = new AbortController();
  let firstDone!: () => void;
  const firstRun = new Promise<void>((resolve) => (firstDone = resolve));
  const loop = (async () => {
    while (!abort.signal.aborted) {
      const startedAt = Date.now();
      try {
        await task();
      } catch (err) {
        onError(err);
      }
      firstDone();
      const wait = Math.max(0, intervalMs - (Date.now() - startedAt));
      await sleep(wait, undefined, { signal: abort.signal }).catch(() => undefined);
    }
  })();
  return {
    stop: async () => {
      abort.abort();
      await loop;
      firstDone();
    },
    firstRun,
  };
}

/** The event an EventBridge schedule rule hands its target. */
export function scheduledEvent(ruleName: string, now = new Date()): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: LOCAL_ACCOUNT_ID,
    time: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: LOCAL_REGION,
    resources: [`arn:aws:events:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:rule/${ruleName}`],
    detail: {},
  };
}
