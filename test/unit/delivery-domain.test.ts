import { createPublicKey, verify } from 'node:crypto';
import type { AwsTarget } from '../../lambdas/domain/aws-targets';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE, nextRetry, parseRetrySchedule } from '../../lambdas/domain/backoff';
import { deliveryHeaders, shownDeliveryHeaders } from '../../lambdas/domain/delivery-headers';
import { planDeliveries, statusAfter } from '../../lambdas/domain/delivery-plan';
import { aggregateStatus } from '../../lambdas/domain/event-status';
import { activeSecrets, hookgateSignature, standardWebhooksSignature } from '../../lambdas/domain/signing';
import { signerKey } from '../../lambdas/domain/signing-keys';
import { newSigningKey } from '../../lambdas/shared/secrets';

describe('retry schedule', () => {
  it('tries five times by default: now, 30 s, 2 min, 10 min, 1 h', () => {
    expect(parseRetrySchedule(undefined)).toEqual([0, 30, 120, 600, 3600]);
    const waits = [1, 2, 3, 4].map((attempt) => nextRetry(DEFAULT_RETRY_SCHEDULE, attempt, null));
    expect(waits).toEqual([30, 120, 600, 3600].map((delaySeconds) => ({ retry: true, delaySeconds })));
    expect(nextRetry(DEFAULT_RETRY_SCHEDULE, 5, null)).toEqual({ retry: false });
  });

  it('honours Retry-After as a floor, capped by what the rest of the schedule would take', () => {
    expect(nextRetry(DEFAULT_RETRY_SCHEDULE, 1, 10)).toEqual({ retry: true, delaySeconds: 30 });
    expect(nextRetry(DEFAULT_RETRY_SCHEDULE, 1, 90)).toEqual({ retry: true, delaySeconds: 90 });
    expect(nextRetry(DEFAULT_RETRY_SCHEDULE, 1, 999_999)).toEqual({ retry: true, delaySeconds: 30 + 120 + 600 + 3600 });
    expect(nextRetry(DEFAULT_RETRY_SCHEDULE, 4, 999_999)).toEqual({ retry: true, delaySeconds: 3600 });
    expect(nextRetry(DEFAULT_RETRY_SCHEDULE, 5, 10)).toEqual({ retry: false });
  });

  it('reads HOOKGATE_RETRY_SCHEDULE and refuses nonsense', () => {
    expect(parseRetrySchedule('0, 1,2')).toEqual([0, 1, 2]);
    expect(() => parseRetrySchedule('0,-1')).toThrow(/invalid retry schedule/);
    expect(() => parseRetrySchedule('0,abc')).toThrow(/invalid retry schedule/);
  });
});

describe('event status over deliveries', () => {
  it.each([
    [[], 'accepted'],
    [['queued'], 'queued'],
    [['delivering', 'retry_scheduled'], 'delivering'],
    [['retry_scheduled', 'queued'], 'retry_scheduled'],
    [['delivered', 'queued'], 'queued'],
    [['delivered', 'delivered'], 'delivered'],
    [['delivered', 'dead_letter'], 'dead_letter'],
    [['dead_letter', 'retry_scheduled'], 'retry_scheduled'],
  ] as const)('%j → %s', (deliveries, status) => {
    expect(aggregateStatus(deliveries)).toBe(status);
  });

  it('keeps a replayed event replayed', () => {
    expect(statusAfter('replayed', { d: { status: 'delivered', attempts: 1, next_attempt_at: null, claimed_at: null } })).toBe('replayed');
  });
});

