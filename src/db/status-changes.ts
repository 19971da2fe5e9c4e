import type { Actor, CardNetwork, PendingAction, Status } from '../domain/index.ts';
import type { Queryable } from './database.ts';

/**
 * One status change of one request. `from` is what the transition table allows (the change
 * applies only if the row is in one of them); `claim`, the money command's claim it completes
 * and releases (without one, a claimed row is left alone: the command in flight wins).
 */
export interface StatusChange {
  id: string;
  from: readonly Status[];
  to: Status;
  actor: Actor;
  detail?: Record<string, unknown> | null;
  claim?: PendingAction;
  /** The token of that claim: the change applies only while the request still holds it. */
  token?: string | null;
  ledgerId?: string | null;
  /** Columns the change carries with it; absent ones keep their value. */
  set?: {
    provider?: string;
    providerTransactionId?: string;
    cardToken?: string;
    /** The card network's id of the registration, sent back on each merchant-initiated payment. */
    networkTransactionId?: string;
    maskedPan?: string;
    /** The network that carried the card's registration (its holds live by its rule). */
    cardNetwork?: CardNetwork;
    expiryMonth?: number;
    expiryYear?: number;
    /**
     * The hold of the change's ledger row is placed: the request's hold ends when that row
     * says (its end is written with its outcome, by the ledger's settlement, earlier in the
     * same transaction).
     */
    holdPlaced?: true;
    holdError?: string;
    /** The bank declined the hold: why (payreq's reason) and the provider's code; cleared by a hold placed or a new card. */
    holdDeclined?: { reason: string; code: string | null };
    /**
     * The bank refused the guarantee's hold: the request says when and counts it, and its link
     * lives at least to the end of the check-in day (hotel time), so the guest can still give
     * another card however old the link is.
     */
    guaranteeFailed?: true;
    /** A new card after a refused renewal: the next renewal run holds it at once (cleared by a hold placed). */
    renewHold?: true;
    /**
     * Why the hotel moved the money, for a capture's or a refund's change (the claim says
     * which): the request keeps its last capture's and last refund's reason and note (null:
     * none given), so its detail, and every event, says it.
     */
    moveReason?: { reason: string | null; note: string | null };
    /** The bank refused the guest's card on the payment page (the request goes REFUSED): why, and the provider's code. */
    refused?: { reason: string; code: string | null };
  };
  /** An e-mail the change makes due, queued in the same transaction (one per cause). */
  email?: 'deposit_confirmation';
  /**
   * The sandbox's test clock: when the change happens for it (a job run made for a given day).
   * Its history row and a failed guarantee's time say that moment; absent: now.
   */
  at?: Date;
}

export interface AppliedChange {
  id: string;
  tenant_id: string;
  reference: string;
  status: Status;
  from_status: Status;
}

/**
 * The one function that writes status changes: the rows, their history, the e-mails they make
 * due, and the amounts, which are derived from the money ledger's succeeded rows (incidents
 * and their give-backs left out) in the same statement; a hold's change (its claim is `hold`)
 * keeps them, since a hold is never counted and its transaction settles only holds.
 * Set-based, so the daily job records a group of holds in one statement and the API one
 * change the same way. Each change applies only if its row is in an allowed status and
 * carries the right claim (or none): two racing writers, one winner. Returns the changes that applied.
 */
