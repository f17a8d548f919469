import { exampleInboundBody, ids } from './examples';
import type { DocumentedOperation } from './openapi';
import { json } from './route-doc';
import { ingestAcceptedResponse } from './schemas';

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
      'No Bearer header: the path token authenticates the request and names the source. Any content type, any body up to 5 MB, stored byte for byte before the answer.',
      'The provider’s delivery id (`Idempotency-Key`, `webhook-id`, `X-GitHub-Delivery`, `X-Shopify-Webhook-Id`, or with a `Stripe-Signature` header the JSON body’s `id`) becomes `external_event_id`; a repeat within the source is answered `202` with the first event’s id and stores nothing.',
      'With a provider check configured on the source, a missing, stale or wrong signature is `401 invalid signature` and nothing is stored. `Authorization`, `Cookie`, `Proxy-Authorization` and `X-Api-Key` are never stored.',
    ].join('\n\n'),
    tag: 'Ingest',
    body: { kind: 'raw', description: 'Any content type, stored byte for byte (binary-safe).', example: exampleInboundBody },
    headers: [
      { name: 'X-Event-Type', description: 'Sets the event’s `event_type` (null when absent); routes match on it.', maxLength: 200 },
      { name: 'Idempotency-Key', description: 'The provider’s delivery id: a repeat is not stored twice.', maxLength: 256 },
      { name: 'webhook-id', description: 'Standard Webhooks delivery id (also checked with `standard_webhooks` verification).', maxLength: 256 },
      { name: 'X-GitHub-Delivery', description: 'GitHub’s delivery id.', maxLength: 256 },
      { name: 'X-Shopify-Webhook-Id', description: 'Shopify’s delivery id.', maxLength: 256 },
    ],
    responses: {
      202: json('Persisted: `queued` when routes matched, `accepted` when none did.', ingestAcceptedResponse, {
        id: ids.event,
        status: 'queued',
      }),
    },
    errors: {
      400: ['X-Event-Type must be at most 200 characters', 'the delivery id header must be at most 256 characters'],
      401: ['Unauthorized', 'invalid signature'],
    },
  },
};
