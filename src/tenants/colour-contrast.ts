/**
 * WCAG 2 contrast, for the hotel's accent colour. The guest page uses the accent in two ways:
 * as the background of white text (its header band, its buttons) and as the colour of text and
 * links on its light grey page and white cards. Both must reach AA for normal text (4.5:1);
 * the light grey is the darker of the two light backgrounds, so it is the one checked.
 */
export const ACCENT_TEXT_COLOUR = '#ffffff';
export const GUEST_PAGE_BACKGROUND = '#f3f4f6';
export const MIN_CONTRAST = 4.5;

const HEX = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i;

/** `#abc`, `abc`, `#AABBCC` to `#aabbcc`; undefined when it is not a hex colour. */
export function normaliseHexColour(value: string): string | undefined {
  const m = HEX.exec(value.trim());
  if (!m?.[1]) return undefined;
  const digits = m[1].toLowerCase();
  const full = digits.length === 3 ? [...digits].map((d) => d + d).join('') : digits;
  return `#${full}`;
}

/** WCAG 2 relative luminance of a `#rrggbb` colour, 0 (black) to 1 (white). */
export function relativeLuminance(hex: string): number {
  const colour = normaliseHexColour(hex);
  if (!colour) throw new Error(`not a hex colour: ${hex}`);
  const channel = (i: number) => {
    const c = Number.parseInt(colour.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** WCAG 2 contrast ratio of two colours, 1 (same) to 21 (black on white); order does not matter. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/**
 * Why an accent colour cannot be used, or undefined when it can: the lower of its contrasts
 * with white text and with the page background, against the 4.5:1 it needs.
 */
export function accentContrastProblem(hex: string): string | undefined {
  const { lowest, shown, against } = lowestAccentContrast(hex);
  if (lowest >= MIN_CONTRAST) return undefined;
  const what = against === 'text' ? 'white text' : `the page background ${GUEST_PAGE_BACKGROUND}`;
  return `has a contrast of ${shown}:1 with ${what}; at least ${MIN_CONTRAST}:1 is needed (WCAG AA): choose a darker colour`;
}

/** The lower of an accent's two contrasts, and with what; `shown` rounded down to two decimals. */
export function lowestAccentContrast(hex: string): { lowest: number; shown: string; against: 'text' | 'page' } {
  const withText = contrastRatio(hex, ACCENT_TEXT_COLOUR);
  const withPage = contrastRatio(hex, GUEST_PAGE_BACKGROUND);
  const lowest = Math.min(withText, withPage);
  // Rounded down: a ratio of 4.49 must not read as "4.5, needs 4.5".
  const shown = (Math.floor(lowest * 100) / 100).toFixed(2);
  return { lowest, shown, against: withText <= withPage ? 'text' : 'page' };
}