export async function applyStatusChanges(q: Queryable, changes: readonly StatusChange[]): Promise<AppliedChange[]> {
  if (changes.length === 0) return [];
  const r = await q.query<AppliedChange>(
    `WITH c AS (
       SELECT * FROM json_to_recordset($1::json)
         AS c(id uuid, from_list text, to_status text, source text, actor text, detail jsonb, claim text,
              ledger_id bigint, provider text, txn text, card_token text, masked_pan text, exp_month int,
              exp_year int, hold_error text, email text, hold_placed boolean, network_txn text,
              token uuid, guarantee_failed boolean, card_network text,
              decline_reason text, decline_code text, renew_hold boolean, move_reason text,
              move_note text, at timestamptz, refused_reason text, refused_code text)
     ), old AS (
       SELECT p.id, p.status, t.timezone FROM payment_requests p JOIN c ON c.id = p.id
         JOIN tenants t ON t.id = p.tenant_id
        WHERE p.status = ANY(string_to_array(c.from_list, ','))
          AND p.pending_action IS NOT DISTINCT FROM c.claim
          AND p.claim_token IS NOT DISTINCT FROM c.token
        FOR UPDATE OF p
     ), upd AS (
       UPDATE payment_requests p
          SET status = c.to_status,
              pending_action = NULL, pending_since = NULL, claim_token = NULL,
              provider = COALESCE(c.provider, p.provider),
              provider_transaction_id = COALESCE(c.txn, p.provider_transaction_id),
              card_token = COALESCE(c.card_token, p.card_token),
              -- A new card (another one after a refused hold) never keeps the old card's network id.
              card_network_transaction_id = CASE WHEN c.card_token IS NOT NULL THEN c.network_txn
                                                 ELSE COALESCE(c.network_txn, p.card_network_transaction_id) END,
              masked_pan = COALESCE(c.masked_pan, p.masked_pan),
              card_network = CASE WHEN c.card_token IS NOT NULL THEN c.card_network
                                  ELSE COALESCE(c.card_network, p.card_network) END,
              card_expiry_month = COALESCE(c.exp_month, p.card_expiry_month),
              card_expiry_year = COALESCE(c.exp_year, p.card_expiry_year),
              hold_expires_at = CASE WHEN NOT c.hold_placed THEN p.hold_expires_at
                                     ELSE (SELECT l.hold_expires_at FROM money_ledger l WHERE l.id = c.ledger_id) END,
              hold_attempts = p.hold_attempts + CASE WHEN c.claim = 'hold' THEN 1 ELSE 0 END,
              last_hold_error = CASE WHEN c.claim = 'hold' THEN c.hold_error ELSE p.last_hold_error END,
              hold_decline_reason = CASE WHEN c.decline_reason IS NOT NULL THEN c.decline_reason
                                         WHEN c.hold_placed OR c.card_token IS NOT NULL THEN NULL
                                         ELSE p.hold_decline_reason END,
              hold_decline_code = CASE WHEN c.decline_reason IS NOT NULL THEN c.decline_code
                                       WHEN c.hold_placed OR c.card_token IS NOT NULL THEN NULL
                                       ELSE p.hold_decline_code END,
              decline_reason = CASE WHEN c.refused_reason IS NOT NULL THEN c.refused_reason ELSE p.decline_reason END,
              decline_code = CASE WHEN c.refused_reason IS NOT NULL THEN c.refused_code ELSE p.decline_code END,
              capture_reason = CASE WHEN c.claim = 'capture' THEN c.move_reason ELSE p.capture_reason END,
              capture_note = CASE WHEN c.claim = 'capture' THEN c.move_note ELSE p.capture_note END,
              refund_reason = CASE WHEN c.claim = 'refund' THEN c.move_reason ELSE p.refund_reason END,
              refund_note = CASE WHEN c.claim = 'refund' THEN c.move_note ELSE p.refund_note END,
              guarantee_failed_at = CASE WHEN c.guarantee_failed THEN date_trunc('milliseconds', COALESCE(c.at, now()))
                                         ELSE p.guarantee_failed_at END,
              -- A new card is tried once: a hold placed, or refused (the guarantee failed again), ends the mark.
              renew_hold = CASE WHEN c.renew_hold THEN true WHEN c.hold_placed OR c.guarantee_failed THEN false
                                ELSE p.renew_hold END,
              -- Every hold the bank refused, softly or for good, first or renewal.
              guarantee_failures = p.guarantee_failures + CASE WHEN c.decline_reason IS NOT NULL THEN 1 ELSE 0 END,
              link_expires_at = CASE WHEN c.guarantee_failed AND p.checkin IS NOT NULL
                                     THEN GREATEST(p.link_expires_at, (p.checkin + 1)::timestamp AT TIME ZONE old.timezone)
                                     ELSE p.link_expires_at END,
              -- Both amounts from one read of the request's ledger rows; a hold's change reads
              -- none (the daily job's status change spent about a twentieth of its time there).
              (amount_captured, amount_refunded) = (
                SELECT COALESCE(sum(l.amount) FILTER (WHERE l.kind IN ('payment', 'capture')),
                                CASE WHEN c.claim = 'hold' THEN p.amount_captured ELSE 0 END),
                       COALESCE(sum(l.amount) FILTER (WHERE l.kind = 'refund'),
                                CASE WHEN c.claim = 'hold' THEN p.amount_refunded ELSE 0 END)
                  FROM money_ledger l
                 WHERE c.claim IS DISTINCT FROM 'hold'
                   AND l.payment_request_id = p.id AND l.state = 'succeeded' AND l.incident IS NULL),
              -- The one move from a placed hold to CANCELLED is a release (the transition table).
              released_at = CASE WHEN old.status = 'AUTHORISED_TO_VALIDATE' AND c.to_status = 'CANCELLED'
                                 THEN date_trunc('milliseconds', COALESCE(c.at, now())) ELSE p.released_at END,
              updated_at = date_trunc('milliseconds', now())
         FROM old, c
        WHERE p.id = old.id AND c.id = old.id
       RETURNING p.id, p.tenant_id, p.reference, p.status, old.status AS from_status
     ), h AS (
       INSERT INTO status_history (payment_request_id, tenant_id, from_status, to_status, source, actor, detail, ledger_id,
                                   created_at)
       SELECT upd.id, upd.tenant_id, upd.from_status, upd.status, c.source, c.actor, c.detail, c.ledger_id,
              COALESCE(c.at, now())
         FROM upd JOIN c ON c.id = upd.id
     ), mail AS (
       INSERT INTO email_outbox (tenant_id, payment_request_id, kind, cause)
       SELECT upd.tenant_id, upd.id, c.email, c.email || ':' || upd.id
         FROM upd JOIN c ON c.id = upd.id WHERE c.email IS NOT NULL
       ON CONFLICT (cause) DO NOTHING
     )
     SELECT id, tenant_id, reference, status, from_status FROM upd`,
    // One JSON document for the whole group rather than an array per column: the driver
    // builds array literals by string concatenation, a third of the daily job's allocations.
    [JSON.stringify(changes.map(changeRow))],
  );
  return r.rows;
}

