import * as z from 'zod/mini';
import { PLANS } from '../domain/plans';
import { changeEntry, trimmedLog, type RoutingChange } from '../domain/routing-changes';
import { accountKey } from '../store/keys';
import { defineEntity } from '../store/entity';
import { routingWritten } from '../store/routing-writes';
import { getItem, INDEX, ITEM_EXISTS, queryEach, updateItem } from '../store/table';

/** An account as stored: the tenant every other item is scoped to. */
const accountRecord = z.object({
  id: z.string(),
  name: z.nullable(z.string()),
  plan: z.enum(PLANS),
  retention_days: z.int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type AccountRecord = z.infer<typeof accountRecord>;

/**
 * The account item as routing reads it: the account, its routing version and the log of the last
 * routing changes (lambdas/domain/routing-changes.ts), which every destination or route write updates
 * together.
 */
export const accountStamp = z.object({
  ...accountRecord.shape,
  routing_version: z._default(z.int(), 0),
  routing_changes: z._default(z.array(z.string()), []),
});
export type AccountStamp = z.infer<typeof accountStamp>;

/** The partition background jobs walk to visit every account (sparse work index). */
const ACCOUNTS_WORK_PARTITION = 'ACCOUNTS';

/**
 * Accounts are also listed in the sparse work index, so background jobs can visit each one.
 * `ttl_retention_days` is the window the account's TTLs were written for: a retention change leaves it
 * behind `retention_days`, and the sweeper re-times the account's TTLs and then records the new window.
 * The account item opens the routing range (keys.ts); `routing_version` is its routing stamp and
 * `routing_changes` the log of what the last raises changed, both written here after every destination
 * or route write.
 */
const accountEntity = defineEntity({
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
  routingWritten({ kind: 'account', accountId });
  return updated;
}

/**
 * Raises the account's routing stamp after a destination or route write and appends the change to the
 * account's change log, in one atomic update (a raise whose log entry could be lost would make every
 * reader behind it read its routing whole), so every process's next read of the stamp learns what to
 * read again. After the write, never before: a reader that sees the new stamp and then reads the
 * changed item has the change. Past its bound the log is cut back, only if no write came in between
 * (one that did cuts it next).
 */
export async function markRoutingChanged(accountId: string, change: RoutingChange): Promise<void> {
  const raised = await updateItem(
    accountKey(accountId),
    { add: { routing_version: 1 }, append: { routing_changes: [changeEntry(change)] } },
    { condition: ITEM_EXISTS, returnValues: 'ALL_NEW' },
  );
  if (!raised) return;
  const stamp = accountStamp.parse(raised);
  const trimmed = trimmedLog(stamp.routing_changes);
  if (trimmed) {
    const cut = await updateItem(
      accountKey(accountId),
      { set: { routing_changes: trimmed } },
      { condition: { expression: 'routing_version = :v', values: { ':v': stamp.routing_version } } },
    );
    if (cut !== false) stamp.routing_changes = trimmed;
  }
  // This process knows the new stamp without reading it: its next accept applies the change at once.
  routingWritten({ kind: 'stamp', accountId, item: stamp });
  if (change.kind === 'destination') routingWritten({ kind: 'destination', accountId, destinationId: change.id });
}

/** Account ids in id order, strictly after `after`, one index page at a time (the sweeper's walk). */
export async function* accountIdsAfter(after: string | undefined, pageSize = 100): AsyncGenerator<string> {
  const walk = queryEach(
    {
      IndexName: INDEX.work,
      KeyConditionExpression: after ? 'gsi2pk = :pk AND gsi2sk > :after' : 'gsi2pk = :pk',
      ExpressionAttributeValues: after ? { ':pk': ACCOUNTS_WORK_PARTITION, ':after': after } : { ':pk': ACCOUNTS_WORK_PARTITION },
    },
    pageSize,
  );
  for await (const item of walk) {
    if (typeof item.gsi2sk === 'string') yield item.gsi2sk;
  }
}

const accountRetention = z.object({
  retention_days: z.int(),
  /** The window the account's TTLs were last written for; absent on accounts older than the sweeper. */
  ttl_retention_days: z.optional(z.int()),
});
export type AccountRetention = z.infer<typeof accountRetention>;

export const readAccountRetention = (accountId: string): Promise<AccountRetention | undefined> => getItem(accountKey(accountId), accountRetention);

/**
 * Records that the account's TTLs now follow `days`; only if the account still has that window, so a
 * plan change that landed during the resync leaves the account marked for another one.
 */
export async function recordTtlWindow(accountId: string, days: number): Promise<boolean> {
  const recorded = await updateItem(
    accountKey(accountId),
    { set: { ttl_retention_days: days } },
    { condition: { expression: 'retention_days = :days', values: { ':days': days } } },
  );
  return recorded !== false;
}
