/**
 * Why a bank or a provider said no to a hold or a payment, as one closed list whatever the
 * provider: each provider's codes map onto it (providers/decline-reason.ts). `soft`: the same
 * card may be accepted later without the guest doing anything (funds back, issuer reachable
 * again), so the daily hold job tries again at its next runs until the check-in day; anything
 * else ends the guarantee at once. A reason the networks forbid retrying is never soft: Visa and
 * Cartes Bancaires treat a retried "lost", "stolen", "do not honour" or "invalid card" as
 * abuse, and Lyra's own retries ("anticipated authorisations") skip exactly those codes.
 */
export const DECLINE_REASONS = {
  /** The issuer has not the money now (CB/ISO 51, 61). */
  insufficient_funds: { soft: true },
  /** The issuer refuses without saying why (05, 57, 59, 04, 07). */
  do_not_honour: { soft: false },
  /** The card's expiry date has passed (54, 33). */
  expired_card: { soft: false },
  /** The card was reported lost or stolen (41, 43). */
  lost_or_stolen: { soft: false },
  /**
   * The issuer wants the cardholder to authenticate (1A, 65): no silent retry can do that; the
   * guest is asked on the payment link.
   */
  authentication_required: { soft: false },
  /** The issuer or its network did not answer in time (91, 68, 19, 90). */
  try_again_later: { soft: true },
  /** The card number, its issuer or the transaction is not valid (14, 15, 56, 12, 30). */
  invalid_card: { soft: false },
  /** The provider failed technically: nothing was decided about the card (96, ACQ_999, PSP_, INT_). */
  provider_error: { soft: true },
  /** A refusal whose code payreq does not know: never retried, as the networks would ask. */
  other: { soft: false },
} as const satisfies Record<string, { soft: boolean }>;

export type DeclineReason = keyof typeof DECLINE_REASONS;

export const DECLINE_REASON_CODES = Object.keys(DECLINE_REASONS) as DeclineReason[];

export function isDeclineReason(v: unknown): v is DeclineReason {
  return typeof v === 'string' && Object.hasOwn(DECLINE_REASONS, v);
}

/** May the same card be tried again later, without the guest? */
export function isSoftDecline(reason: DeclineReason): boolean {
  return DECLINE_REASONS[reason].soft;
}
