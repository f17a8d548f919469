import { BRAND_DEFAULTS } from './brand';

/**
 * The portal's colours from an account's brand. A brand colour is chosen for a logo, not for text:
 * `#ff0066` under white button text reads at 3.86:1, `#ffdd00` as a link on white at 1.35:1. So every
 * colour the page puts text in, or that carries meaning on its own (the current tab's underline), is
 * derived here and meets WCAG AA's 4.5:1 on every background it sits on; the brand colour itself is
 * kept wherever it is decoration only (the header's bar). Pure, so the browser and the tests share it.
 */

/** WCAG AA for normal-size text. */
export const MIN_CONTRAST = 4.5;

/** The backgrounds brand-coloured text sits on: cards, the page, code blocks (portal/app.css uses the same). */
export const PAGE_BACKGROUNDS = ['#ffffff', '#f9fafb', '#f3f4f6'] as const;

/** Text on a filled button when the brand is too light for white. */
export const DARK_TEXT = '#111827';
const WHITE = '#ffffff';
const BLACK = '#000000';

const DEFAULT_PRIMARY = BRAND_DEFAULTS.primary_color ?? '#4f46e5';

export interface Palette {
  /** The brand colour as given: the header's bar, never text. */
  bar: string;
  /** A filled (primary) button's background, and its text. */
  button: string;
  onButton: string;
  /** Links, quiet buttons and copy buttons: text on the page's backgrounds. */
  link: string;
  /** The current tab's underline: the accent, or the primary when no accent is set. */
  accent: string;
}

type Rgb = [number, number, number];

function rgb(hex: string): Rgb {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

const hex = ([r, g, b]: Rgb): string => `#${[r, g, b].map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

/** WCAG 2 relative luminance of an sRGB colour. */
function luminance(colour: string): number {
  const [r, g, b] = rgb(colour).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio of two `#rrggbb` colours, 1 to 21. */
export function contrast(a: string, b: string): number {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (high + 0.05) / (low + 0.05);
}

const mix = (from: string, to: string, share: number): string => {
  const [a, b] = [rgb(from), rgb(to)];
  return hex(a.map((c, i) => c + (b[i]! - c) * share) as Rgb);
};

const readableOnAll = (colour: string, backgrounds: readonly string[]) => backgrounds.every((bg) => contrast(colour, bg) >= MIN_CONTRAST);

/** How far (0 to 1) the colour is mixed toward `toward`, in steps of 2% that keep its hue, before it reads on every background. */
function shadeShare(colour: string, backgrounds: readonly string[], toward: string): number {
  for (let step = 0; step < 50; step++) if (readableOnAll(mix(colour, toward, step / 50), backgrounds)) return step / 50;
  return 1;
}

/** The nearest shade of the colour that reads on every background: the colour itself when it already does. */
export const readableShade = (colour: string, backgrounds: readonly string[], toward: string = BLACK): string =>
  mix(colour, toward, shadeShare(colour, backgrounds, toward));

/** A darker shade a designer still reads as the brand: past this, dark text on the brand itself keeps it truer. */
const NEAR_SHADE = 0.25;

/**
 * A filled button in the brand: white text when it reads; else white on a slightly darker shade (a
 * pink brand stays pink); else dark text on the brand (a yellow brand keeps its yellow, rather than
 * turning olive); else the darker shade, however far.
 */
function button(primary: string): { button: string; onButton: string } {
  if (contrast(WHITE, primary) >= MIN_CONTRAST) return { button: primary, onButton: WHITE };
  const share = shadeShare(primary, [WHITE], BLACK);
  if (share > NEAR_SHADE && contrast(DARK_TEXT, primary) >= MIN_CONTRAST) return { button: primary, onButton: DARK_TEXT };
  return { button: mix(primary, BLACK, share), onButton: WHITE };
}

const normal = (colour: string | null | undefined): string | undefined => (colour && /^#[0-9a-f]{6}$/i.test(colour) ? colour.toLowerCase() : undefined);

export function brandPalette(brand: { primary_color?: string | null; accent_color?: string | null }): Palette {
  const primary = normal(brand.primary_color) ?? DEFAULT_PRIMARY;
  const accent = normal(brand.accent_color) ?? primary;
  return {
    bar: primary,
    ...button(primary),
    link: readableShade(primary, PAGE_BACKGROUNDS),
    accent: readableShade(accent, PAGE_BACKGROUNDS),
  };
}
