import type { BrandField } from '../domain/brand';
import { findBrandSettings, mergeBrandSettings, type BrandSettingsRecord } from './record';

/**
 * The account's brand, which the portal shows its customers: read by the management API and by the
 * portal session alike. undefined: the account never set anything (every field reads as its default).
 */
export const showBrandSettings = (accountId: string): Promise<BrandSettingsRecord | undefined> => findBrandSettings(accountId);

/** A merge: a string sets a field, null clears it, a field left out keeps its value. */
export async function changeBrandSettings(
  accountId: string,
  changes: Partial<Record<BrandField, string | null>>,
  now: Date,
): Promise<BrandSettingsRecord | undefined> {
  // Nothing to change (an empty body): the settings as they are, without a write.
  if (Object.keys(changes).length === 0) return findBrandSettings(accountId);
  return mergeBrandSettings(accountId, changes, now);
}
