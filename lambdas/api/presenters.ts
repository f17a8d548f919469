import type { Accepted } from '../pipeline/outcomes';
import type { ApiKeyWithUsage } from '../store/api-keys';
import type { AccountRecord, ApiKeyRecord } from '../store/records';
import type {
  AccountResponse,
  ApiKeyResponse,
  DuplicateResponse,
  NewApiKeyResponse,
  PublishedResponse,
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

export type PublishAnswer = { status: 201; data: PublishedResponse } | { status: 200; data: DuplicateResponse };

/**
 * A publish's answer. A new event answers `queued` (spec) even when it matched no route and ended
 * `accepted` at once, as its detail shows; a duplicate answers the first event as it stands.
 */
export const presentPublished = (outcome: Accepted): PublishAnswer =>
  outcome.kind === 'accepted'
    ? { status: 201, data: { id: outcome.event.id, status: 'queued' } }
    : { status: 200, data: { id: outcome.event.id, status: outcome.event.status, duplicate: true } };