describe('planning deliveries', () => {
  const route = (destination_id: string, extra: Record<string, unknown> = {}) => ({
    destination_id,
    source_id: null,
    event_type_pattern: null,
    active: true,
    ...extra,
  });
  it('gives each destination of an active route one delivery, however many routes reach it; a paused one too (it is held), a gone one not', () => {
    const plan = planDeliveries(
      [route('a'), route('a', { event_type_pattern: 'x.*' }), route('b'), route('paused'), route('gone'), route('c', { active: false })],
      (id) => (id === 'gone' ? undefined : { active: id !== 'paused', customer: null }),
      { source_id: 's', event_type: 'x.y', customer: null, bodySize: 10 },
      '2026-01-01T00:00:00.000Z',
    ).deliveries;
    expect(Object.keys(plan).sort()).toEqual(['a', 'b', 'paused']);
    expect(plan.a).toEqual({ status: 'queued', attempts: 0, next_attempt_at: '2026-01-01T00:00:00.000Z', claimed_at: null });
  });

  // A body over its AWS service's message limit (less the headroom for attributes) is never sent there.
  it.each<[string, AwsTarget | null, number, 'queued' | 'dead_letter']>([
    ['http takes any size', null, 5_000_000, 'queued'],
    ['SQS takes a body within 1 MiB less the headroom', { type: 'aws_sqs', queue_url: 'q' }, 1_048_576 - 8192, 'queued'],
    ['SQS refuses one byte more', { type: 'aws_sqs', queue_url: 'q' }, 1_048_576 - 8191, 'dead_letter'],
    ['SNS takes a body within 256 KiB less the headroom', { type: 'aws_sns', topic_arn: 't' }, 262_144 - 8192, 'queued'],
    ['SNS refuses 300 KB', { type: 'aws_sns', topic_arn: 't' }, 300_000, 'dead_letter'],
    ['EventBridge takes 300 KB', { type: 'aws_eventbridge', event_bus_arn: 'b', detail_type: null, source: 'hookgate' }, 300_000, 'queued'],
    ['Kinesis takes 1 MiB less the headroom', { type: 'aws_kinesis', stream_arn: 's', partition_key: 'event_id' }, 1_048_576 - 8192, 'queued'],
    ['Lambda takes 300 KB (an asynchronous invoke takes 1 MB)', { type: 'aws_lambda', function_arn: 'f' }, 300_000, 'queued'],
    ['Lambda refuses 1 MiB', { type: 'aws_lambda', function_arn: 'f' }, 1_048_576, 'dead_letter'],
    ['S3 takes any size', { type: 'aws_s3', bucket: 'b', key_template: '{event_id}', region: null }, 5_000_000, 'queued'],
  ])('body size: %s', (_, target, bodySize, status) => {
    const plan = planDeliveries([route('d')], () => ({ active: true, customer: null, aws_target: target }), { source_id: 's', event_type: 'x.y', customer: null, bodySize }, '2026-01-01T00:00:00.000Z').deliveries;
    expect(plan.d?.status).toBe(status);
    expect(plan.d?.end_reason).toBe(status === 'dead_letter' ? 'payload_too_large' : undefined);
  });

  // Every destination is reached by a route; who the event is addressed to decides which get it.
  const owners: Record<string, string | null> = { mine: null, a1: 'cus_a', a2: 'cus_a', b: 'cus_b' };
  it.each<[string, string | null, string[]]>([
    ['an unaddressed event reaches only destinations of no customer', null, ['mine']],
    ['an event for cus_a reaches only cus_a’s destinations', 'cus_a', ['a1', 'a2']],
    ['an event for cus_b reaches only cus_b’s', 'cus_b', ['b']],
    ['an event for an unknown customer reaches nobody', 'cus_z', []],
  ])('%s', (_, customer, expected) => {
    const plan = planDeliveries(
      Object.keys(owners).map((id) => route(id, { source_id: null })),
      (id) => ({ active: true, customer: owners[id] ?? null }),
      { source_id: null, event_type: 'invoice.paid', customer, bodySize: 10 },
      '2026-01-01T00:00:00.000Z',
    ).deliveries;
    expect(Object.keys(plan).sort()).toEqual(expected);
  });

  // Routes in the order the routing table holds them (oldest first); d2 is reached twice.
  it.each<[string, number, string[], string[]]>([
    ['under the limit: every destination', 10, ['d1', 'd2', 'd3', 'd4'], []],
    ['at the limit: every destination', 4, ['d1', 'd2', 'd3', 'd4'], []],
    ['over the limit: the oldest routes’ destinations, the rest named', 2, ['d1', 'd2'], ['d3', 'd4']],
    ['a destination reached again counts once, planned or not', 1, ['d1'], ['d2', 'd3', 'd4']],
  ])('fan-out limit: %s', (_, limit, planned, beyond) => {
    const plan = planDeliveries(
      [route('d1'), route('d2'), route('d2', { event_type_pattern: 'x.*' }), route('d3'), route('d4')],
      () => ({ active: true, customer: null }),
      { source_id: 's', event_type: 'x.y', customer: null, bodySize: 10 },
      '2026-01-01T00:00:00.000Z',
      limit,
    );
    expect(Object.keys(plan.deliveries)).toEqual(planned);
    expect(plan.beyondLimit).toEqual(beyond);
  });
});

