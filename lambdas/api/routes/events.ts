import { z } from 'zod';
import { badRequest, notFound } from '../../domain/errors';
import { EVENT_STATUSES } from '../../domain/event-status';
import { isUuid } from '../../domain/ids';
import { getPayload } from '../../adapters/payloads';
import { replayEvent } from '../../pipeline/replay-event';
import { listEvents } from '../../store/event-lists';
import { findEventDetail } from '../../store/events';
import { presentAttempt, presentEventDetail, presentEventListItem } from '../event-presenters';
import type { Route } from '../router';
import { parsePathId, parseWith, uuidField } from '../validation';

const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).optional(),
  cursor: z.string().max(200).optional(),
  status: z.enum(EVENT_STATUSES).optional(),
  event_type: z.string().min(1).max(200).optional(),
  source_id: uuidField('source_id').optional(),
});

const CURSOR_PREFIX = 'v1:';
const encodeCursor = (eventId: string) => Buffer.from(`${CURSOR_PREFIX}${eventId}`).toString('base64url');

/** Cursors are opaque to clients and only ever name an event id; the account always comes from the key. */
function decodeCursor(cursor: string): string {
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = decoded.startsWith(CURSOR_PREFIX) ? decoded.slice(CURSOR_PREFIX.length) : '';
  if (!isUuid(id)) throw badRequest('invalid cursor');
  return id.toLowerCase();
}

/** List, detail and replay of one direction's events; inbound at /v1/events, outbound at /v1/outbound-events. */
export function eventRoutes(basePath: string, direction: 'inbound' | 'outbound'): Route[] {
  return [
    {
      method: 'GET',
      path: basePath,
      auth: 'api_key',
      handle: async ({ request, principal }) => {
        const query = parseWith(listQuery, request.query);
        const page = await listEvents(principal.accountId, direction, {
          limit: query.limit ?? 50,
          after: query.cursor ? decodeCursor(query.cursor) : undefined,
          status: query.status,
          event_type: query.event_type,
          source_id: query.source_id,
        });
        return {
          status: 200,
          data: page.items.map(presentEventListItem),
          extra: { next_cursor: page.nextAfter ? encodeCursor(page.nextAfter) : null },
        };
      },
    },
    {
      method: 'GET',
      path: `${basePath}/:id`,
      auth: 'api_key',
      handle: async ({ params, principal }) => {
        const detail = await findEventDetail(principal.accountId, parsePathId(params.id));
        if (!detail || detail.event.direction !== direction) throw notFound();
        const bytes = detail.body.body_ref ? await getPayload(detail.body.body_ref) : Buffer.from(detail.body.body ?? []);
        return {
          status: 200,
          data: { event: presentEventDetail(detail.event, detail.body, bytes), attempts: detail.attempts.map(presentAttempt) },
        };
      },
    },
    {
      method: 'POST',
      path: `${basePath}/:id/replay`,
      auth: 'api_key',
      handle: async ({ params, principal, now }) => ({
        status: 202,
        data: await replayEvent(principal.accountId, direction, parsePathId(params.id), now),
      }),
    },
  ];
}
