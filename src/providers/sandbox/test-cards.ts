import type { DeclineReason } from '../../domain/index.ts';

/**
 * The sandbox's bank: it decides by card number alone, so a tester chooses the
 * outcome by the card typed. Every other valid Luhn number is accepted.
 */
export const TEST_CARDS = {
  accepted: '4242424242424242',
  refused: '4000000000000002',
  technicalError: '4000000000000119',
  /**
   * Registers (an IMPRINT becomes AUTHORISED), then every hold or charge on it is refused: a
   * real card blocked after it was registered. The failed-guarantee path, end to end.
   */
  blockedAfterRegistration: '4000000000000341',
  /** A Mastercard: registers and holds as `accepted` does, its holds living Mastercard's 7 days. */
  mastercard: '5555555555554444',
  /**
   * Registers, then every hold on it is declined softly, insufficient funds: the daily job tries
   * again at its next runs, and the check-in day's refusal ends the guarantee.
   */
  softDeclineAfterRegistration: '4000000000009995',
  /** Registers, then every hold on it is declined for good: the card is reported stolen. */
  stolenAfterRegistration: '4000000000009979',
  /**
   * Registers and its first hold succeeds; every later hold on the order (a renewal) is refused,
   * do not honour: a hotel rehearses a refused renewal and the guest's new card.
   */
  renewalRefused: '4000000000000044',
} as const;

/** Why the sandbox's bank refuses a hold or a charge on each card it refuses, as its decline code. */
export const REFUSAL_REASONS: Readonly<Record<string, DeclineReason>> = {
  [TEST_CARDS.refused]: 'do_not_honour',
  [TEST_CARDS.blockedAfterRegistration]: 'do_not_honour',
  [TEST_CARDS.softDeclineAfterRegistration]: 'insufficient_funds',
  [TEST_CARDS.stolenAfterRegistration]: 'lost_or_stolen',
};

/** Held once on an order, then refused on every later hold of it (its renewals), with this reason. */
export const LATER_HOLDS_REFUSED: Readonly<Record<string, DeclineReason>> = {
  [TEST_CARDS.renewalRefused]: 'do_not_honour',
};

/** Registered fine, refused on every later hold or charge. */
const REFUSED_AFTER_REGISTRATION: readonly string[] = [
  TEST_CARDS.blockedAfterRegistration,
  TEST_CARDS.softDeclineAfterRegistration,
  TEST_CARDS.stolenAfterRegistration,
];

export type CardDecision = 'accepted' | 'refused' | 'error';

/** What the card is asked for: registered for later (an IMPRINT's verification), or charged or held now. */
export type CardUse = 'register' | 'charge';

export function decide(cardNumber: string, use: CardUse = 'charge'): CardDecision {
  if (cardNumber === TEST_CARDS.refused) return 'refused';
  if (REFUSED_AFTER_REGISTRATION.includes(cardNumber)) return use === 'register' ? 'accepted' : 'refused';
  if (cardNumber === TEST_CARDS.technicalError) return 'error';
  return 'accepted';
}

/** Card numbers are 12 to 19 digits whose Luhn checksum is 0. */
export function isValidCardNumber(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** First six and last four digits, the rest hidden: what a provider may show of a card. */
export function maskPan(digits: string): string {
  return `${digits.slice(0, 6)}${'X'.repeat(digits.length - 10)}${digits.slice(-4)}`;
}

/** A card is valid through the last day of its expiry month. */
export function isExpired(month: number, year: number, now: Date): boolean {
  const thisYear = now.getUTCFullYear();
  const thisMonth = now.getUTCMonth() + 1;
  return year < thisYear || (year === thisYear && month < thisMonth);
}
