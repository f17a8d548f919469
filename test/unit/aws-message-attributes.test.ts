import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { attributedMessage, type AwsMessage } from '../../lambdas/adapters/aws/message';
import { fitAttributes, MAX_MESSAGE_ATTRIBUTES, MERGED_HEADERS_ATTRIBUTE, messageAttributes, messageText } from '../../lambdas/domain/aws-messages';
import { deliveryHeaders, type DeliveryHeaderInput } from '../../lambdas/domain/delivery-headers';
import type { AwsTarget } from '../../lambdas/domain/aws-targets';

// SQS refuses a message with more than 10 attributes, and SNS one it is asked to publish: every
// message Hookgate builds for them stays within that, whatever the delivery's headers, and loses none.
const EVENT_ID = '0193a5b2-0000-7000-8000-000000000001';
const KEY = { kid: 'key_1', key: generateKeyPairSync('ed25519').privateKey };
const TARGETS: Extract<AwsTarget, { type: 'aws_sqs' | 'aws_sns' }>[] = [
  { type: 'aws_sqs', queue_url: 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders' },
  { type: 'aws_sqs', queue_url: 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo' },
  { type: 'aws_sns', topic_arn: 'arn:aws:sns:eu-west-1:123456789012:orders' },
];
const BODIES = { text: Buffer.from('{"order":"o-7"}'), binary: Buffer.from([0xff, 0x00, 0xfe, 0x01]) };
const AUTHS: DeliveryHeaderInput['auth'][] = [null, { type: 'bearer', token: 't0k' }, { type: 'header', name: 'X-Api-Key', value: 'k3y' }];

function headers(scheme: DeliveryHeaderInput['scheme'], body: Buffer, auth: DeliveryHeaderInput['auth'], eventType: string | null) {
  return deliveryHeaders({
    webhookId: EVENT_ID,
    eventId: EVENT_ID,
    eventType,
    contentType: 'application/octet-stream',
    body,
    timestamp: 1_764_000_000,
    scheme,
    secrets: ['whsec_test'],
    keys: [KEY],
    auth,
    userAgent: 'hookgate/test',
    traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  });
}

const message = (h: Record<string, string>, body: Buffer): AwsMessage => ({
  headers: h,
  body,
  destinationId: 'dest-1',
  eventId: EVENT_ID,
  eventType: 'order.paid',
  receivedAt: '2026-12-01T00:00:00.000Z',
  credentials: { kind: 'own' } as unknown as AwsMessage['credentials'],
  signal: new AbortController().signal,
});

/** The headers a consumer gets back: the attributes, with the merged one merged in. */
function restored(attributes: Record<string, { StringValue: string }>): Record<string, string> {
  const flat = Object.fromEntries(Object.entries(attributes).map(([name, a]) => [name, a.StringValue]));
  const { [MERGED_HEADERS_ATTRIBUTE]: merged, ...own } = flat;
  return { ...own, ...(merged === undefined ? {} : (JSON.parse(merged) as Record<string, string>)) };
}

describe('SQS and SNS messages stay within 10 attributes', () => {
  const cases = (['hookgate', 'standard_webhooks', 'ed25519'] as const).flatMap((scheme) =>
    (Object.keys(BODIES) as (keyof typeof BODIES)[]).flatMap((body) => AUTHS.flatMap((auth) => [null, 'order.paid'].map((eventType) => ({ scheme, body, auth, eventType })))),
  );

  it.each(cases)('$scheme, $body body, auth $auth.type, event type $eventType: every target', ({ scheme, body, auth, eventType }) => {
    const h = headers(scheme, BODIES[body], auth, eventType);
    for (const target of TARGETS) {
      const built = attributedMessage(target, message(h, BODIES[body]));
      const attributes = built.MessageAttributes as Record<string, { StringValue: string }>;
      expect(Object.keys(attributes).length).toBeLessThanOrEqual(MAX_MESSAGE_ATTRIBUTES);
      // Nothing lost: the consumer gets every header an attribute carries (all but user-agent and authorization).
      expect(restored(attributes)).toEqual(messageAttributes(h, messageText(BODIES[body]).encoding));
    }
  });

  it('an ed25519 event with a base64 body fills exactly 10, each header its own attribute', () => {
    const h = headers('ed25519', BODIES.binary, null, 'order.paid');
    const attributes = attributedMessage(TARGETS[0] as (typeof TARGETS)[0], message(h, BODIES.binary)).MessageAttributes;
    expect(Object.keys(attributes)).toHaveLength(10);
    expect(attributes).not.toHaveProperty(MERGED_HEADERS_ATTRIBUTE);
  });

  it('one header more: what a consumer verifies with keeps its own attribute, the trace context and the endpoint header are merged', () => {
    const h = headers('ed25519', BODIES.binary, { type: 'header', name: 'X-Api-Key', value: 'k3y' }, 'order.paid');
    const attributes = attributedMessage(TARGETS[0] as (typeof TARGETS)[0], message(h, BODIES.binary)).MessageAttributes;
    expect(Object.keys(attributes).sort()).toEqual(
      ['content-transfer-encoding', 'content-type', 'webhook-id', 'webhook-key-id', 'webhook-signature', 'webhook-timestamp', 'x-event-type', 'x-hookgate-event-id', 'x-webhook-id', MERGED_HEADERS_ATTRIBUTE].sort(),
    );
    expect(JSON.parse(attributes[MERGED_HEADERS_ATTRIBUTE]?.StringValue ?? '{}')).toEqual({ traceparent: h.traceparent, 'x-api-key': 'k3y' });
  });

  it('fitAttributes leaves attributes that fit as they are, and always ends at the limit when they do not', () => {
    const few = { a: '1', b: '2' };
    expect(fitAttributes(few)).toBe(few);
    const many = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`x-h-${String(i).padStart(2, '0')}`, String(i)]));
    const fitted = fitAttributes(many);
    expect(Object.keys(fitted)).toHaveLength(MAX_MESSAGE_ATTRIBUTES);
    expect({ ...fitted, ...(JSON.parse(fitted[MERGED_HEADERS_ATTRIBUTE] as string) as object), [MERGED_HEADERS_ATTRIBUTE]: undefined }).toMatchObject(many);
  });
});
