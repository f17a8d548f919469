import { keys } from './keys';
import { accountRecord, type AccountRecord } from './records';
import { forgetRoutingTable } from './routing-table';
import { getItem, putNew, updateExisting } from './table';

/**
 * Accounts are also listed in the sparse work index, so background jobs can visit each one.
 * `ttl_retention_days` is the window the account's TTLs were written for: a retention change leaves it
 * behind `retention_days`, and the sweeper re-times the account's TTLs and then records the new window.
 */
export async function insertAccount(account: AccountRecord): Promise<void> {
  const created = await putNew({
    ...keys.account(account.id),
    entity: 'account',
    gsi2pk: 'ACCOUNTS',
    gsi2sk: account.id,
    ...account,
    ttl_retention_days: account.retention_days,
  });
  if (!created) throw new Error(`account id collision: ${account.id}`);
}

export const findAccount = (accountId: string) => getItem(keys.account(accountId), accountRecord);

export async function updateAccount(
  accountId: string,
  changes: Partial<Pick<AccountRecord, 'name' | 'plan' | 'retention_days' | 'updated_at'>>,
) {
  const updated = await updateExisting(keys.account(accountId), changes, accountRecord);
  forgetRoutingTable(accountId);
  return updated;
}
