import { CURRENCIES, type Currency } from './statuses.ts';

/** ISO 4217's numeric codes of the currencies payreq takes: a report names its currency so. */
export const CURRENCY_NUMBERS: Readonly<Record<Currency, string>> = { EUR: '978', CHF: '756', USD: '840' };

/** The currency a report's numeric (or alphabetic) code names, among payreq's; undefined otherwise. */
export function currencyOfCode(code: string): Currency | undefined {
  const byNumber = (Object.entries(CURRENCY_NUMBERS) as [Currency, string][]).find(([, n]) => n === code);
  if (byNumber) return byNumber[0];
  return (CURRENCIES as readonly string[]).includes(code) ? (code as Currency) : undefined;
}
