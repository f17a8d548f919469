import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Refusal} from '../../lambdas/domain/errors';
import { conflict, forbidden, gone, invalid, notFound, tooLarge, unauthorized, type RefusalKind } from '../../lambdas/domain/errors';
import { resetConfigForTests } from '../../lambdas/shared/config';
import { apiEvent, UNIT_ENV } from '../fixtures/apigw';

const ingestWebhook = vi.fn();
const replayEvent = vi.fn();
vi.mock('../../lambdas/events/ingest', () => ({ ingestWebhook }));
vi.mock('../../lambdas/replays/replay-event', () => ({ replayEvent }));

const { REFUSAL_STATUS, MAX_BODY_BYTES } = await import('../../lambdas/api/http');
const { httpEnvelope } = await import('../../lambdas/api/http-envelope');
const { presentPublished } = await import('../../lambdas/events/shapes');
const { eventRoutes } = await import('../../lambdas/api/routes/events');
const { handler: ingestHandler } = await import('../../lambdas/handlers/ingest');

beforeAll(() => {
  Object.assign(process.env, UNIT_ENV);
  resetConfigForTests();
});
beforeEach(() => vi.resetAllMocks());

const context = { functionName: 'test', awsRequestId: 'aws-1', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
const parse = (response: APIGatewayProxyStructuredResultV2) => ({ status: response.statusCode, body: JSON.parse(String(response.body)) });

/** Every status and message a client sees for a refusal; the contract tests pin the same texts end to end. */
const table: [RefusalKind, Refusal, number, string][] = [
  ['invalid', invalid('invalid id'), 400, 'invalid id'],
  ['unauthorized', unauthorized(), 401, 'Unauthorized'],
  ['unauthorized', unauthorized('invalid signature'), 401, 'invalid signature'],
  ['forbidden', forbidden('sign-up is closed on this deployment'), 403, 'sign-up is closed on this deployment'],
  ['not_found', notFound(), 404, 'Not found'],
  ['conflict', conflict('payload erased'), 409, 'payload erased'],
  ['gone', gone('export file expired'), 410, 'export file expired'],
  ['too_large', tooLarge(), 413, 'request body too large'],
];

describe('refusal kind → HTTP status', () => {
  it('maps every kind, each to its own status', () => {
    expect(new Set(table.map(([kind]) => kind))).toEqual(new Set(Object.keys(REFUSAL_STATUS)));
    expect(new Set(Object.values(REFUSAL_STATUS)).size).toBe(Object.keys(REFUSAL_STATUS).length);
  });

  it.each(table)('%s: a thrown refusal answers its status and message (%s)', async (kind, refusal, status, message) => {
    expect(refusal.kind).toBe(kind);
    expect(REFUSAL_STATUS[kind]).toBe(status);
    const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
      .use(httpEnvelope())
      .handler(async () => {
        throw refusal;
      });
    const answer = parse(await handler(apiEvent('GET', '/x'), context));
    expect(answer).toEqual({ status, body: { error: message, duration_ms: expect.any(Number) } });
  });

  it('answers anything else as a 500 that echoes nothing', async () => {
    const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
      .use(httpEnvelope())
      .handler(async () => {
        throw new Error('secret detail');
      });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(parse(await handler(apiEvent('GET', '/x'), context))).toEqual({
      status: 500,
      body: { error: 'Internal server error', duration_ms: expect.any(Number) },
    });
  });
});

describe('pipeline outcomes → HTTP', () => {
  const ingest = async (body = '{}') => parse((await ingestHandler(apiEvent('POST', `/ingest/${'a'.repeat(40)}`, { body }), context)) as APIGatewayProxyStructuredResultV2);

  it.each([
    ['accepted', { kind: 'accepted', event: { id: 'e1', status: 'queued' } }, 202, { data: { id: 'e1', status: 'queued' } }],
    ['duplicate', { kind: 'duplicate', event: { id: 'e0', status: 'delivered' } }, 202, { data: { id: 'e0', status: 'delivered' } }],
    ['refused', { kind: 'refused', reason: unauthorized('invalid signature') }, 401, { error: 'invalid signature' }],
  ])('ingest: %s', async (_kind, outcome, status, body) => {
    ingestWebhook.mockResolvedValue(outcome);
    expect(await ingest()).toEqual({ status, body: { ...body, duration_ms: expect.any(Number) } });
  });

  it('ingest: an oversized body is refused before the pipeline runs', async () => {
    expect(await ingest('x'.repeat(MAX_BODY_BYTES + 1))).toEqual({ status: 413, body: { error: 'request body too large', duration_ms: expect.any(Number) } });
    expect(ingestWebhook).not.toHaveBeenCalled();
  });

  it('publish: a new event is 201 `queued` whatever it became, a duplicate 200', () => {
    expect(presentPublished({ kind: 'accepted', event: { id: 'e1', status: 'accepted' } })).toEqual({ status: 201, data: { id: 'e1', status: 'queued' } });
    expect(presentPublished({ kind: 'duplicate', event: { id: 'e0', status: 'delivered' } })).toEqual({
      status: 200,
      data: { id: 'e0', status: 'delivered', duplicate: true },
    });
  });

  describe('replay', () => {
    const route = eventRoutes('/v1/events', 'inbound').find((r) => r.path.endsWith('/replay'));
    const id = '0190a000-0000-7000-8000-000000000000';
    const replay = () =>
      route?.auth === 'api_key'
        ? route.handle({ request: { body: Buffer.alloc(0), headers: {} } as never, params: { id }, now: new Date(), principal: { accountId: 'acct', keyId: 'k' } })
        : Promise.reject(new Error('no replay route'));

    it('accepted: 202 with both ids', async () => {
      replayEvent.mockResolvedValue({ kind: 'accepted', replay: { id: 'e2', status: 'queued' } });
      expect(await replay()).toEqual({ status: 202, data: { original_event_id: id, replay_event_id: 'e2', status: 'queued' } });
    });

    it.each([
      ['not_found', { kind: 'not_found' }, 'not_found', 'Not found'],
      ['refused', { kind: 'refused', reason: invalid('event is not in a terminal status') }, 'invalid', 'event is not in a terminal status'],
    ])('%s: thrown as a refusal the envelope maps', async (_kind, outcome, kind, message) => {
      replayEvent.mockResolvedValue(outcome);
      await expect(replay()).rejects.toEqual(expect.objectContaining({ kind, message }));
    });
  });
});