describe('signatures', () => {
  const body = Buffer.from('{"id":"evt_1","amount":4200}');

  it('default scheme: what the Stripe SDK itself generates for the same secret and time', () => {
    const stripe = new Stripe('sk_test_unused').webhooks;
    const expected = stripe.generateTestHeaderString({ payload: body.toString(), secret: 'whsec_test_secret', timestamp: 1_700_000_000 });
    expect(hookgateSignature(body, 1_700_000_000, ['whsec_test_secret'])).toBe(expected);
  });

  it('Standard Webhooks: the specification’s published test vector', () => {
    const signature = standardWebhooksSignature(
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      Buffer.from('{"test": 2432232314}'),
      ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    );
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('signs with the previous secret only while its 24-hour overlap lasts', () => {
    const destination = { signing_secret: 'new', previous_signing_secret: 'old', previous_secret_expires_at: '2026-01-02T00:00:00.000Z' };
    expect(activeSecrets(destination, new Date('2026-01-01T12:00:00Z'))).toEqual(['new', 'old']);
    expect(activeSecrets(destination, new Date('2026-01-02T00:00:01Z'))).toEqual(['new']);
    expect(hookgateSignature(body, 1, ['new', 'old'])).toMatch(/^t=1,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(standardWebhooksSignature('m', 1, body, ['whsec_AAAA', 'whsec_BBBB']).split(' ')).toHaveLength(2);
  });
});

describe('delivery headers', () => {
  const base = {
    webhookId: 'w1',
    eventId: 'e1',
    eventType: 'order.created',
    contentType: 'application/json',
    body: Buffer.from('{}'),
    timestamp: 1,
    traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    secrets: ['whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0'],
    keys: [signerKey(newSigningKey(new Date(0)))],
    userAgent: 'hookgate/1.0.0',
  };
  it('default scheme: Webhook-Signature, X-Webhook-Id, and no webhook-* headers a Standard Webhooks verifier would misread', () => {
    const headers = deliveryHeaders({ ...base, scheme: 'hookgate', auth: { type: 'bearer', token: 't' } });
    expect(headers).toMatchObject({ 'x-webhook-id': 'w1', 'x-hookgate-event-id': 'e1', 'x-event-type': 'order.created', authorization: 'Bearer t' });
    expect(headers['webhook-signature']).toMatch(/^t=1,v1=/);
    expect(headers.traceparent).toBe(base.traceparent);
    expect(headers).not.toHaveProperty('webhook-id');
    expect(headers).not.toHaveProperty('webhook-timestamp');
  });
  it('standard_webhooks scheme: webhook-id, webhook-timestamp and a v1, signature; custom header auth', () => {
    const headers = deliveryHeaders({ ...base, eventType: null, scheme: 'standard_webhooks', auth: { type: 'header', name: 'X-Key', value: 'v' } });
    expect(headers).toMatchObject({ 'webhook-id': 'w1', 'x-webhook-id': 'w1', 'x-hookgate-event-id': 'e1', 'webhook-timestamp': '1', 'x-key': 'v' });
    expect(headers['webhook-signature']).toBe(standardWebhooksSignature('w1', 1, base.body, base.secrets));
    expect(headers).not.toHaveProperty('x-event-type');
    expect(headers).not.toHaveProperty('webhook-key-id');
  });
  it('ed25519 scheme: the Standard Webhooks headers, a v1a signature per key and webhook-key-id naming them in order', () => {
    const [current] = base.keys;
    const previous = signerKey(newSigningKey(new Date(0)));
    const headers = deliveryHeaders({ ...base, keys: [current!, previous], scheme: 'ed25519', auth: null });
    expect(headers).toMatchObject({ 'webhook-id': 'w1', 'webhook-timestamp': '1', 'webhook-key-id': `${current!.kid} ${previous.kid}` });
    const signatures = headers['webhook-signature']!.split(' ');
    expect(signatures).toHaveLength(2);
    signatures.forEach((signature, i) => {
      expect(signature).toMatch(/^v1a,/);
      const key = createPublicKey([current!, previous][i]!.key);
      expect(verify(null, Buffer.from('w1.1.{}'), key, Buffer.from(signature.slice(4), 'base64'))).toBe(true);
    });
  });
  it.each([
    { scheme: 'hookgate' as const, auth: { type: 'bearer' as const, token: 'secret-token' }, hidden: 'authorization' },
    { scheme: 'standard_webhooks' as const, auth: { type: 'header' as const, name: 'X-Key', value: 'secret-value' }, hidden: 'x-key' },
    { scheme: 'ed25519' as const, auth: { type: 'bearer' as const, token: 'secret-token' }, hidden: 'authorization' },
  ])('shown in event detail ($scheme): the names every try carries, per-try values described, the credential hidden', ({ scheme, auth, hidden }) => {
    const { body: _body, timestamp: _timestamp, traceparent: _traceparent, secrets: _secrets, keys: _keys, ...facts } = base;
    const shown = shownDeliveryHeaders({ ...facts, scheme, auth });
    const sent = deliveryHeaders({ ...base, scheme, auth });
    expect(Object.keys(shown).sort()).toEqual(Object.keys(sent).sort());
    expect(shown[hidden]).toBe('<hidden>');
    expect(JSON.stringify(shown)).not.toContain('secret-');
    expect(shown['webhook-signature']).toBe('<computed for each try>');
    expect(shown.traceparent).toBe('<the event’s trace, a new span for each try>');
    for (const name of ['x-webhook-id', 'x-hookgate-event-id', 'content-type', 'user-agent']) expect(shown[name]).toBe(sent[name]);
  });
});
