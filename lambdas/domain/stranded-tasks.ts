import { isTerminalDelivery } from './event-status';
import type { DeliveryState, EndReason } from './progress';

/**
 * A delivery task in the delivery DLQ: SQS moved it there after `maxReceiveCount` receives without a
 * delete (a crashing or timed-out worker, throttled batches, a task that trips a bug). Nothing else
 * sends it again, so its delivery would wait in silence until its event's window ends. The sweeper
 * takes each one back once: sent again, marked, to the delivery queue (throttles and crashes pass);
 * one that lands there again with the mark ends its delivery with this reason, announced.
 */
const TASK_FAILED: EndReason = 'task_failed';

export type StrandedTaskAction =
  /** Nothing it can read, or a destination's own task back again after being sent once more: left in the DLQ for the operator. */
  | { kind: 'leave' }
  /** Nothing waits on it (its event is gone, its delivery ended or not planned): the message is deleted. */
  | { kind: 'drop' }
  /** Sent once more to the delivery queue, marked, then deleted from the DLQ. */
  | { kind: 'rearm' }
  /** Already sent once more and back: its delivery ends (`task_failed`), and the message is deleted. */
  | { kind: 'end'; reason: EndReason };

export interface StrandedTaskInput {
  /** The message as read: a delivery task or a destination's own task (each with its re-armed mark), or nothing readable. */
  task: { kind: 'delivery' | 'destination'; rearmed: boolean } | { kind: 'unreadable' };
  /** The task's delivery as stored; undefined when its event is gone or plans no such delivery. */
  delivery: DeliveryState | undefined;
}

/**
 * A destination's own task (a wake, a release page, a slots check) is safe to run twice (a stale wake
 * does nothing, a release finds nothing held, a check only reads), and a lost one can leave its held
 * deliveries asleep until their window ends: it is sent once more too, and left for the operator if it
 * comes back.
 */
export function strandedTaskAction({ task, delivery }: StrandedTaskInput): StrandedTaskAction {
  if (task.kind === 'unreadable') return { kind: 'leave' };
  if (task.kind === 'destination') return task.rearmed ? { kind: 'leave' } : { kind: 'rearm' };
  if (!delivery || isTerminalDelivery(delivery.status)) return { kind: 'drop' };
  return task.rearmed ? { kind: 'end', reason: TASK_FAILED } : { kind: 'rearm' };
}
