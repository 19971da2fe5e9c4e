import { isExpired, isValidCardNumber } from './test-cards.js';

export interface CardEntry {
  number: string;
  expMonth: number;
  expYear: number;
}

export type CardCheck = { ok: true; card: CardEntry } | { ok: false; error: string };

/** Cards further ahead than this are typing mistakes, not cards. */
const MAX_YEARS_AHEAD = 20;

/**
 * The guest's typing, checked as a provider's page would before asking the bank: the number
 * (spaces and dashes allowed), an expiry not in the past, a CVV of 3 or 4 digits.
 */
export function checkCardForm(form: Record<string, string>, now: Date): CardCheck {
  const number = (form.card_number ?? '').replace(/[\s-]/g, '');
  if (!isValidCardNumber(number)) return { ok: false, error: 'The card number is not valid.' };
  const monthText = (form.exp_month ?? '').trim();
  const yearText = (form.exp_year ?? '').trim();
  if (!/^\d{1,2}$/.test(monthText) || Number(monthText) < 1 || Number(monthText) > 12) {
    return { ok: false, error: 'The expiry month must be from 1 to 12.' };
  }
  if (!/^(\d{2}|\d{4})$/.test(yearText)) return { ok: false, error: 'The expiry year must be like 2030.' };
  const expMonth = Number(monthText);
  const expYear = yearText.length === 2 ? 2000 + Number(yearText) : Number(yearText);
  if (isExpired(expMonth, expYear, now)) return { ok: false, error: 'This card has expired.' };
  if (expYear > now.getUTCFullYear() + MAX_YEARS_AHEAD)
    return { ok: false, error: 'The expiry year is too far ahead.' };
  if (!/^\d{3,4}$/.test((form.cvv ?? '').trim()))
    return { ok: false, error: 'The security code (CVV) must be 3 or 4 digits.' };
  return { ok: true, card: { number, expMonth, expYear } };
}
