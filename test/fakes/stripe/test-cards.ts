/**
 * Stripe's documented test cards (docs.stripe.com/testing: "Cards by brand", "Declined
 * payments", "Authentication and setup", "Cards that attach but fail"), as the fake plays them.
 * `setup`: what saving it on Checkout does; `charge`: what a payment or an off-session hold on
 * it does. Another number that passes Luhn is accepted, of the brand its first digit says.
 */
export interface CardRule {
  brand: 'visa' | 'mastercard' | 'amex';
  /** The saving of the card (a SetupIntent, a Checkout payment's first step) fails with this decline. */
  setupDecline?: Decline;
  /** Every charge or hold fails with this decline. */
  chargeDecline?: Decline;
  /** 3D Secure at setup (the fake's page completes the challenge as the guest would). */
  authenticatesAtSetup?: boolean;
  /** Every off-session payment asks the cardholder to authenticate (declined `authentication_required`). */
  alwaysAuthenticates?: boolean;
}

export interface Decline {
  code: string;
  declineCode?: string;
  message: string;
}

const GENERIC: Decline = { code: 'card_declined', declineCode: 'generic_decline', message: 'Your card was declined.' };

export const STRIPE_CARDS = {
  visa: '4242424242424242',
  mastercard: '5555555555554444',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
  lost: '4000000000009987',
  stolen: '4000000000009979',
  expired: '4000000000000069',
  processingError: '4000000000000119',
  attachThenDecline: '4000000000000341',
  authenticateAtSetup: '4000002500003155',
  alwaysAuthenticate: '4000002760003184',
} as const;

export const CARD_RULES: Readonly<Record<string, CardRule>> = {
  [STRIPE_CARDS.visa]: { brand: 'visa' },
  [STRIPE_CARDS.mastercard]: { brand: 'mastercard' },
  [STRIPE_CARDS.declined]: { brand: 'visa', setupDecline: GENERIC, chargeDecline: GENERIC },
  [STRIPE_CARDS.insufficientFunds]: {
    brand: 'visa',
    setupDecline: INSUFFICIENT(),
    chargeDecline: INSUFFICIENT(),
  },
  [STRIPE_CARDS.lost]: { brand: 'visa', setupDecline: LOST(), chargeDecline: LOST() },
  [STRIPE_CARDS.stolen]: { brand: 'visa', setupDecline: STOLEN(), chargeDecline: STOLEN() },
  [STRIPE_CARDS.expired]: {
    brand: 'visa',
    setupDecline: { code: 'expired_card', message: 'Your card has expired.' },
    chargeDecline: { code: 'expired_card', message: 'Your card has expired.' },
  },
  [STRIPE_CARDS.processingError]: {
    brand: 'visa',
    setupDecline: { code: 'processing_error', message: 'An error occurred while processing your card.' },
    chargeDecline: { code: 'processing_error', message: 'An error occurred while processing your card.' },
  },
  // "Attaching this card to a Customer object succeeds, but attempts to charge the customer fail."
  [STRIPE_CARDS.attachThenDecline]: { brand: 'visa', chargeDecline: GENERIC },
  // "This card requires authentication for one-time payments... set up for future off-session payments, no longer requires authentication."
  [STRIPE_CARDS.authenticateAtSetup]: { brand: 'visa', authenticatesAtSetup: true },
  // "This card requires authentication on all transactions, regardless of how the card is set up."
  [STRIPE_CARDS.alwaysAuthenticate]: { brand: 'visa', authenticatesAtSetup: true, alwaysAuthenticates: true },
};

function INSUFFICIENT(): Decline {
  return { code: 'card_declined', declineCode: 'insufficient_funds', message: 'Your card has insufficient funds.' };
}
function LOST(): Decline {
  return { code: 'card_declined', declineCode: 'lost_card', message: 'Your card was declined.' };
}
function STOLEN(): Decline {
  return { code: 'card_declined', declineCode: 'stolen_card', message: 'Your card was declined.' };
}

/** The declines a test may give a saved card from now on (the contract's "card goes bad"). */
export const LATER_DECLINES = { hard: STOLEN(), soft: INSUFFICIENT() } as const;

export const AUTHENTICATION_REQUIRED: Decline = {
  code: 'authentication_required',
  declineCode: 'authentication_required',
  message: 'Your card was declined. This transaction requires authentication.',
};

export function luhnValid(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let d = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The rule of a card number: a documented one, or a valid number accepted; undefined: not a card number. */
export function ruleOf(number: string): CardRule | undefined {
  const known = CARD_RULES[number];
  if (known) return known;
  if (!luhnValid(number)) return undefined;
  return { brand: number.startsWith('5') ? 'mastercard' : number.startsWith('3') ? 'amex' : 'visa' };
}
