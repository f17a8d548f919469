import * as z from 'zod';
import { MAX_RETENTION_DAYS, PLANS } from '../domain/plans';
import { at, ids } from '../api-kit/examples';
import { named } from '../api-kit/schemas';
import { textField } from '../api-kit/validation';
import type { ApiKeyRecord, ApiKeyWithUsage } from './api-key-record';
import type { AccountRecord } from './record';

/**
 * An account's and its API keys' shapes: requests, answers (typed, so a presenter cannot drift), the
 * examples. Secrets and hashes stay out; only a key's creation shows the key itself.
 */

const uuid = z.uuid();
const timestamp = z.iso.datetime();

// ------------------------------------------------------------------ accounts

const retentionDays = z.int().min(1).max(MAX_RETENTION_DAYS);

export const createAccountBody = named(
  'CreateAccountRequest',
  z.strictObject({
    name: textField('name').optional(),
    plan: z.enum(PLANS).optional(),
    retention_days: retentionDays.optional().describe('Enterprise only (1..3650). Defaults: free 1, pro 30, enterprise 90.'),
  }),
);

export const updateAccountBody = named(
  'UpdateAccountRequest',
  z.strictObject({
    name: textField('name').optional(),
    plan: z.enum(PLANS).optional(),
    retention_days: retentionDays.optional().describe('Enterprise only; a plan change without it resets the window to the new plan’s default.'),
  }),
);

export const retentionErrors = ['retention_days can only be set on the enterprise plan', 'retention_days must be at most 3650'];

export const accountResponse = named(
  'Account',
  z.strictObject({
    id: uuid,
    name: z.string().nullable(),
    plan: z.enum(PLANS),
    retention_days: z.int().min(1),
    created_at: timestamp,
  }),
);

/** What `GET /v1/account` shows: the account, and where receivers find its Ed25519 public keys. */
export const accountDetailResponse = named(
  'AccountDetail',
  z.strictObject({
    ...accountResponse.shape,
    jwks_url: z.url().describe('The public JWKS (no API key needed) of the Ed25519 keys the account’s own `ed25519` destinations (those of no `customer`) are signed with. Each customer’s endpoints are signed with that customer’s own keys: `/.well-known/jwks/{account_id}/customers/{customer}.json`, shown in its portal.'),
  }),
);

// ------------------------------------------------------------------ API keys

export const createApiKeyBody = named('CreateApiKeyRequest', z.strictObject({ name: textField('name').optional() }));

export const apiKeyResponse = named(
  'ApiKey',
  z.strictObject({
    id: uuid,
    name: z.string().nullable(),
    prefix: z.string().describe('The first 10 characters of the key (`hk_` + 7), to tell keys apart.'),
    created_at: timestamp,
    last_used_at: timestamp.nullable().describe('One-minute resolution.'),
  }),
  'An API key as listed: never the key itself or its hash.',
);

export const newApiKeyResponse = named(
  'NewApiKey',
  z.strictObject({
    id: uuid,
    name: z.string().nullable(),
    key: z.string().regex(/^hk_[A-Za-z0-9_-]{43}$/).describe('The key: shown once, only its SHA-256 is stored.'),
    prefix: z.string(),
    created_at: timestamp,
  }),
  'A newly created API key, with the key itself (the only time it is shown).',
);

export const accountCreatedResponse = named(
  'AccountCreated',
  z.strictObject({ account: accountResponse, api_key: newApiKeyResponse }),
);

export type AccountResponse = z.output<typeof accountResponse>;
type AccountDetailResponse = z.output<typeof accountDetailResponse>;
export type ApiKeyResponse = z.output<typeof apiKeyResponse>;
export type NewApiKeyResponse = z.output<typeof newApiKeyResponse>;

// ------------------------------------------------------------------ presenters

export const presentAccount = (a: AccountRecord): AccountResponse => ({
  id: a.id,
  name: a.name,
  plan: a.plan,
  retention_days: a.retention_days,
  created_at: a.created_at,
});

/**
 * Where the JWKS of one key owner is served on the gateway at `baseUrl`: the account's own
 * destinations' (customer null), or one customer's, whose key pair signs only that customer's endpoints.
 */
export const jwksUrl = (baseUrl: string, accountId: string, customer: string | null = null): string =>
  customer === null ? `${baseUrl}/.well-known/jwks/${accountId}.json` : `${baseUrl}/.well-known/jwks/${accountId}/customers/${encodeURIComponent(customer)}.json`;

export const presentAccountDetail = (a: AccountRecord, baseUrl: string): AccountDetailResponse => ({
  ...presentAccount(a),
  jwks_url: jwksUrl(baseUrl, a.id),
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

// ------------------------------------------------------------------ examples

const exampleApiKey = 'hk_K3tlHJI3GmqSkUBeBew2VAhj_7qHB_tiCB_utY4UFoI';

export const exampleAccount = {
  id: ids.account,
  name: 'Acme',
  plan: 'free',
  retention_days: 1,
  created_at: at,
} satisfies AccountResponse;

export const exampleAccountDetail = {
  ...exampleAccount,
  jwks_url: `https://api.hookgate.example.com/.well-known/jwks/${ids.account}.json`,
} satisfies AccountDetailResponse;

export const exampleNewApiKey = {
  id: ids.apiKey,
  name: 'bootstrap',
  key: exampleApiKey,
  prefix: exampleApiKey.slice(0, 10),
  created_at: at,
} satisfies NewApiKeyResponse;

export const exampleApiKeyListed = {
  id: ids.apiKey,
  name: 'bootstrap',
  prefix: exampleApiKey.slice(0, 10),
  created_at: at,
  last_used_at: at,
} satisfies ApiKeyResponse;
