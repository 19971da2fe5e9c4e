import type { Database, Queryable } from '../db/index.js';
import { allowedFrom, nextStatus, type RequestType, type Status, type Trigger, targetOf } from '../domain/index.js';
import type { ProviderNotification } from '../providers/index.js';
import type { SecretBox } from '../secrets/index.js';

export type NotificationOutcome = 'applied' | 'duplicate' | 'ignored';

const TRIGGER_OF: Record<ProviderNotification['outcome'], Trigger> = {
  registered: 'guest_registers_card',
  paid: 'guest_pays',
  refused: 'payment_refused',
  error: 'payment_error',
};

interface LockedRow {
  id: string;
  tenant_id: string;
  request_type: RequestType;
  status: Status;
  amount: number;
}

/**
 * What the guest and the provider do to a request: open the form, and the provider's verdict
 * arriving by notification. Both go through the transition table like everything else.
 */
export function guestCommands(db: Database, cardTokens: SecretBox) {
  return {
    /** The guest opened the payment page: NOT_INITIATED becomes PENDING, once. */
    async openForm(id: string): Promise<void> {
      await db.query(
        `WITH upd AS (
           UPDATE payment_requests p SET status = $3, updated_at = date_trunc('milliseconds', now())
             FROM (SELECT id, status FROM payment_requests WHERE id = $1 FOR UPDATE) old
            WHERE p.id = old.id AND old.status = ANY($2::text[])
           RETURNING p.id, p.tenant_id, old.status AS from_status, p.status
         )
         INSERT INTO status_history (payment_request_id, tenant_id, from_status, to_status, source)
         SELECT id, tenant_id, from_status, status, 'guest' FROM upd`,
        [id, allowedFrom('guest_opens_form'), targetOf('guest_opens_form')],
      );
    },

    /**
     * Applies one verified provider event, once. In one transaction: the event is recorded
     * (its primary key makes a duplicate a no-op), the request locked, the table asked whether
     * the move is allowed from where the request is now (an out-of-order event is recorded and
     * ignored: a terminal status never moves), then the row, its history and any e-mail due.
     */
    applyNotification(provider: string, n: ProviderNotification): Promise<NotificationOutcome> {
      return db.transaction(async (tx) => {
        const fresh = await tx.query(
          `INSERT INTO provider_events (provider, event_id, payment_request_id, outcome, applied)
           VALUES ($1, $2, $3, $4, false) ON CONFLICT DO NOTHING RETURNING 1`,
          [provider, n.eventId, n.paymentRequestId, n.outcome],
        );
        if (fresh.rowCount === 0) return 'duplicate';
        const row = (
          await tx.query<LockedRow>(
            'SELECT id, tenant_id, request_type, status, amount FROM payment_requests WHERE id = $1 FOR UPDATE',
            [n.paymentRequestId],
          )
        ).rows[0];
        if (!row) return 'ignored';
        const to = nextStatus(row.status, TRIGGER_OF[n.outcome], row.request_type);
        if (!to) return 'ignored';
        await applyMove(tx, provider, n, row, to, cardTokens);
        await tx.query('UPDATE provider_events SET applied = true WHERE provider = $1 AND event_id = $2', [
          provider,
          n.eventId,
        ]);
        return 'applied';
      });
    },
  };
}

async function applyMove(
  tx: Queryable,
  provider: string,
  n: ProviderNotification,
  row: LockedRow,
  to: Status,
  cardTokens: SecretBox,
): Promise<void> {
  const paid = n.outcome === 'paid';
  await tx.query(
    `UPDATE payment_requests SET status = $2, provider = $3,
       provider_transaction_id = COALESCE($4, provider_transaction_id),
       card_token = COALESCE($5, card_token), masked_pan = COALESCE($6, masked_pan),
       card_expiry_month = COALESCE($7, card_expiry_month), card_expiry_year = COALESCE($8, card_expiry_year),
       amount_captured = CASE WHEN $9 THEN $10 ELSE amount_captured END,
       updated_at = date_trunc('milliseconds', now())
     WHERE id = $1`,
    [
      row.id,
      to,
      provider,
      n.transactionId ?? null,
      n.cardToken ? cardTokens.seal(n.cardToken, row.id) : null,
      n.maskedPan ?? null,
      n.expiryMonth ?? null,
      n.expiryYear ?? null,
      paid,
      n.amountCents ?? row.amount,
    ],
  );
  await tx.query(
    `INSERT INTO status_history (payment_request_id, tenant_id, from_status, to_status, source, actor, detail)
     VALUES ($1, $2, $3, $4, 'ipn', $5, $6::jsonb)`,
    [
      row.id,
      row.tenant_id,
      row.status,
      to,
      provider,
      JSON.stringify({ event_id: n.eventId, detail: n.detail ?? null }),
    ],
  );
  // A deposit paid by the guest earns a confirmation e-mail; the cause is unique, so
  // however often this runs, one e-mail is due.
  if (paid && row.request_type === 'DEPOSIT') {
    await tx.query(
      `INSERT INTO email_outbox (tenant_id, payment_request_id, kind, cause)
       VALUES ($1, $2, 'deposit_confirmation', $3) ON CONFLICT (cause) DO NOTHING`,
      [row.tenant_id, row.id, `deposit_confirmation:${row.id}`],
    );
  }
}

export type GuestCommands = ReturnType<typeof guestCommands>;
