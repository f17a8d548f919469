import { z } from 'zod';
import { BRAND_LIMITS, effectiveBrand, isHexColour, isHttpsUrl } from '../../domain/brand';
import { findBrandSettings, mergeBrandSettings } from '../../store/brand-settings';
import type { BrandSettingsRecord } from '../../store/records';
import type { Route } from '../router';
import { hasControlChars, parseJsonBody } from '../validation';

const notEmpty = (field: string) => ({ error: () => `${field} must not be empty (use null to clear it)` });

const text = (field: string, max: number) =>
  z
    .string()
    .min(1, notEmpty(field))
    .max(max)
    .refine((v) => !hasControlChars(v), { error: () => `${field} must not contain control characters` });

const colour = (field: string) =>
  z
    .string()
    .refine(isHexColour, { error: () => `${field} must be a #rrggbb colour` })
    .transform((v) => v.toLowerCase());

const logoUrl = z
  .string()
  .max(BRAND_LIMITS.logo_url)
  .refine(isHttpsUrl, { error: () => 'logo_url must be an https URL' });

/** Every field optional; null clears a field back to its default; unknown fields are refused. */
const brandBody = z.strictObject({
  company_name: text('company_name', BRAND_LIMITS.company_name).nullable().optional(),
  logo_url: logoUrl.nullable().optional(),
  primary_color: colour('primary_color').nullable().optional(),
  accent_color: colour('accent_color').nullable().optional(),
  docs_title: text('docs_title', BRAND_LIMITS.docs_title).nullable().optional(),
});

export const presentBrandSettings = (record: BrandSettingsRecord | undefined) => ({
  ...effectiveBrand(record ?? {}),
  updated_at: record?.updated_at ?? null,
});

export const brandSettingsRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/brand-settings',
    auth: 'api_key',
    handle: async ({ principal }) => ({
      status: 200,
      data: presentBrandSettings(await findBrandSettings(principal.accountId)),
    }),
  },
  {
    // A merge, as Stripe's updates are: fields left out keep their value.
    method: 'POST',
    path: '/v1/brand-settings',
    auth: 'api_key',
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, brandBody);
      // Nothing to change (an empty body): answer the settings as they are, without a write.
      const record =
        Object.keys(body).length === 0
          ? await findBrandSettings(principal.accountId)
          : await mergeBrandSettings(principal.accountId, body, now);
      return { status: 200, data: presentBrandSettings(record) };
    },
  },
];