/** One change as a row of `c` (absent keys are NULL). */
function changeRow(c: StatusChange) {
  return {
    id: c.id,
    from_list: c.from.join(','),
    to_status: c.to,
    source: c.actor.source,
    actor: c.actor.actor,
    detail: c.detail ?? null,
    claim: c.claim,
    ledger_id: c.ledgerId,
    provider: c.set?.provider,
    txn: c.set?.providerTransactionId,
    card_token: c.set?.cardToken,
    masked_pan: c.set?.maskedPan,
    card_network: c.set?.cardNetwork,
    decline_reason: c.set?.holdDeclined?.reason,
    decline_code: c.set?.holdDeclined?.code,
    exp_month: c.set?.expiryMonth,
    exp_year: c.set?.expiryYear,
    hold_error: c.set?.holdError,
    email: c.email,
    hold_placed: c.set?.holdPlaced === true,
    network_txn: c.set?.networkTransactionId,
    token: c.token,
    guarantee_failed: c.set?.guaranteeFailed === true,
    renew_hold: c.set?.renewHold === true,
    move_reason: c.set?.moveReason?.reason,
    move_note: c.set?.moveReason?.note,
    refused_reason: c.set?.refused?.reason,
    refused_code: c.set?.refused?.code,
    at: c.at?.toISOString(),
  };
}

