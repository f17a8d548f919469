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
 * When the event should next show progress if its queue message is alive: a waiting delivery by its
 * due time, a try in flight by the time its message would come back from SQS after a crash. The
 * reconciler re-enqueues events still not progressed a grace period after this. Undefined once
 * nothing is expected (settled events).
 */
export function progressDueAt(
  status: EventStatus,
  receivedAt: string,
  deliveries: Record<string, DeliveryState>,
  visibilityTimeoutSeconds: number,
): string | undefined {
  if (status === 'received') return receivedAt;
  const times: number[] = [];
  for (const delivery of Object.values(deliveries)) {
    if (isTerminalDelivery(delivery.status)) continue;
    if (delivery.status === 'delivering' && delivery.claimed_at) {
      times.push(Date.parse(delivery.claimed_at) + visibilityTimeoutSeconds * 1000);
    } else if (delivery.next_attempt_at) {
      times.push(Date.parse(delivery.next_attempt_at));
    }
  }
  if (times.length === 0) return undefined;
  return new Date(Math.min(...times)).toISOString();
}
