import type { Currency } from './statuses.ts';

/** Largest amount accepted, in currency units. */
export const MAX_AMOUNT = 1_000_000;

/** ISO 4217's alphabetic codes in use (Intl's list: no historic ones, no XXX or XTS). */
const ISO_CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/** Whether a provider's currency is a currency: an ISO 4217 code in use, in capitals. */
export function isIsoCurrency(code: string): boolean {
  return ISO_CURRENCIES.has(code);
}

/**
 * Decimal currency units to integer minor units, or undefined when the number has more than
 * two decimals: the API never rounds money silently.
 */
export function toMinorUnits(amount: number): number | undefined {
  if (!Number.isFinite(amount)) return undefined;
  // A JSON number like 10.1 is 10.0999999... as a double. Accept exactly the doubles nearest to
  // a number with two decimals: 10.1 is, 10.001 is not, and neither is 0.000000001 or 5e-324
  // (a fixed tolerance let those round to 0 cents: a DEPOSIT "above 0" stored as 0).
  if (Number(amount.toFixed(2)) !== amount) return undefined;
  return Math.round(amount * 100);
}

export function fromMinorUnits(cents: number): number {
  return cents / 100;
}

interface Formatter {
  format: (units: number) => string;
  /** Amounts already formatted: Intl formatting costs more than the rest of a page's text. */
  done: Map<number, string>;
}

const formatters = new Map<string, Formatter>();
const REMEMBERED_AMOUNTS = 1000;

/**
 * Intl's currency style for the code, or, for a code it refuses (RangeError: anything but
 * three letters), the number with two decimals and the code after it ("12.50 EURO"). A ledger
 * row keeps the currency a provider reported as it was sent, and a page that shows it must
 * render, not fail: it is how the odd value gets seen and settled.
 */
function formatterFor(locale: string, currency: string): Formatter['format'] {
  try {
    const f = new Intl.NumberFormat(locale, { style: 'currency', currency });
    return (units) => f.format(units);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    const f = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    return (units) => `${f.format(units)} ${currency}`;
  }
}

/** Amount with its currency, formatted for a language (guest page, e-mails, back office). */
export function formatMoney(cents: number, currency: Currency | string, locale: string): string {
  const key = `${locale}:${currency}`;
  let f = formatters.get(key);
  if (!f) {
    f = { format: formatterFor(locale, currency), done: new Map() };
    formatters.set(key, f);
  }
  let text = f.done.get(cents);
  if (text === undefined) {
    text = f.format(cents / 100);
    // Hotels charge a few distinct amounts; forgetting all at once keeps the bound trivial.
    if (f.done.size >= REMEMBERED_AMOUNTS) f.done.clear();
    f.done.set(cents, text);
  }
  return text;
}
