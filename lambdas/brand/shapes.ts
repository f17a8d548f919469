import * as z from 'zod';
import { BRAND_LIMITS, effectiveBrand, isHexColour, isHttpsUrl } from '../domain/brand';
import { at } from '../api-kit/examples';
import { named } from '../api-kit/schemas';
import { hasControlChars } from '../api-kit/validation';
import type { BrandSettingsRecord } from './record';

/** The account's brand settings as the API shows them, and the part of them a portal session carries. */

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
export const updateBrandSettingsBody = named(
  'UpdateBrandSettingsRequest',
  z.strictObject({
    company_name: text('company_name', BRAND_LIMITS.company_name).nullable().optional().describe('Default null.'),
    logo_url: logoUrl.nullable().optional().describe('An absolute https URL without credentials. Default null.'),
    primary_color: colour('primary_color').nullable().optional().describe('`#rrggbb`, answered lower-case. Default `#4f46e5`.'),
    accent_color: colour('accent_color').nullable().optional().describe('`#rrggbb`, answered lower-case. Default null: derived from `primary_color`.'),
    docs_title: text('docs_title', BRAND_LIMITS.docs_title).nullable().optional().describe('Default `Webhooks`.'),
  }),
  'A merge: a field left out keeps its value, a string sets it, null clears it back to its default.',
);

const hexColour = z.string().regex(/^#[0-9a-f]{6}$/);

export const brandSettingsResponse = named(
  'BrandSettings',
  z.strictObject({
    company_name: z.string().nullable(),
    logo_url: z.string().nullable(),
    primary_color: hexColour.nullable(),
    accent_color: hexColour.nullable(),
    docs_title: z.string().nullable(),
    updated_at: z.iso.datetime().nullable().describe('null until the account sets something.'),
  }),
  'The effective settings: defaults filled in.',
);
export type BrandSettingsResponse = z.output<typeof brandSettingsResponse>;

/** What a portal session shows of the brand: the settings without their bookkeeping. */
export const portalBrandResponse = brandSettingsResponse.omit({ updated_at: true });
export type PortalBrandResponse = z.output<typeof portalBrandResponse>;

export const presentBrandSettings = (record: BrandSettingsRecord | undefined): BrandSettingsResponse => ({
  ...effectiveBrand(record ?? {}),
  updated_at: record?.updated_at ?? null,
});

export const presentPortalBrand = (record: BrandSettingsRecord | undefined): PortalBrandResponse => effectiveBrand(record ?? {});

export const exampleBrandSettings = {
  company_name: 'Acme',
  logo_url: 'https://cdn.acme.com/logo.svg',
  primary_color: '#ff0066',
  accent_color: null,
  docs_title: 'Webhooks',
  updated_at: at,
} satisfies BrandSettingsResponse;

export const examplePortalBrand = {
  company_name: exampleBrandSettings.company_name,
  logo_url: exampleBrandSettings.logo_url,
  primary_color: exampleBrandSettings.primary_color,
  accent_color: exampleBrandSettings.accent_color,
  docs_title: exampleBrandSettings.docs_title,
} satisfies PortalBrandResponse;
