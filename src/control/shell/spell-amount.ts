import { toCardinal as deWords } from 'n2words/de-DE';
import { toCardinal as enWords } from 'n2words/en-GB';
import { toCardinal as frWords } from 'n2words/fr-FR';
import type { ControlLanguage } from './language.ts';
import type { MoneyWords } from './words.ts';

const CARDINALS: Record<ControlLanguage, (n: number) => string> = { en: enWords, fr: frWords, de: deWords };

/**
 * An amount in words, for confirmations ("one hundred and twenty euros and fifty cents"): a
 * slip of a digit reads very differently in words. Numbers by n2words, currency names ours.
 */
export function amountInWords(cents: number, currency: string, language: ControlLanguage, w: MoneyWords): string {
  const cardinal = CARDINALS[language];
  const words = (n: number) => (n === 1 ? w.one : cardinal(n));
  const major = Math.floor(cents / 100);
  const minor = cents % 100;
  const [unit, units] = w.units[currency] ?? [currency, currency];
  const [cent, centsName] = w.cents[currency] ?? ['cent', 'cents'];
  const majorPart = `${major === 0 ? w.zero : words(major)} ${major === 1 ? unit : units}`;
  if (minor === 0) return majorPart;
  return `${majorPart} ${w.and} ${words(minor)} ${minor === 1 ? cent : centsName}`;
}
