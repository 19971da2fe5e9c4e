/**
 * The card networks whose rules payreq applies (how long a hold lives): the network that carried
 * the card's registration, as the provider tells it, or, where it does not, the brand of the
 * card number. `cb`: Cartes Bancaires, the French network a co-badged Visa or Mastercard card
 * may be processed on.
 */
export const CARD_NETWORKS = ['visa', 'mastercard', 'cb', 'maestro', 'amex', 'other'] as const;
export type CardNetwork = (typeof CARD_NETWORKS)[number];

export function isCardNetwork(v: unknown): v is CardNetwork {
  return typeof v === 'string' && (CARD_NETWORKS as readonly string[]).includes(v);
}

/**
 * The brand of a card number from its first digits (a masked number keeps its first six):
 * Visa 4; Mastercard 51-55 and 2221-2720; American Express 34 and 37; Maestro 50, 56-58, 6.
 * A co-badged card's CB side cannot be seen in the number: its international brand is named.
 */
export function networkOfCardNumber(pan: string): CardNetwork {
  const two = Number(pan.slice(0, 2));
  const four = Number(pan.slice(0, 4));
  if (!/^\d{4}/.test(pan)) return 'other';
  if (pan.startsWith('4')) return 'visa';
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'mastercard';
  if (two === 34 || two === 37) return 'amex';
  if (two === 50 || (two >= 56 && two <= 58) || pan.startsWith('6')) return 'maestro';
  return 'other';
}
