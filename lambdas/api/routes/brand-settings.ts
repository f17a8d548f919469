import * as z from 'zod';
import { BRAND_LIMITS, effectiveBrand, isHexColour, isHttpsUrl } from '../../domain/brand';
import { findBrandSettings, mergeBrandSettings } from '../../store/brand-settings';
import type { BrandSettingsRecord } from '../../store/records';
import { exampleBrandSettings } from '../examples';
import { json, jsonBody } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { brandSettingsResponse, named, type BrandSettingsResponse } from '../schemas';
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
const brandBody = named(
  'UpdateBrandSettingsRequest',
  z.strictObject({
    company_name: text('company_name', BRAND_LIMITS.company_name).nullable().optional().describe('Default null.'),
    logo_url: logoUrl.nullable().optional().describe('An absolute https URL without credentials. Default null.'),
    primary_color: colour('primary_color').nullable().optional().describe('`#rrggbb`, answered lower-case. Default `#4f46e5`.'),
    accent_color: colour('accent_color').nullable().optional().describe('`#rrggbb`, answered lower-case. Default `#22c55e`.'),
    docs_title: text('docs_title', BRAND_LIMITS.docs_title).nullable().optional().describe('Default `Webhooks`.'),
  }),
  'A merge: a field left out keeps its value, a string sets it, null clears it back to its default.',
);

export const presentBrandSettings = (record: BrandSettingsRecord | undefined): BrandSettingsResponse => ({
  ...effectiveBrand(record ?? {}),
  updated_at: record?.updated_at ?? null,
});

export const brandSettingsRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/brand-settings',
    auth: 'api_key',
    doc: {
      operationId: 'getBrandSettings',
      summary: 'Show brand settings',
      description: 'An account that never set anything gets the defaults and `updated_at: null`.',
      tag: 'Brand settings',
      responses: { 200: json('The effective settings.', brandSettingsResponse, exampleBrandSettings) },
    },
    handle: async ({ principal }) => ({
      status: 200,
      data: presentBrandSettings(await findBrandSettings(principal.accountId)),
    }),
  }),
  defineRoute({
    // A merge, as Stripe's updates are: fields left out keep their value.
    method: 'POST',
    path: '/v1/brand-settings',
    auth: 'api_key',
    doc: {
      operationId: 'updateBrandSettings',
      summary: 'Change brand settings (merge)',
      description:
        'A field left out keeps its value; a string sets it; `null` clears it back to its default. An empty body changes nothing. One atomic write; a refused request changes nothing.',
      tag: 'Brand settings',
      body: jsonBody(brandBody, { company_name: 'Acme', logo_url: 'https://cdn.acme.com/logo.svg', primary_color: '#FF0066' }),
      responses: { 200: json('The full settings, defaults filled in.', brandSettingsResponse, exampleBrandSettings) },
      errors: {
        400: [
          'primary_color must be a #rrggbb colour',
          'accent_color must be a #rrggbb colour',
          'logo_url must be an https URL',
          'logo_url must be at most 2048 characters',
          'company_name must not be empty (use null to clear it)',
          'company_name must be at most 100 characters',
          'docs_title must be a string',
          'docs_title must be at most 100 characters',
          'unknown field: theme',
        ],
      },
    },
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, brandBody);
      // Nothing to change (an empty body): answer the settings as they are, without a write.
      const record =
        Object.keys(body).length === 0
          ? await findBrandSettings(principal.accountId)
          : await mergeBrandSettings(principal.accountId, body, now);
      return { status: 200, data: presentBrandSettings(record) };
    },
  }),
];