/**
 * Gives claims back with no status change: the provider said no, or was not reached, so
 * nothing moved. A hold's attempt is counted and its error kept for the next run. Only a claim
 * the request still holds under `token` is given back: a holder whose claim was freed and
 * taken again changes nothing.
 */
export async function releaseClaims(
  q: Queryable,
  claims: readonly { id: string; claim: PendingAction; token: string | null; error?: string }[],
): Promise<void> {
  if (claims.length === 0) return;
  await q.query(
    `UPDATE payment_requests p
        SET pending_action = NULL, pending_since = NULL, claim_token = NULL,
            hold_attempts = p.hold_attempts + CASE WHEN c.claim = 'hold' THEN 1 ELSE 0 END,
            last_hold_error = CASE WHEN c.claim = 'hold' THEN c.error ELSE p.last_hold_error END
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[]) AS c(id, claim, error, token)
      WHERE p.id = c.id AND p.pending_action = c.claim AND p.claim_token IS NOT DISTINCT FROM c.token`,
    [
      claims.map((c) => c.id),
      claims.map((c) => c.claim),
      claims.map((c) => c.error?.slice(0, 500) ?? null),
      claims.map((c) => c.token),
    ],
  );
}

/**
 * Money that arrived where it should not, or its give-back: a history row with to_status
 * INCIDENT (the status itself does not move), visible wherever the history is shown. The
 * request may be gone (deleted): the history has no foreign key, so the trail stays.
 */
export async function recordIncident(
  q: Queryable,
  i: {
    paymentRequestId: string;
    tenantId: string;
    status: Status | null;
    actor: Actor;
    ledgerId: string;
    detail: Record<string, unknown>;
  },
): Promise<void> {
  await q.query(
    `INSERT INTO status_history (payment_request_id, tenant_id, from_status, to_status, source, actor, detail, ledger_id)
     VALUES ($1, $2, $3, 'INCIDENT', $4, $5, $6::jsonb, $7)`,
    [i.paymentRequestId, i.tenantId, i.status, i.actor.source, i.actor.actor, JSON.stringify(i.detail), i.ledgerId],
  );
}

/**
 * Deletes the row (its card token with it) if its status allows and no command holds it; the
 * history keeps a DELETED trace.
 */
export async function deleteRequest(
  q: Queryable,
  d: { tenantId: string; id: string; deletable: readonly Status[]; actor: Actor },
): Promise<{ reference: string } | undefined> {
  const r = await q.query<{ reference: string }>(
    `WITH del AS (
       DELETE FROM payment_requests
        WHERE id = $1 AND tenant_id = $2 AND status = ANY($3::text[]) AND pending_action IS NULL
       RETURNING id, tenant_id, reference, status
     ), h AS (
       INSERT INTO status_history (payment_request_id, tenant_id, from_status, to_status, source, actor)
       SELECT id, tenant_id, status, 'DELETED', $4, $5 FROM del
     )
     SELECT reference FROM del`,
    [d.id, d.tenantId, d.deletable, d.actor.source, d.actor.actor],
  );
  return r.rows[0];
}

/** The amounts a refund is judged against, the rows locked until the transaction ends. */
export async function lockAmounts(
  q: Queryable,
  ids: readonly string[],
): Promise<Map<string, { id: string; status: Status; amount_captured: number; amount_refunded: number }>> {
  const r = await q.query<{ id: string; status: Status; amount_captured: number; amount_refunded: number }>(
    'SELECT id, status, amount_captured, amount_refunded FROM payment_requests WHERE id = ANY($1::uuid[]) FOR UPDATE',
    [ids],
  );
  return new Map(r.rows.map((row) => [row.id, row]));
}

/** A request's status as this transaction sees it; null once it is deleted. */
export async function currentStatus(q: Queryable, id: string): Promise<Status | null> {
  const r = await q.query<{ status: Status }>('SELECT status FROM payment_requests WHERE id = $1', [id]);
  return r.rows[0]?.status ?? null;
}
