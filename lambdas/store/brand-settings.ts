import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws-clients';
import type { BrandField } from '../domain/brand';
import { config } from '../shared/config';
import { defineEntity } from './entity';
import { accountPartition } from './keys';
import { brandSettingsRecord, type BrandSettingsRecord } from './records';

/** One item per account, outside the routing range. Written only by the merge below, never put whole. */
const brandSettingsEntity = defineEntity({
  name: 'brand_settings',
  schema: brandSettingsRecord,
  key: (accountId: string) => ({ pk: accountPartition(accountId), sk: 'BRAND' }),
});

export const findBrandSettings = (accountId: string) => brandSettingsEntity.find(accountId);

/**
 * Merges changes into the account's settings in one update (created on first use): a string sets a
 * field, null removes it (it reads as its default again), an absent field is left alone. No read
 * first, so two concurrent updates of different fields both land.
 */
export async function mergeBrandSettings(
  accountId: string,
  changes: Partial<Record<BrandField, string | null>>,
  now: Date,
): Promise<BrandSettingsRecord> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {
    ':entity': brandSettingsEntity.name,
    ':account': accountId,
    ':now': now.toISOString(),
  };
  const sets = ['entity = :entity', 'account_id = :account', 'updated_at = :now'];
  const removes: string[] = [];
  Object.entries(changes).forEach(([field, value], i) => {
    if (value === undefined) return;
    names[`#f${i}`] = field;
    if (value === null) {
      removes.push(`#f${i}`);
    } else {
      values[`:f${i}`] = value;
      sets.push(`#f${i} = :f${i}`);
    }
  });
  const out = await documentClient().send(
    new UpdateCommand({
      TableName: config().tableName,
      Key: brandSettingsEntity.key(accountId),
      UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
      ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    }),
  );
  return brandSettingsEntity.schema.parse(out.Attributes);
}
