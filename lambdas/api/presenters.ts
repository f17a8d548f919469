import type { ApiKeyWithUsage } from '../store/api-keys';
import type { AccountRecord, ApiKeyRecord, DestinationRecord, RouteRecord, SourceRecord } from '../store/records';

/** Response shapes. Secrets, hashes and auth values stay out unless a function says otherwise. */
export const presentAccount = (a: AccountRecord) => ({
  id: a.id,
  name: a.name,
  plan: a.plan,
  retention_days: a.retention_days,
  created_at: a.created_at,
});

export const presentApiKey = (k: ApiKeyWithUsage) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  created_at: k.created_at,
  last_used_at: k.last_used_at,
});

/** Only at creation does the caller see the key itself. */
export const presentNewApiKey = (k: ApiKeyRecord, key: string) => ({
  id: k.id,
  name: k.name,
  key,
  prefix: k.prefix,
  created_at: k.created_at,
});

export const presentSource = (s: SourceRecord, ingestBaseUrl: string) => ({
  id: s.id,
  account_id: s.account_id,
  name: s.name,
  path_token: s.path_token,
  ingest_url: `${ingestBaseUrl}/ingest/${s.path_token}`,
  verification: s.verification ? { provider: s.verification.provider, configured: true } : null,
  custom_domain_id: s.custom_domain_id,
  created_at: s.created_at,
});

export function presentDestination(d: DestinationRecord, options: { withSecret: boolean }) {
  const auth =
    d.auth === null ? null : d.auth.type === 'bearer' ? { type: 'bearer' } : { type: 'header', header_name: d.auth.name };
  return {
    id: d.id,
    account_id: d.account_id,
    name: d.name,
    url: d.url,
    active: d.active,
    auth,
    timeout_ms: d.timeout_ms,
    signature_scheme: d.signature_scheme,
    ...(options.withSecret ? { signing_secret: d.signing_secret } : {}),
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

export const presentRoute = (r: RouteRecord) => ({
  id: r.id,
  account_id: r.account_id,
  source_id: r.source_id,
  destination_id: r.destination_id,
  event_type_pattern: r.event_type_pattern,
  active: r.active,
  created_at: r.created_at,
});
