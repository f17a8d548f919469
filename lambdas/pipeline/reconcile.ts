import { DELIVERY_QUEUE } from '../shared/resource-definitions';
import { planDeliveries, statusAfter } from '../domain/delivery-plan';
import { isTerminalDelivery } from '../domain/event-status';
import type { DeliveryState } from '../domain/progress';
import { enqueueDeliveries, type DeliveryTask } from '../adapters/delivery-queue';
import { log } from '../shared/log';
import { changeEvent, overdueEvents, RECONCILE_SHARDS } from '../events/record';
import type { EventRecord } from '../events/record';
import { loadCurrentRoutingTable } from '../store/routing-table';

export interface ReconcileOptions {
  now: Date;
  graceSeconds: number;
  /** The queue is known to have lost its messages (the local emulator after a restart): resend all. */
  queueLost?: boolean;
  maxEvents?: number;
}

export interface ReconcileReport {
  examined: number;
  routed: number;
  requeued: number;
}

/**
 * The safety net between DynamoDB and SQS: finds events that should have progressed by now (work
 * index `gsi2`, kept on every event write) and gives them a new queue message. Routes events left
 * `received`; resets tries whose worker died; resends waiting deliveries whose message was lost.
 */
export async function reconcile(options: ReconcileOptions): Promise<ReconcileReport> {
  const report: ReconcileReport = { examined: 0, routed: 0, requeued: 0 };
  const cutoff = options.queueLost ? '\uffff' : new Date(options.now.getTime() - options.graceSeconds * 1000).toISOString();
  const limit = options.maxEvents ?? 1000;
  for (let shard = 0; shard < RECONCILE_SHARDS && report.examined < limit; shard++) {
    for (const key of await overdueEvents(shard, cutoff, limit - report.examined)) {
      report.examined++;
      await reconcileEvent(key.accountId, key.eventId, cutoff, options, report).catch((error: unknown) =>
        log.error('reconcile failed for event', { account_id: key.accountId, event_id: key.eventId }, error),
      );
      if (report.examined >= limit) break;
    }
  }
  return report;
}


async function reconcileEvent(
  accountId: string,
  eventId: string,
  cutoff: string,
  options: ReconcileOptions,
  report: ReconcileReport,
): Promise<void> {
  const nowIso = options.now.toISOString();
  const routing = await loadCurrentRoutingTable(accountId);
  let resend: string[] = [];
  let routedNow = false;
  const result = await changeEvent(accountId, eventId, (event) => {
    resend = [];
    routedNow = false;
    if (event.status === 'received') {
      if (!routing) return undefined;
      routedNow = true;
      const deliveries = planDeliveries(
        routing.routes,
        (id) => routing.destinations.get(id),
        event,
        nowIso,
      );
      resend = Object.keys(deliveries);
      return { ...event, deliveries, status: statusAfter('received', deliveries), retention_days: routing.account.retention_days };
    }
    const deliveries: Record<string, DeliveryState> = { ...event.deliveries };
    for (const [destinationId, delivery] of Object.entries(event.deliveries)) {
      const next = overdueDelivery(delivery, cutoff, nowIso, options.queueLost === true);
      if (!next) continue;
      deliveries[destinationId] = next;
      resend.push(destinationId);
    }
    if (resend.length === 0) return undefined;
    return { ...event, deliveries, status: statusAfter(event.status, deliveries) };
  });
  if (!result?.changed || resend.length === 0) return;
  if (routedNow) report.routed++;
  await resendTasks(result.event, resend, options.now);
  report.requeued += resend.length;
}

/**
 * The state an overdue delivery is resent in, or undefined when it is on time. A try whose worker is
 * gone goes back to `queued` (it may or may not have reached the destination: at-least-once). A
 * waiting delivery's due time moves to now, so the next run gives its new message a grace period.
 */
function overdueDelivery(delivery: DeliveryState, cutoff: string, nowIso: string, queueLost: boolean): DeliveryState | undefined {
  if (isTerminalDelivery(delivery.status)) return undefined;
  if (delivery.status === 'delivering') {
    const back = Date.parse(delivery.claimed_at ?? nowIso) + DELIVERY_QUEUE.visibilityTimeoutSeconds * 1000;
    if (!queueLost && new Date(back).toISOString() >= cutoff) return undefined; // its message may still come back
    return { ...delivery, status: 'queued', claimed_at: null, next_attempt_at: nowIso };
  }
  const due = delivery.next_attempt_at ?? nowIso;
  if (queueLost && due > nowIso) return { ...delivery }; // keep its retry time; the message carries the delay
  if (due >= cutoff) return undefined;
  return { ...delivery, next_attempt_at: nowIso };
}

async function resendTasks(event: EventRecord, destinationIds: string[], now: Date): Promise<void> {
  const byDelay = new Map<number, DeliveryTask[]>();
  for (const destination_id of destinationIds) {
    const due = Date.parse(event.deliveries[destination_id]?.next_attempt_at ?? '');
    const delay = Number.isNaN(due) ? 0 : Math.max(0, Math.ceil((due - now.getTime()) / 1000));
    const tasks = byDelay.get(delay) ?? [];
    // A wait longer than one message delay hops from message to message until it is due.
    tasks.push({ v: 1, account_id: event.account_id, event_id: event.id, destination_id, ...(delay > 0 && { not_before: due }) });
    byDelay.set(delay, tasks);
  }
  for (const [delay, tasks] of byDelay) await enqueueDeliveries(tasks, delay);
}
