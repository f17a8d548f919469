import { hookgateSignature, standardWebhooksSignature } from './signing';

export interface DeliveryHeaderInput {
  eventId: string;
  eventType: string | null;
  contentType: string;
  body: Buffer;
  timestamp: number;
  scheme: 'hookgate' | 'standard_webhooks';
  secrets: readonly string[];
  auth: { type: 'bearer'; token: string } | { type: 'header'; name: string; value: string } | null;
  userAgent: string;
}

/**
 * The headers of one delivery try. `X-Webhook-Id` is the event id: stable across retries and
 * repeats, so consumers can de-duplicate. The default scheme sends no `webhook-*` headers, which
 * Standard Webhooks verifiers would otherwise mistake for their own.
 */
export function deliveryHeaders(input: DeliveryHeaderInput): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': input.contentType,
    'user-agent': input.userAgent,
    'x-webhook-id': input.eventId,
  };
  if (input.eventType !== null) headers['x-event-type'] = input.eventType;
  if (input.scheme === 'standard_webhooks') {
    headers['webhook-id'] = input.eventId;
    headers['webhook-timestamp'] = String(input.timestamp);
    headers['webhook-signature'] = standardWebhooksSignature(input.eventId, input.timestamp, input.body, input.secrets);
  } else {
    headers['webhook-signature'] = hookgateSignature(input.body, input.timestamp, input.secrets);
  }
  if (input.auth?.type === 'bearer') headers.authorization = `Bearer ${input.auth.token}`;
  if (input.auth?.type === 'header') headers[input.auth.name.toLowerCase()] = input.auth.value;
  return headers;
}
