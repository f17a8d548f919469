import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Refusal } from '../../lambdas/domain/errors';
import type { EventStatus } from '../../lambdas/domain/vocabulary';

const acceptEvent = vi.fn();
const findSourceByToken = vi.fn();
const findEventWithBody = vi.fn();
const changeEvent = vi.fn();
const findHostOwner = vi.fn();
vi.mock('../../lambdas/events/accept', () => ({ acceptEvent }));
vi.mock('../../lambdas/sources/record', () => ({ findSourceByToken }));
vi.mock('../../lambdas/events/record', () => ({ findEventWithBody, changeEvent }));
vi.mock('../../lambdas/custom-domains/record', () => ({ findHostOwner }));
vi.mock('../../lambdas/adapters/payloads', () => ({ copyPayload: vi.fn(), payloadKey: (account: string, id: string) => `${account}/${id}` }));
vi.mock('../../lambdas/shared/metrics', () => ({ recordVerificationRejected: vi.fn() }));
// A replay reads the account's routes before it copies anything.
vi.mock('../../lambdas/store/routing-table', async () => {
  const { routingTable } = await import('../fixtures/records');
  return { loadCurrentRoutingTable: async () => routingTable() };
});

const { ingestWebhook } = await import('../../lambdas/events/ingest');
const { publishEvent } = await import('../../lambdas/events/publish');
const { replayEvent } = await import('../../lambdas/replays/replay-event');

const now = new Date('2025-01-01T00:00:00Z');
const token = 'a'.repeat(40);
const stored = { duplicate: false, event: { id: 'evt_new', status: 'queued' }, beyondLimit: [] };
const duplicate = { duplicate: true, existingId: 'evt_first', existingStatus: 'delivered' };
const refusal = (kind: Refusal['kind'], message: string) => ({ kind: 'refused', reason: expect.objectContaining({ kind, message }) });

beforeEach(() => {
  vi.resetAllMocks();
  findSourceByToken.mockResolvedValue({ account_id: 'acct', source_id: 'src', verification: null });
  acceptEvent.mockResolvedValue(stored);
  findHostOwner.mockResolvedValue(null);
});

describe('ingestWebhook outcomes', () => {
  const webhook = (headers: Record<string, string> = {}, t = token, host = 'localhost') => ({ token: t, headers, body: Buffer.from('{}'), host });

  it.each([
    ['a malformed token, never looked up', webhook({}, 'short'), refusal('unauthorized', 'Unauthorized')],
    ['an overlong event type', webhook({ 'x-event-type': 'x'.repeat(201) }), refusal('invalid', 'X-Event-Type must be at most 200 characters')],
    [
      'an overlong delivery id',
      webhook({ 'webhook-id': 'x'.repeat(257) }),
      refusal('invalid', 'the delivery id header must be at most 256 characters'),
    ],
  ])('refuses %s', async (_name, input, outcome) => {
    expect(await ingestWebhook(input, now)).toEqual(outcome);
    expect(acceptEvent).not.toHaveBeenCalled();
  });

  it('refuses an unknown token like a malformed one', async () => {
    findSourceByToken.mockResolvedValue(undefined);
    expect(await ingestWebhook(webhook(), now)).toEqual(refusal('unauthorized', 'Unauthorized'));
  });

  it('refuses a bad provider signature with its own message', async () => {
    findSourceByToken.mockResolvedValue({ account_id: 'acct', source_id: 'src', verification: { provider: 'github', secret: 's' } });
    const outcome = await ingestWebhook(webhook({ 'x-hub-signature-256': 'sha256=00' }), now);
    expect(outcome).toEqual(refusal('unauthorized', 'invalid signature'));
    expect(outcome.kind === 'refused' && outcome.reason).toBeInstanceOf(Refusal);
  });

  it('accepts a new webhook, without the credentials meant for us', async () => {
    const outcome = await ingestWebhook(webhook({ authorization: 'secret', 'content-type': 'application/json', 'webhook-id': 'w1' }), now);
    expect(outcome).toEqual({ kind: 'accepted', event: { id: 'evt_new', status: 'queued' } });
    expect(acceptEvent).toHaveBeenCalledWith(
      expect.objectContaining({ externalEventId: 'w1', contentType: 'application/json', headers: { 'content-type': 'application/json', 'webhook-id': 'w1' } }),
    );
  });

  it('on a custom domain, accepts only its owner’s tokens: another account’s is not found', async () => {
    findHostOwner.mockResolvedValue('other-acct');
    expect(await ingestWebhook(webhook({}, token, 'hooks.acme.example'), now)).toEqual(refusal('not_found', 'Not found'));
    expect(findHostOwner).toHaveBeenCalledWith('hooks.acme.example', now);
    expect(acceptEvent).not.toHaveBeenCalled();
    findHostOwner.mockResolvedValue('acct');
    expect(await ingestWebhook(webhook({}, token, 'Hooks.Acme.Example:443'), now)).toEqual({ kind: 'accepted', event: { id: 'evt_new', status: 'queued' } });
  });

  it('answers a provider retry with the first event', async () => {
    acceptEvent.mockResolvedValue(duplicate);
    expect(await ingestWebhook(webhook({ 'webhook-id': 'w1' }), now)).toEqual({ kind: 'duplicate', event: { id: 'evt_first', status: 'delivered' } });
  });
});

describe('publishEvent outcomes', () => {
  it('accepts a new event and names a repeated external id a duplicate', async () => {
    expect(await publishEvent('acct', { payload: '{}' }, now)).toEqual({ kind: 'accepted', event: { id: 'evt_new', status: 'queued' } });
    acceptEvent.mockResolvedValue(duplicate);
    expect(await publishEvent('acct', { payload: '{}', external_event_id: 'x' }, now)).toEqual({
      kind: 'duplicate',
      event: { id: 'evt_first', status: 'delivered' },
    });
  });
});

describe('replayEvent outcomes', () => {
  const loaded = (status: EventStatus, direction = 'inbound') => ({
    event: { id: 'evt_old', status, direction, source_id: 'src', event_type: null, external_event_id: null, created_by: 'ingest' },
    body: { body_ref: null, content_type: null, headers: {} },
  });

  it('is not found when the event is missing or of the other direction', async () => {
    expect(await replayEvent('acct', 'inbound', 'evt_old', now)).toEqual({ kind: 'not_found' });
    findEventWithBody.mockResolvedValue(loaded('delivered', 'outbound'));
    expect(await replayEvent('acct', 'inbound', 'evt_old', now)).toEqual({ kind: 'not_found' });
  });

  it('refuses an event still in flight', async () => {
    findEventWithBody.mockResolvedValue(loaded('retry_scheduled'));
    expect(await replayEvent('acct', 'inbound', 'evt_old', now)).toEqual(refusal('invalid', 'event is not in a terminal status'));
    expect(acceptEvent).not.toHaveBeenCalled();
  });

  it('accepts a replay of a settled event', async () => {
    findEventWithBody.mockResolvedValue(loaded('dead_letter'));
    expect(await replayEvent('acct', 'inbound', 'evt_old', now)).toEqual({ kind: 'accepted', replay: { id: 'evt_new', status: 'queued' } });
    expect(changeEvent).toHaveBeenCalledOnce();
  });
});
