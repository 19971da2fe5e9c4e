import { CARD_NETWORKS, type CardNetwork } from '../domain/index.ts';

const DAY = 86_400;
/** Visa's window for a merchant-initiated authorisation, "4 days and 18 hours" (below). */
const VISA_MERCHANT_INITIATED = 4 * DAY + 18 * 3600;

/**
 * How long a merchant-initiated hold (the daily job's silent authorisation on a stored card, and
 * its renewals) stays capturable, by provider and by the network that carries the card. Past it
 * the network lapses the authorisation whatever the hotel's hold length says: a request never
 * shows a hold open for longer (its end is the earlier of the two), and renewal places the next
 * one before. Sources (docs/holds.md keeps them with the dates read):
 * - Visa: 5 days for a merchant-initiated card-not-present authorisation since 14 April 2024,
 *   "exactly 4 days and 18 hours, to allow time for clearing" (Stripe, "Place a hold on a
 *   payment method", authorisation validity windows).
 * - Mastercard, American Express: 7 days, merchant- or customer-initiated (the same table).
 * - Cartes Bancaires: "in the CB network, an accepted authorization request is valid for 7 days
 *   for Visa, Mastercard, Visa Electron, e-Carte Bleue and Vpay cards" (Lyra, authorisation
 *   request page). Maestro is given 7 days, Mastercard's own rule, not the 30 days Lyra gives on
 *   the CB network alone.
 * - A network payreq does not know (no brand told, a card registered before networks were
 *   recorded): the shortest of all, Visa's.
 * The sandbox plays the same networks by the test card's brand, so a stay can be rehearsed.
 * Stripe states each hold's own end (its charge's `capture_before`), which replaces this table
 * for that hold (docs/stripe.md); its row here, the same Stripe page's windows (Cartes Bancaires
 * and Maestro cards given their partner networks' windows, Visa's for a network not named), is
 * what a guest is told before a card is held, and a hold's end when Stripe gave none.
 */
const MERCHANT_HOLD_VALIDITY: Readonly<Record<string, Readonly<Record<CardNetwork, number>>>> = {
  lyra: {
    visa: VISA_MERCHANT_INITIATED,
    mastercard: 7 * DAY,
    cb: 7 * DAY,
    maestro: 7 * DAY,
    amex: 7 * DAY,
    other: VISA_MERCHANT_INITIATED,
  },
  stripe: {
    visa: VISA_MERCHANT_INITIATED,
    mastercard: 7 * DAY,
    cb: VISA_MERCHANT_INITIATED,
    maestro: 7 * DAY,
    amex: 7 * DAY,
    other: VISA_MERCHANT_INITIATED,
  },
  sandbox: {
    visa: VISA_MERCHANT_INITIATED,
    mastercard: 7 * DAY,
    cb: 7 * DAY,
    maestro: 7 * DAY,
    amex: 7 * DAY,
    other: VISA_MERCHANT_INITIATED,
  },
};

/** The provider's table, network by network, in seconds; null: a provider with no limit of its own. */
export function holdValidityTable(provider: string): Readonly<Record<CardNetwork, number>> | null {
  return Object.hasOwn(MERCHANT_HOLD_VALIDITY, provider) ? (MERCHANT_HOLD_VALIDITY[provider] ?? null) : null;
}

/** How long a hold on a card of `network` lives at `provider`, in seconds; null: no limit beyond the hotel's. */
export function holdValiditySeconds(provider: string, network: CardNetwork | null): number | null {
  const table = holdValidityTable(provider);
  return table ? table[network ?? 'other'] : null;
}

/**
 * The "at most N days" a guest is told of a hold: the hotel's length, or the card's network's
 * window rounded up to whole days when that is shorter (4 days 18 hours is told as 5: still
 * true); before a card is registered (`network` null), the shortest window of all.
 * `provider`: the tenant's account's, or null without one (the sandbox, which plays the networks).
 */
export function holdDaysTold(holdDays: number, provider: string | null, network: CardNetwork | null = null): number {
  const table = holdValidityTable(provider ?? 'sandbox');
  if (!table) return holdDays;
  const window = network ? table[network] : Math.min(...CARD_NETWORKS.map((n) => table[n]));
  return Math.min(holdDays, Math.ceil(window / DAY));
}
