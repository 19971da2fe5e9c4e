import { isExpired, isValidCardNumber } from './test-cards.ts';

export interface CardEntry {
  number: string;
  expMonth: number;
  expYear: number;
}

/** The inputs of the card form a mistake can be shown beside. */
export type CardInput = 'card_number' | 'exp_month' | 'exp_year' | 'cvv';

/** What is wrong with the guest's typing; the page words it in the guest's language. */
export type CardProblem = 'number' | 'month' | 'year' | 'expired' | 'too_far_ahead' | 'cvv';

export type CardCheck = { ok: true; card: CardEntry } | { ok: false; problem: CardProblem; inputs: CardInput[] };

/** Cards further ahead than this are typing mistakes, not cards. */
const MAX_YEARS_AHEAD = 20;

const wrong = (problem: CardProblem, ...inputs: CardInput[]): CardCheck => ({ ok: false, problem, inputs });

/**
 * The guest's typing, checked as a provider's page would before asking the bank: the number
 * (spaces and dashes allowed), an expiry not in the past, a CVV of 3 or 4 digits. The first
 * mistake is reported, with the inputs it concerns.
 */
export function checkCardForm(form: Record<string, string>, now: Date): CardCheck {
  const number = (form.card_number ?? '').replace(/[\s-]/g, '');
  if (!isValidCardNumber(number)) return wrong('number', 'card_number');
  const monthText = (form.exp_month ?? '').trim();
  const yearText = (form.exp_year ?? '').trim();
  if (!/^\d{1,2}$/.test(monthText) || Number(monthText) < 1 || Number(monthText) > 12) {
    return wrong('month', 'exp_month');
  }
  if (!/^(\d{2}|\d{4})$/.test(yearText)) return wrong('year', 'exp_year');
  const expMonth = Number(monthText);
  const expYear = yearText.length === 2 ? 2000 + Number(yearText) : Number(yearText);
  if (isExpired(expMonth, expYear, now)) return wrong('expired', 'exp_month', 'exp_year');
  if (expYear > now.getUTCFullYear() + MAX_YEARS_AHEAD) return wrong('too_far_ahead', 'exp_year');
  if (!/^\d{3,4}$/.test((form.cvv ?? '').trim())) return wrong('cvv', 'cvv');
  return { ok: true, card: { number, expMonth, expYear } };
}
