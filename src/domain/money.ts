import type { Currency } from './statuses.js';

/** Largest amount accepted, in currency units (DESIGN.md 5). */
export const MAX_AMOUNT = 1_000_000;

/**
 * Decimal currency units to integer minor units, or undefined when the number has more than
 * two decimals: the API never rounds money silently (DESIGN.md 1).
 */
export function toMinorUnits(amount: number): number | undefined {
  if (!Number.isFinite(amount)) return undefined;
  const cents = Math.round(amount * 100);
  // A JSON number like 10.1 is 10.0999999... as a double: accept it when it is within a
  // rounding error of a whole number of cents, refuse 10.001.
  if (Math.abs(cents - amount * 100) > 1e-6 * Math.max(1, Math.abs(amount))) return undefined;
  return cents;
}

export function fromMinorUnits(cents: number): number {
  return cents / 100;
}

const formatters = new Map<string, Intl.NumberFormat>();

/** Amount with its currency, formatted for a language (guest page, e-mails). */
export function formatMoney(cents: number, currency: Currency, locale: string): string {
  const key = `${locale}:${currency}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.NumberFormat(locale, { style: 'currency', currency });
    formatters.set(key, f);
  }
  return f.format(cents / 100);
}
