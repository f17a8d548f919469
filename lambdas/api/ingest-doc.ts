import { unsendableHeaderMessage } from '../domain/header-values';
import { MAX_BINARY_BODY_BYTES, MAX_ENCODED_BODY_BYTES } from '../domain/payload-limits';
import { exampleInboundBody, ingestAcceptedResponse } from '../events/shapes';
import { ids } from '../api-kit/examples';
import type { DocumentedOperation } from './openapi';
import { json, traceparentHeader } from './route-doc';

/**
 * `POST /ingest/{token}` is served by its own function (lambdas/handlers/ingest.ts), outside the API
 * router, so its documentation lives here; its answer is checked against it in the OpenAPI tests.
 */
export const ingestOperation: DocumentedOperation = {
  method: 'POST',
  path: '/ingest/:token',
  auth: 'path_token',
  doc: {
    operationId: 'ingestWebhook',
    summary: 'Receive a webhook',
    description: [
      `No Bearer header: the path token authenticates the request and names the source. Any content type, stored byte for byte before the answer. Limits, from Lambda's 6 MB event: text bodies (\`text/*\`, JSON, XML, form; valid UTF-8) up to 5 MB whose JSON-escaped form is at most ${MAX_ENCODED_BODY_BYTES} bytes (quotes, backslashes and control characters count extra); any other body up to ${MAX_BINARY_BODY_BYTES} bytes (it travels base64-encoded).`,
      'The provider’s delivery id becomes `external_event_id`; a repeat within the source is answered `202` with the first event’s id and stores nothing. Without a signature check: `Idempotency-Key`, `webhook-id`, `X-GitHub-Delivery`, `X-Shopify-Webhook-Id`, or with a `Stripe-Signature` header the JSON body’s `id`. With a check, only what the signature covers, never an unsigned header: `webhook-id` (standard_webhooks), the body’s `id` (stripe) or `event_id` (slack), else the body’s `payload_hash` (github, shopify, hmac_sha256).',
      'With a provider check configured on the source, a missing, stale or wrong signature is `401 invalid signature` and nothing is stored. `Authorization`, `Cookie`, `Proxy-Authorization` and `X-Api-Key` are never stored.',
    ].join('\n\n'),
    tag: 'Ingest',
    body: { kind: 'raw', description: 'Any content type, stored byte for byte (binary-safe).', example: exampleInboundBody },
    headers: [
      {
        name: 'X-Event-Type',
        description: 'Sets the event’s `event_type` (null when absent); routes match on it. Printable ASCII only: it is sent on as a header of every delivery.',
        maxLength: 200,
      },
      { name: 'Idempotency-Key', description: 'The provider’s delivery id: a repeat is not stored twice. Ignored on a source with a signature check (it is not signed).', maxLength: 256 },
      { name: 'webhook-id', description: 'Standard Webhooks delivery id (signed, and so the key, with `standard_webhooks` verification; ignored with another check).', maxLength: 256 },
      { name: 'X-GitHub-Delivery', description: 'GitHub’s delivery id. Not signed: ignored on a source with a signature check.', maxLength: 256 },
      { name: 'X-Shopify-Webhook-Id', description: 'Shopify’s delivery id. Not signed: ignored on a source with a signature check.', maxLength: 256 },
      traceparentHeader,
    ],
    responses: {
      202: json('Persisted: `queued` when routes matched, `accepted` when none did.', ingestAcceptedResponse, {
        id: ids.event,
        status: 'queued',
      }),
    },
    errors: {
      400: [
        'X-Event-Type must be at most 200 characters',
        'X-Event-Type must not start with hookgate. (reserved for operational events)',
        unsendableHeaderMessage('X-Event-Type'),
        unsendableHeaderMessage('Content-Type'),
        'the delivery id header must be at most 256 characters',
      ],
      401: ['Unauthorized', 'invalid signature'],
    },
  },
};
