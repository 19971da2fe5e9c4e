const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Formatters made once per language (and zone): making an `Intl.DateTimeFormat` costs far more
 * than formatting with one (it was a seventh of the guest page's CPU, two dates a page). The
 * keys are bounded: the catalogues' few locales, and the zones hotels are configured with.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}|${options.timeStyle ?? ''}|${options.timeZoneName ?? ''}|${options.timeZone ?? ''}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, options);
    formatters.set(key, f);
  }
  return f;
}

/** A `YYYY-MM-DD` date (check-in, check-out) in the reader's language; any other text as it is. */
export function formatIsoDate(value: string, locale: string): string {
  if (!ISO_DATE.test(value)) return value;
  const d = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return value;
  return formatter(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(d);
}

/** An instant (when a payment was made) in the reader's language, on the hotel's clock. */
export function formatInstant(at: Date, locale: string, timeZone: string): string {
  return formatter(locale, { dateStyle: 'long', timeStyle: 'short', timeZone }).format(new Date(at));
}

/**
 * An instant as a guest reads it: in their language, on the hotel's clock, and saying which clock
 * (`17 July 2026 at 14:05 CEST`, `17 juillet 2026 à 14:05 UTC+2`, `17. Juli 2026 um 14:05 MESZ`):
 * a guest who travels in from another zone cannot take it for their own time.
 */
export function formatInstantWithZone(at: Date, locale: string, timeZone: string): string {
  return formatter(locale, {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
    timeZone,
  }).format(new Date(at));
}

export function isIsoDate(value: unknown): value is string {
  return typeof value === 'string' && ISO_DATE.test(value);
}
