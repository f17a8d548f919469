/**
 * The words Hookgate's records, API and metrics share, each list declared once: the store's
 * schemas, the API's enums and the domain's types are all read from here.
 */

/** Received from a provider (a source) or published by the account for its customers. */
export const DIRECTIONS = ['inbound', 'outbound'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** Event and delivery statuses (spec part 3); lambdas/domain/event-status.ts says how one follows the others. */
export const EVENT_STATUSES = [
  'received',
  'accepted',
  'queued',
  'delivering',
  'delivered',
  'retry_scheduled',
  'dead_letter',
  'replayed',
] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

export const DELIVERY_STATUSES = ['queued', 'delivering', 'retry_scheduled', 'delivered', 'dead_letter'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** How one try ended. */
export const ATTEMPT_OUTCOMES = ['success', 'http_error', 'timeout', 'network_error', 'blocked'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** Signature checks of incoming webhooks; all but `hmac_sha256` are verified with one shared secret. */
export const PROVIDERS = ['stripe', 'github', 'shopify', 'slack', 'standard_webhooks', 'hmac_sha256'] as const;
export type Provider = (typeof PROVIDERS)[number];
export const SECRET_PROVIDERS = ['stripe', 'github', 'shopify', 'slack', 'standard_webhooks'] as const satisfies readonly Provider[];

/** How deliveries are signed. */
export const SIGNATURE_SCHEMES = ['hookgate', 'standard_webhooks', 'ed25519'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

export const EXPORT_STATUSES = ['queued', 'processing', 'ready', 'failed'] as const;
export const EXPORT_FORMATS = ['json', 'csv'] as const;
export const REPLAY_JOB_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export const ERASURE_STATUSES = ['running', 'done'] as const;
export const DOMAIN_STATUSES = ['pending_verification', 'verified', 'failed'] as const;
export const TLS_STATUSES = ['pending', 'issued', 'failed'] as const;
