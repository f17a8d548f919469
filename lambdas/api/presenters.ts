import { healthState, type BreakerState } from '../domain/breaker';
import type { Accepted } from '../pipeline/outcomes';
import { presentAutoDisable, presentRetrySchedule } from './delivery-settings';
import type { ApiKeyWithUsage } from '../store/api-keys';
import type { AccountRecord, ApiKeyRecord, DestinationRecord, RouteRecord, SourceRecord } from '../store/records';
import type {
  AccountResponse,
  ApiKeyResponse,
  DestinationResponse,
  DestinationWithSecretResponse,
  DuplicateResponse,
  NewApiKeyResponse,
  PublishedResponse,
  RouteResponse,
  SourceResponse,
} from './schemas';

/**
 * Response shapes, typed by the schemas the OpenAPI document is generated from (./schemas).
 * Secrets, hashes and auth values stay out unless a function says otherwise.
 */
export const presentAccount = (a: AccountRecord): AccountResponse => ({
  id: a.id,
  name: a.name,
  plan: a.plan,
  retention_days: a.retention_days,
  created_at: a.created_at,
});

export const presentApiKey = (k: ApiKeyWithUsage): ApiKeyResponse => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  created_at: k.created_at,
  last_used_at: k.last_used_at,
});

/** Only at creation does the caller see the key itself. */
export const presentNewApiKey = (k: ApiKeyRecord, key: string): NewApiKeyResponse => ({
  id: k.id,
  name: k.name,
  key,
  prefix: k.prefix,
  created_at: k.created_at,
});

export const presentSource = (s: SourceRecord, ingestBaseUrl: string): SourceResponse => ({
  id: s.id,
  account_id: s.account_id,
  name: s.name,
  path_token: s.path_token,
  ingest_url: `${ingestBaseUrl}/ingest/${s.path_token}`,
  verification: s.verification ? { provider: s.verification.provider, configured: true } : null,
  custom_domain_id: s.custom_domain_id,
  created_at: s.created_at,
});

/** A destination as lists and PATCH show it: no signing secret. */
export function presentDestination(d: DestinationRecord, breaker: BreakerState): DestinationResponse {
  return {
    id: d.id,
    account_id: d.account_id,
    name: d.name,
    url: d.url,
    active: d.active,
    auth: d.auth === null ? null : d.auth.type === 'bearer' ? { type: 'bearer' } : { type: 'header', header_name: d.auth.name },
    timeout_ms: d.timeout_ms,
    signature_scheme: d.signature_scheme,
    disabled_reason: d.disabled_reason,
    health: {
      state: healthState(breaker, d.active),
      consecutive_failures: breaker.consecutive_failures,
      last_success_at: breaker.last_success_at,
      last_failure_at: breaker.last_failure_at,
      open_until: breaker.state === 'open' ? breaker.open_until : null,
    },
    customer: d.customer,
    retry_schedule: presentRetrySchedule(d),
    auto_disable_after_hours: presentAutoDisable(d),
    rate_limit_per_second: d.rate_limit_per_second ?? null,
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

/** The create answer and the detail: with the signing secret. */
export const presentDestinationWithSecret = (d: DestinationRecord, breaker: BreakerState): DestinationWithSecretResponse => ({
  ...presentDestination(d, breaker),
  signing_secret: d.signing_secret,
});

export const presentRoute = (r: RouteRecord): RouteResponse => ({
  id: r.id,
  account_id: r.account_id,
  source_id: r.source_id,
  destination_id: r.destination_id,
  event_type_pattern: r.event_type_pattern,
  active: r.active,
  filter: r.filter ?? null,
  created_at: r.created_at,
});

export type PublishAnswer = { status: 201; data: PublishedResponse } | { status: 200; data: DuplicateResponse };

/**
 * A publish's answer. A new event answers `queued` (spec) even when it matched no route and ended
 * `accepted` at once, as its detail shows; a duplicate answers the first event as it stands.
 */
export const presentPublished = (outcome: Accepted): PublishAnswer =>
  outcome.kind === 'accepted'
    ? { status: 201, data: { id: outcome.event.id, status: 'queued' } }
    : { status: 200, data: { id: outcome.event.id, status: outcome.event.status, duplicate: true } };
