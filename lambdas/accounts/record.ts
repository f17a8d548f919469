import * as z from 'zod/mini';
import { PLANS } from '../domain/plans';
import { ACCOUNT_SK, accountPartition } from '../store/keys';
import { defineEntity } from '../store/entity';
import { forgetRoutingTable } from '../store/routing-stamp';

/** An account as stored: the tenant every other item is scoped to. */
export const accountRecord = z.object({
  id: z.string(),
  name: z.nullable(z.string()),
  plan: z.enum(PLANS),
  retention_days: z.int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type AccountRecord = z.infer<typeof accountRecord>;

/** The partition background jobs walk to visit every account (sparse work index). */
export const ACCOUNTS_WORK_PARTITION = 'ACCOUNTS';

/**
 * Accounts are also listed in the sparse work index, so background jobs can visit each one.
 * `ttl_retention_days` is the window the account's TTLs were written for: a retention change leaves it
 * behind `retention_days`, and the sweeper re-times the account's TTLs and then records the new window.
 * The account item opens the routing range (keys.ts), which routing-table.ts reads.
 */
const accountKey = (accountId: string) => ({ pk: accountPartition(accountId), sk: ACCOUNT_SK });
export const accountEntity = defineEntity({
  name: 'account',
  schema: accountRecord,
  key: accountKey,
  keyOf: (account: AccountRecord) => accountKey(account.id),
  derived: (account) => ({ gsi2pk: ACCOUNTS_WORK_PARTITION, gsi2sk: account.id, ttl_retention_days: account.retention_days }),
});

export async function insertAccount(account: AccountRecord): Promise<void> {
  if (!(await accountEntity.create(account))) throw new Error(`account id collision: ${account.id}`);
}

export const findAccount = (accountId: string) => accountEntity.find(accountId);

export async function updateAccount(
  accountId: string,
  changes: Partial<Pick<AccountRecord, 'name' | 'plan' | 'retention_days' | 'updated_at'>>,
) {
  const updated = await accountEntity.update([accountId], changes);
  forgetRoutingTable(accountId);
  return updated;
}
