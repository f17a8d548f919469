import { resolveRetention, type Plan } from '../domain/plans';
import { apiKeyPrefix, hashApiKey, newApiKey, newId } from '../shared/secrets';
import { insertAccount } from '../store/accounts';
import { insertApiKey } from '../store/api-keys';
import type { AccountRecord, ApiKeyRecord } from '../store/records';

export interface NewAccount {
  name?: string;
  plan?: Plan;
  retentionDays?: number;
}

/**
 * An account and its bootstrap key: the one way accounts are made, whether through open sign-up or
 * by an operator's script when sign-up is closed. The key is returned once; only its hash is stored.
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
  const key = newApiKey();
  const apiKey: ApiKeyRecord = {
    id: newId(),
    account_id: account.id,
    name: 'bootstrap',
    prefix: apiKeyPrefix(key),
    key_hash: hashApiKey(key),
    created_at: at,
  };
  await insertAccount(account);
  await insertApiKey(apiKey);
  return { account, apiKey, key };
}
