import { z } from 'zod';
import { publishEvent, type PublishInput } from '../../pipeline/publish-event';
import type { Route } from '../router';
import { issueMessage, parseJsonBody, textField } from '../validation';
import { eventRoutes } from './events';

export const MAX_BATCH_EVENTS = 100;
/** Publishes of one batch run this many at a time: enough to overlap AWS round trips, not a stampede. */
const BATCH_CONCURRENCY = 10;

const payload = z.string({ error: () => 'payload is required' }).min(1, { error: () => 'payload is required' });

const publishBody = z.strictObject({
  payload,
  event_type: textField('event_type').optional(),
  external_event_id: textField('external_event_id', 256).optional(),
});

const batchBody = z.strictObject({
  events: z.array(z.unknown()).min(1).max(MAX_BATCH_EVENTS),
});

type BatchItem =
  | Awaited<ReturnType<typeof publishEvent>>
  | { status: 400; error: string };

async function publishItem(accountId: string, raw: unknown, now: Date): Promise<BatchItem> {
  const parsed = publishBody.safeParse(raw, { reportInput: true });
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return { status: 400, error: first ? issueMessage(first) : 'invalid event' };
  }
  return publishEvent(accountId, parsed.data as PublishInput, now);
}

function splitRepeats(events: readonly unknown[]): { firsts: number[]; repeats: number[] } {
  const seen = new Set<string>();
  const firsts: number[] = [];
  const repeats: number[] = [];
  events.forEach((event, index) => {
    const id = (event as { external_event_id?: unknown } | null)?.external_event_id;
    if (typeof id === 'string' && seen.has(id)) repeats.push(index);
    else {
      if (typeof id === 'string') seen.add(id);
      firsts.push(index);
    }
  });
  return { firsts, repeats };
}

/** Runs `work` over `items` with at most `limit` in flight, keeping the order of the results. */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  });
  await Promise.all(lanes);
  return results;
}

export const outboundEventRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1/outbound-events',
    auth: 'api_key',
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, publishBody);
      return publishEvent(principal.accountId, body, now);
    },
  },
  {
    method: 'POST',
    path: '/v1/outbound-events/batch',
    auth: 'api_key',
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, batchBody);
      const publish = (index: number) => publishItem(principal.accountId, body.events[index], now);
      // A repeat of an external id inside the batch waits for its first occurrence, so it is the one
      // answered as the duplicate, as it would be had the events been sent one by one in order.
      const { firsts, repeats } = splitRepeats(body.events);
      const results = new Array<BatchItem>(body.events.length);
      for (const phase of [firsts, repeats]) {
        const answers = await mapLimited(phase, BATCH_CONCURRENCY, publish);
        phase.forEach((index, i) => (results[index] = answers[i] as BatchItem));
      }
      return { status: 200, data: results };
    },
  },
  ...eventRoutes('/v1/outbound-events', 'outbound'),
];
