import type { DeclineReason } from '../../domain/index.ts';

/**
 * Stripe's decline codes (docs.stripe.com/declines/codes, "Card decline codes", with the next
 * step Stripe gives for each) and the error codes a declined off-session payment carries
 * (docs.stripe.com/error-codes), on payreq's closed list. payreq stores the card error's
 * `decline_code`, or its `code` when the issuer gave none. Soft only where Stripe's own advice
 * is to try the same card again later; every code Stripe says not to retry (lost, stolen,
 * pickup, fraudulent, do_not_try_again...) is hard, as the networks ask.
 */
const CODES: Readonly<Record<string, DeclineReason>> = {
  // "The card has insufficient funds to complete the purchase" / limits reached: try again later.
  insufficient_funds: 'insufficient_funds',
  card_velocity_exceeded: 'insufficient_funds',
  withdrawal_count_limit_exceeded: 'insufficient_funds',
  // "Declined for an unknown reason ... attempt the payment again"; the issuer could not be reached.
  try_again_later: 'try_again_later',
  issuer_not_available: 'try_again_later',
  reenter_transaction: 'try_again_later',
  approve_with_id: 'try_again_later',
  // "An error occurred while processing the card": Stripe's failure, not the card's.
  processing_error: 'provider_error',
  // The issuer refuses without a reason the customer can fix here.
  do_not_honor: 'do_not_honour',
  generic_decline: 'do_not_honour',
  call_issuer: 'do_not_honour',
  do_not_try_again: 'do_not_honour',
  fraudulent: 'do_not_honour',
  merchant_blacklist: 'do_not_honour',
  not_permitted: 'do_not_honour',
  restricted_card: 'do_not_honour',
  security_violation: 'do_not_honour',
  service_not_allowed: 'do_not_honour',
  stop_payment_order: 'do_not_honour',
  transaction_not_allowed: 'do_not_honour',
  no_action_taken: 'do_not_honour',
  revocation_of_all_authorizations: 'do_not_honour',
  revocation_of_authorization: 'do_not_honour',
  new_account_information_available: 'do_not_honour',
  lost_card: 'lost_or_stolen',
  stolen_card: 'lost_or_stolen',
  // "The card can't be used ... (it's possible it was reported lost or stolen)".
  pickup_card: 'lost_or_stolen',
  expired_card: 'expired_card',
  // An off-session payment the issuer wants the cardholder to authenticate: only the guest,
  // back through the payment link, can do that.
  authentication_required: 'authentication_required',
  incorrect_number: 'invalid_card',
  invalid_number: 'invalid_card',
  invalid_account: 'invalid_card',
  card_not_supported: 'invalid_card',
  currency_not_supported: 'invalid_card',
  incorrect_cvc: 'invalid_card',
  invalid_cvc: 'invalid_card',
  invalid_expiry_month: 'invalid_card',
  invalid_expiry_year: 'invalid_card',
  // The saved card (its PaymentMethod or Customer) is not on this Stripe account any more.
  resource_missing: 'invalid_card',
};

/** The reason of a Stripe refusal from its code as payreq stores it; `other` when not listed. */
export function stripeDeclineReason(code: string): DeclineReason {
  return Object.hasOwn(CODES, code) ? (CODES[code] as DeclineReason) : 'other';
}
