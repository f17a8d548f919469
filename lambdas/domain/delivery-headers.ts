import { webhookIdOf } from './ids';
import { hookgateSignature, standardWebhooksSignature } from './signing';
import { ed25519Signature, type SignerKey } from './signing-keys';
import type { Direction, SignatureScheme } from './vocabulary';

export interface DeliveryHeaderInput {
  /** The id receivers de-duplicate on: a replay chain's first event's (the event's own when it is no copy). */
  webhookId: string;
  /** The event this try delivers: a replayed copy's own id. */
  eventId: string;
  eventType: string | null;
  contentType: string;
  body: Buffer;
  timestamp: number;
  /** This try's W3C `traceparent`: the event's trace, a span of its own (lambdas/domain/trace-context.ts). */
  traceparent: string;
  scheme: SignatureScheme;
  secrets: readonly string[];
  /** The live Ed25519 keys of the destination's customer (the account's own for none), current first: what an `ed25519` destination signs with (its `secrets` unused). */
  keys: readonly SignerKey[];
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
  const signed = input.scheme === 'ed25519' ? ed25519Signature(input.webhookId, input.timestamp, input.body, input.keys) : undefined;
  return headersOf(input, {
    timestamp: String(input.timestamp),
    traceparent: input.traceparent,
    signature: (scheme) =>
      signed?.signature ??
      (scheme === 'standard_webhooks'
        ? standardWebhooksSignature(input.webhookId, input.timestamp, input.body, input.secrets)
        : hookgateSignature(input.body, input.timestamp, input.secrets)),
    keyIds: signed?.keyIds ?? '',
    credential: (value) => value,
  });
}

export type ShownHeaderInput = Omit<DeliveryHeaderInput, 'body' | 'timestamp' | 'traceparent' | 'secrets' | 'keys'>;

/** The facts of a delivery's headers that do not change from try to try. */
export function headerFacts(
  event: { id: string; webhook_id?: string | null; event_type: string | null; direction: Direction },
  storedContentType: string | null,
  destination: { signature_scheme: DeliveryHeaderInput['scheme']; auth: DeliveryHeaderInput['auth'] },
  version: string,
): ShownHeaderInput {
  return {
    webhookId: webhookIdOf(event),
    eventId: event.id,
    eventType: event.event_type,
    // A published payload is JSON whatever it was given as; a received one keeps its sender's type.
    contentType: event.direction === 'outbound' ? 'application/json' : (storedContentType ?? 'application/octet-stream'),
    scheme: destination.signature_scheme,
    auth: destination.auth,
    userAgent: `hookgate/${version}`,
  };
}

/**
 * What event detail shows of a delivery's headers: the names every try carries, with the values
 * that differ per try described rather than invented, and the endpoint's own credential hidden (a
 * portal viewer may share the screen; the credential is shown once, where it is set).
 */
export function shownDeliveryHeaders(input: ShownHeaderInput): Record<string, string> {
  return headersOf(input, {
    timestamp: '<the try’s Unix time>',
    traceparent: '<the event’s trace, a new span for each try>',
    signature: () => '<computed for each try>',
    keyIds: '<the ids of the live keys of the endpoint’s customer (the account’s own for none), current first>',
    credential: () => '<hidden>',
  });
}

interface PerTry {
  timestamp: string;
  traceparent: string;
  signature: (scheme: DeliveryHeaderInput['scheme']) => string;
  keyIds: string;
  credential: (value: string) => string;
}

function headersOf(input: ShownHeaderInput, perTry: PerTry): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': input.contentType,
    'user-agent': input.userAgent,
    'x-webhook-id': input.webhookId,
    'x-hookgate-event-id': input.eventId,
    // Not signed by either scheme: a receiver's tracer reads it, its signature check never does.
    traceparent: perTry.traceparent,
  };
  if (input.eventType !== null) headers['x-event-type'] = input.eventType;
  if (input.scheme !== 'hookgate') {
    headers['webhook-id'] = input.webhookId;
    headers['webhook-timestamp'] = perTry.timestamp;
  }
  headers['webhook-signature'] = perTry.signature(input.scheme);
  if (input.scheme === 'ed25519') headers['webhook-key-id'] = perTry.keyIds;
  if (input.auth?.type === 'bearer') headers.authorization = perTry.credential(`Bearer ${input.auth.token}`);
  if (input.auth?.type === 'header') headers[input.auth.name.toLowerCase()] = perTry.credential(input.auth.value);
  return headers;
}
