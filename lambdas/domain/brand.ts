/** The brand fields an account can set, and what a field reads as while it is not set. */
const BRAND_FIELDS = ['company_name', 'logo_url', 'primary_color', 'accent_color', 'docs_title'] as const;
export type BrandField = (typeof BRAND_FIELDS)[number];
export type BrandValues = Record<BrandField, string | null>;

export const BRAND_DEFAULTS: Readonly<BrandValues> = {
  company_name: null,
  logo_url: null,
  primary_color: '#4f46e5',
  // Unset, the portal derives it from the primary colour (lambdas/domain/brand-palette.ts): a fixed
  // green would sit under any brand's bar and read as "healthy".
  accent_color: null,
  docs_title: 'Webhooks',
};

export const BRAND_LIMITS = { company_name: 100, docs_title: 100, logo_url: 2048 } as const;

const HEX_COLOUR = /^#[0-9a-f]{6}$/i;

export const isHexColour = (value: string): boolean => HEX_COLOUR.test(value);

/** An absolute https URL with a host and no credentials (a logo is shown to the account's own customers). */
export function isHttpsUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '';
}

/** Stored values over the defaults: a field never set, or cleared with null, reads as its default. */
export function effectiveBrand(stored: Partial<Record<BrandField, string | null | undefined>>): BrandValues {
  const result = { ...BRAND_DEFAULTS };
  for (const field of BRAND_FIELDS) {
    const value = stored[field];
    if (typeof value === 'string') result[field] = value;
  }
  return result;
}
