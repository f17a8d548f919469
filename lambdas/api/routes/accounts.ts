import { z } from 'zod';
import { notFound } from '../../domain/errors';
import { MAX_RETENTION_DAYS, PLANS, resolveRetention } from '../../domain/plans';
import { apiKeyPrefix, hashApiKey, newApiKey, newId } from '../../shared/secrets';
import { findAccount, insertAccount, updateAccount } from '../../store/accounts';
import { insertApiKey } from '../../store/api-keys';
import type { AccountRecord, ApiKeyRecord } from '../../store/records';
import { presentAccount, presentNewApiKey } from '../presenters';
import type { Route } from '../router';
import { parseJsonBody, textField } from '../validation';

const retentionDays = z.int().min(1).max(MAX_RETENTION_DAYS);

const createAccountBody = z.strictObject({
  name: textField('name').optional(),
  plan: z.enum(PLANS).optional(),
  retention_days: retentionDays.optional(),
});

const updateAccountBody = z.strictObject({
  name: textField('name').optional(),
  plan: z.enum(PLANS).optional(),
  retention_days: retentionDays.optional(),
});

export const accountRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1/accounts',
    auth: 'none',
    handle: async ({ request, now }) => {
      const body = parseJsonBody(request, createAccountBody);
      const plan = body.plan ?? 'free';
      const at = now.toISOString();
      const account: AccountRecord = {
        id: newId(),
        name: body.name ?? null,
        plan,
        retention_days: resolveRetention({ plan, requestedDays: body.retention_days }),
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
      return { status: 201, data: { account: presentAccount(account), api_key: presentNewApiKey(apiKey, key) } };
    },
  },
  {
    method: 'GET',
    path: '/v1/account',
    auth: 'api_key',
    handle: async ({ principal }) => {
      const account = await findAccount(principal.accountId);
      if (!account) throw notFound();
      return { status: 200, data: presentAccount(account) };
    },
  },
  {
    method: 'PATCH',
    path: '/v1/account',
    auth: 'api_key',
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, updateAccountBody);
      const current = await findAccount(principal.accountId);
      if (!current) throw notFound();
      const plan = body.plan ?? current.plan;
      const retention_days = resolveRetention({
        plan,
        requestedDays: body.retention_days,
        currentPlan: current.plan,
        currentDays: current.retention_days,
      });
      const updated = await updateAccount(principal.accountId, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        plan,
        retention_days,
        updated_at: now.toISOString(),
      });
      if (!updated) throw notFound();
      return { status: 200, data: presentAccount(updated) };
    },
  },
];
