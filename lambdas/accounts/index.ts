import { forbidden, type Refusal } from '../domain/errors';
import { resolveRetention, type Plan } from '../domain/plans';
import type { NotFound } from '../domain/outcomes';
import { config } from '../shared/config';
import { log } from '../shared/log';
import { apiKeyPrefix, hashApiKey, newApiKey, newId } from '../shared/secrets';
import { insertApiKey, listApiKeys, revokeApiKey as revokeKey, type ApiKeyRecord } from './api-key-record';
import { findAccount, insertAccount, updateAccount, type AccountRecord } from './record';
import { closeKeyConnections } from '../listen/connections';

/**
 * An account and its API keys: sign-up (or an operator's script), the account's settings, and the
 * keys it authenticates with. A key is returned once, when made; only its hash is stored.
 */

export interface NewAccount {
  name?: string;
  plan?: Plan;
  retentionDays?: number;
}

export const SIGNUP_CLOSED = 'sign-up is closed on this deployment: an operator creates accounts';

/** Open sign-up, unless the deployment closed it (then an operator runs scripts/create-account.ts). */
export const signUpRefusal = (): Refusal | undefined => (config().signupOpen ? undefined : forbidden(SIGNUP_CLOSED));

/** A new key: the record to store and the key itself, which nothing stores. */
function newKey(accountId: string, name: string | null, at: string): { apiKey: ApiKeyRecord; key: string } {
  const key = newApiKey();
  return { apiKey: { id: newId(), account_id: accountId, name, prefix: apiKeyPrefix(key), key_hash: hashApiKey(key), created_at: at }, key };
}

/**
 * An account and its bootstrap key: the one way accounts are made, whether through open sign-up or
 * by an operator's script when sign-up is closed.
 */
export async function createAccount(input: NewAccount, now: Date): Promise<{ account: AccountRecord; apiKey: ApiKeyRecord; key: string }> {
  const plan = input.plan ?? 'free';
  const at = now.toISOString();
  const account: AccountRecord = {
    id: newId(),
    name: input.name ?? null,
    plan,
    retention_days: resolveRetention({ plan, requestedDays: input.retentionDays }),
    created_at: at,
    updated_at: at,
  };
  const { apiKey, key } = newKey(account.id, 'bootstrap', at);
  await insertAccount(account);
  await insertApiKey(apiKey);
  return { account, apiKey, key };
}

export { findAccount, listApiKeys };

/** A plan change without `retentionDays` takes the new plan's default; an unchanged plan keeps its window. */
export async function changeAccount(accountId: string, request: NewAccount, now: Date): Promise<{ kind: 'changed'; account: AccountRecord } | NotFound> {
  const current = await findAccount(accountId);
  if (!current) return { kind: 'not_found' };
  const plan = request.plan ?? current.plan;
  const retention_days = resolveRetention({ plan, requestedDays: request.retentionDays, currentPlan: current.plan, currentDays: current.retention_days });
  const account = await updateAccount(accountId, {
    ...(request.name !== undefined ? { name: request.name } : {}),
    plan,
    retention_days,
    updated_at: now.toISOString(),
  });
  return account ? { kind: 'changed', account } : { kind: 'not_found' };
}

export async function createApiKey(accountId: string, request: { name?: string }, now: Date): Promise<{ kind: 'created'; apiKey: ApiKeyRecord; key: string }> {
  const made = newKey(accountId, request.name ?? null, now.toISOString());
  await insertApiKey(made.apiKey);
  return { kind: 'created', ...made };
}

/**
 * From this moment the key authenticates nothing; a key may revoke itself. The `hookgate listen`
 * sockets it opened are closed now, not at their next try.
 */
export async function revokeApiKey(accountId: string, keyId: string): Promise<{ kind: 'revoked' } | NotFound> {
  const revoked = await revokeKey(accountId, keyId);
  if (!revoked) return { kind: 'not_found' };
  // The key is gone whatever happens here: a socket left open is closed by its next try instead.
  await closeKeyConnections(accountId, revoked.key_hash).catch((error: unknown) =>
    log.warn('could not look for the hookgate listen connections of a revoked key; their next tries close them', { account_id: accountId }, error),
  );
  return { kind: 'revoked' };
}
