import { hookgateSignature, standardWebhooksSignature } from './signing';

export interface DeliveryHeaderInput {
  /** The id receivers de-duplicate on: a replay chain's first event's (the event's own when it is no copy). */
  webhookId: string;
  /** The event this try delivers: a replayed copy's own id. */
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
 * The headers of one delivery try. `X-Webhook-Id` (and Standard Webhooks' `webhook-id`, which its
 * signature covers) is the webhook id: stable across retries, repeats and replays, as the Standard
 * Webhooks specification asks of a resent message, so consumers can de-duplicate; `X-Hookgate-Event-Id`
 * names the event itself, which a replay's copy does not share with its original. The default scheme sends no `webhook-*` headers, which
 * Standard Webhooks verifiers would otherwise mistake for their own.
 */
export function deliveryHeaders(input: DeliveryHeaderInput): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': input.contentType,
    'user-agent': input.userAgent,
    'x-webhook-id': input.webhookId,
    'x-hookgate-event-id': input.eventId,
  };
  if (input.eventType !== null) headers['x-event-type'] = input.eventType;
  if (input.scheme === 'standard_webhooks') {
    headers['webhook-id'] = input.webhookId;
    headers['webhook-timestamp'] = String(input.timestamp);
    headers['webhook-signature'] = standardWebhooksSignature(input.webhookId, input.timestamp, input.body, input.secrets);
  } else {
    headers['webhook-signature'] = hookgateSignature(input.body, input.timestamp, input.secrets);
  }
  if (input.auth?.type === 'bearer') headers.authorization = `Bearer ${input.auth.token}`;
  if (input.auth?.type === 'header') headers[input.auth.name.toLowerCase()] = input.auth.value;
  return headers;
}
