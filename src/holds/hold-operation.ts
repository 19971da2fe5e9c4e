import {
  applyStatusChanges,
  type Queryable,
  queueDeclinedHoldMails,
  queueGuaranteeMails,
  releaseClaims,
} from '../db/index.ts';
import { allowedFrom, isSoftDecline, targetOf } from '../domain/index.ts';
import { actorOf, type MoneyOperation, onTestClock, placedAt, type Settled } from '../payment-requests/index.ts';
import { holdValidityTable } from '../providers/index.ts';
import { type RefusedHold, refusedHoldChange, refusedHoldReason } from './refused-hold.ts';

/**
 * The soft declines that may still be tried again: those whose check-in day has not come, at
 * `date` (the daily job's day) or, for an answer settled later (a late answer, reconcile), the
 * hotel's today. One read, only when a soft decline happened.
 */
async function retriable(tx: Queryable, soft: readonly RefusedHold[], date: string | undefined): Promise<Set<string>> {
  if (soft.length === 0) return new Set();
  const r = await tx.query<{ id: string }>(
    `SELECT p.id FROM payment_requests p JOIN tenants t ON t.id = p.tenant_id
      WHERE p.id = ANY($1::uuid[]) AND p.checkin IS NOT NULL
        AND p.checkin > COALESCE($2::date, (now() AT TIME ZONE t.timezone)::date)`,
    [soft.map((s) => s.entry.payment_request_id), date ?? null],
  );
  return new Set(r.rows.map((row) => row.id));
}

/**
 * The daily job's hold on a registered card: AUTHORISED_TO_VALIDATE for the tenant's hold
 * length (or less, where the card's network lapses such a hold sooner) when placed. When the
 * bank says no for good (a hard reason, or any refusal on the check-in day), the guarantee
 * failed: ERROR (the link takes another card), marked on the request, the hotel told and the
 * guest asked, in this same transaction, whichever path settled the hold (the job, a late
 * answer, reconcile). A soft decline before the check-in day (insufficient funds, an issuer
 * that did not answer) keeps the card as the guarantee: the request stays AUTHORISED with the
 * reason in its history (`payment_request.hold_declined`), and the next run tries again. A
 * technical failure gives the claim back and counts the attempt: the next run tries again. In
 * doubt, the claim stays, so no run places a second hold until reconcile has asked the provider.
 * `date`: the job's day, against which a check-in counts as come; `at`: the test clock's moment
 * a sandbox hold was placed, from which its end counts.
 */
export function holdOperationOn(date?: string, at?: Date): MoneyOperation {
  return {
    name: 'hold',
    holdTerms: (s) => ({ validity: holdValidityTable(s.entry.provider), ...placedAt(s, at) }),
    async record(tx: Queryable, settled: readonly Settled[]) {
      const placed = settled.filter((s) => s.outcome === 'succeeded');
      const refused = settled.filter((s): s is RefusedHold => s.outcome === 'refused');
      const again = await retriable(
        tx,
        refused.filter((s) => isSoftDecline(refusedHoldReason(s))),
        date,
      );
      const from = allowedFrom('deferred_hold_placed', 'IMPRINT');
      const applied = await applyStatusChanges(tx, [
        ...placed.map((s) => ({
          id: s.entry.payment_request_id,
          from,
          to: targetOf('deferred_hold_placed'),
          claim: 'hold' as const,
          token: s.entry.claim_token,
          actor: actorOf(s.entry),
          ledgerId: s.entry.id,
          ...onTestClock(s, at),
          detail: { transaction_id: s.outcome === 'succeeded' ? s.transactionId : null },
          set: {
            providerTransactionId: s.outcome === 'succeeded' ? s.transactionId : undefined,
            holdPlaced: true as const,
          },
        })),
        ...refused.map((s) => {
          const soft = again.has(s.entry.payment_request_id);
          const move = soft ? 'deferred_hold_declined' : 'deferred_hold_refused';
          return refusedHoldChange(
            s,
            { from: soft ? allowedFrom(move, 'IMPRINT') : from, to: targetOf(move), guaranteeFailed: !soft },
            at,
          );
        }),
      ]);
      const failed = new Set(applied.filter((a) => a.status === targetOf('deferred_hold_refused')).map((a) => a.id));
      const softly = new Set(applied.filter((a) => a.status === targetOf('deferred_hold_declined')).map((a) => a.id));
      const mails = (ids: Set<string>) =>
        refused
          .filter((s) => ids.has(s.entry.payment_request_id))
          .map((s) => ({ id: s.entry.payment_request_id, ledgerId: s.entry.id }));
      await queueGuaranteeMails(tx, mails(failed));
      // Declined softly: the hotel is told once that the card may not hold (tried again daily).
      await queueDeclinedHoldMails(tx, mails(softly));
      await releaseClaims(
        tx,
        settled
          .filter((s) => s.outcome === 'failed')
          .map((s) => ({
            id: s.entry.payment_request_id,
            claim: 'hold' as const,
            token: s.entry.claim_token,
            error: 'error' in s ? s.error : '',
          })),
      );
    },
  };
}

/** The hold's record step for an answer settled outside a run of the daily job (today: the hotel's). */
export const holdOperation: MoneyOperation = holdOperationOn();
