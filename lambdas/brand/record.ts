import * as z from 'zod/mini';
import type { BrandField } from '../domain/brand';
import { defineEntity } from '../store/entity';
import { accountPartition } from '../store/keys';
import { updateItem } from '../store/table';

/** Brand settings as stored: only the fields the account set (absent or null reads as the default). */
const brandSettingsRecord = z.object({
  account_id: z.string(),
  company_name: z.optional(z.nullable(z.string())),
  logo_url: z.optional(z.nullable(z.string())),
  primary_color: z.optional(z.nullable(z.string())),
  accent_color: z.optional(z.nullable(z.string())),
  docs_title: z.optional(z.nullable(z.string())),
  updated_at: z.string(),
});
export type BrandSettingsRecord = z.infer<typeof brandSettingsRecord>;

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
  const set: Record<string, unknown> = { entity: brandSettingsEntity.name, account_id: accountId, updated_at: now.toISOString() };
  const remove: string[] = [];
  for (const [field, value] of Object.entries(changes)) {
    if (value === null) remove.push(field);
    else if (value !== undefined) set[field] = value;
  }
  return brandSettingsEntity.schema.parse(await updateItem(brandSettingsEntity.key(accountId), { set, remove }, { returnValues: 'ALL_NEW' }));
}
