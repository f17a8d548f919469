import { endedDelivery } from '../domain/delivery-phases';
import { isTerminalDelivery } from '../domain/event-status';
import { lastTryOf } from '../domain/held-end';
import { strandedTaskAction, type StrandedTaskInput } from '../domain/stranded-tasks';
import { deleteStranded, enqueueDeliveries, receiveStranded, type DeliveryTask, type StrandedMessage } from '../adapters/delivery-queue';
import { log } from '../shared/log';
import { recordDeliveryEnded } from '../shared/metrics';
import { releaseNext } from './ordering';
import { changeDelivery, findEventDeliveries, settleEventIfDone } from '../events/record';
import { announceEnd } from './end-held';

/** How long a message this pass leaves in the DLQ (for the operator) stays hidden from its next reads. */
const LEAVE_HIDDEN_SECONDS = 600;
/** At most this many messages a pass, so a flooded DLQ cannot keep the sweeper from retention. */
const MAX_MESSAGES_PER_PASS = 500;

export interface StrandedReport {
  /** Delivery tasks and destinations' own tasks sent once more to the delivery queue. */
  rearmed: number;
  /** Deliveries ended (`task_failed`): their task came back to the DLQ after being sent once more. */
  ended: number;
  /** Messages deleted with nothing waiting on them (event gone, delivery ended). */
  dropped: number;
  /** Messages left for the operator: unreadable, or a destination's own task back again. */
  left: number;
}

/**
 * Takes back what the delivery DLQ holds (lambdas/domain/stranded-tasks.ts says why and how), page by
 * page until it is empty, the deadline, or the pass's bound. Each message is acted on before it is
 * deleted, so a crash in between leaves it for the next pass: at worst a task sent twice, which the
 * delivery's claim makes harmless.
 */
export async function takeBackStranded(dlqUrl: string, outOfTime: () => boolean): Promise<StrandedReport> {
  const report: StrandedReport = { rearmed: 0, ended: 0, dropped: 0, left: 0 };
  for (let seen = 0; seen < MAX_MESSAGES_PER_PASS && !outOfTime(); ) {
    const page = await receiveStranded(dlqUrl, LEAVE_HIDDEN_SECONDS);
    if (page.length === 0) break;
    for (const message of page) {
      seen++;
      const done = await handle(message, report);
      if (done) await deleteStranded(dlqUrl, message.receiptHandle);
    }
  }
  return report;
}

/** Acts on one message; true when it may be deleted. */
async function handle(message: StrandedMessage, report: StrandedReport): Promise<boolean> {
  if (message.task.kind === 'destination') {
    const own = message.task.task;
    if (strandedTaskAction({ task: { kind: 'destination', rearmed: own.rearmed === true }, delivery: undefined }).kind === 'leave') {
      report.left++;
      return false;
    }
    await enqueueDeliveries([{ ...own, rearmed: true }], 0);
    report.rearmed++;
    log.warn('destination task taken back from the DLQ', { account_id: own.account_id, destination_id: own.destination_id, kind: own.kind });
    return true;
  }
  const task = message.task.kind === 'delivery' ? message.task.task : undefined;
  const found = task && (await findEventDeliveries(task.account_id, task.event_id));
  const stored = task && found?.deliveries[task.destination_id];
  const read: StrandedTaskInput['task'] = task ? { kind: 'delivery', rearmed: task.rearmed === true } : { kind: 'unreadable' };
  const action = strandedTaskAction({ task: read, delivery: stored?.state });
  if (action.kind === 'leave' || !task) {
    report.left++;
    return false;
  }
  switch (action.kind) {
    case 'drop':
      // An ended delivery whose task kept failing may have been the one to release the next of its ordering line.
      if (found && stored && isTerminalDelivery(stored.state.status)) await releaseNext(found.event, task.destination_id);
      report.dropped++;
      return true;
    case 'rearm':
      await enqueueDeliveries([rearmedTask(task)], 0);
      report.rearmed++;
      log.warn('delivery task taken back from the DLQ', { account_id: task.account_id, event_id: task.event_id, destination_id: task.destination_id });
      return true;
    case 'end': {
      if (!found || !stored) return true;
      const now = new Date();
      const ended = await changeDelivery(found.event, task.destination_id, (current) => endedDelivery(current, action.reason), stored);
      if (ended?.changed) {
        await settleEventIfDone(found.event);
        // Thrown, the message stays in the DLQ; the next sweep finds the delivery ended and releases it then (below).
        await releaseNext(found.event, task.destination_id);
        report.ended++;
        recordDeliveryEnded(action.reason);
        log.warn('delivery ended: its task failed again after it was taken back from the DLQ', { account_id: task.account_id, event_id: task.event_id, destination_id: task.destination_id });
        await announceEnd(found.event, task.destination_id, lastTryOf(found.attempts, task.destination_id) ?? null, action.reason, now);
      }
      return true;
    }
  }
}

/** The task as sent again: marked, and without the rate slot it held (it has passed); its due time and first-send time stay. */
function rearmedTask({ rate_slot: _rate, ...task }: DeliveryTask): DeliveryTask {
  return { ...task, rearmed: true };
}
