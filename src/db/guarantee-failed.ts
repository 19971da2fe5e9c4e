/**
 * A guarantee that failed and still waits for another card, in SQL (`p` the request): the bank
 * refused the IMPRINT's hold (ERROR), or refused the renewal of its hold, whose old hold then
 * stays until it lapses (AUTHORISED_TO_VALIDATE with the refusal's reason, cleared by a new card
 * or a hold placed). The Today page, the digest, the requests filter and the guest's page all
 * read it; the partial index payment_requests_failed_guarantees holds exactly these rows.
 */
export const GUARANTEE_FAILED = (p = 'p') =>
  `(${p}.guarantee_failed_at IS NOT NULL AND (${p}.status = 'ERROR'
    OR (${p}.status = 'AUTHORISED_TO_VALIDATE' AND ${p}.hold_decline_reason IS NOT NULL)))`;
