import { isTerminalDelivery, type DeliveryStatus, type EventStatus } from './event-status';

export interface DeliveryState {
  status: DeliveryStatus;
  attempts: number;
  /** When the next try is due (queued / retry_scheduled). */
  next_attempt_at: string | null;
  /** When a worker took the current try (delivering). */
  claimed_at: string | null;
}

/**
 * When the event should next show progress if its queue message is alive: the earliest due time of a
 * delivery that is not settled. A claim keeps its delivery's due time, so taking a try does not move
 * the event in the reconciler's index (a write saved on every try); the reconciler itself gives a
 * live claim the queue's visibility timeout before it acts. Undefined once nothing is expected.
 */
export function progressDueAt(status: EventStatus, receivedAt: string, deliveries: Record<string, DeliveryState>): string | undefined {
  if (status === 'received') return receivedAt;
  const times: number[] = [];
  for (const delivery of Object.values(deliveries)) {
    if (isTerminalDelivery(delivery.status)) continue;
    times.push(Date.parse(delivery.next_attempt_at ?? delivery.claimed_at ?? receivedAt));
  }
  if (times.length === 0) return undefined;
  return new Date(Math.min(...times)).toISOString();
}
