import { applyStatusChanges, type Queryable, queueGuaranteeMails, releaseClaims } from '../../db/index.js';
import { allowedFrom, targetOf } from '../../domain/index.js';
import { holdValidityTable } from '../../providers/index.js';
import type { MoneyOperation, Settled } from '../money-runner.js';
import { actorOf } from './entry-actor.js';

/**
 * The daily job's hold on a registered card: AUTHORISED_TO_VALIDATE for the tenant's hold
 * length (or less, where the card's network lapses such a hold sooner) when placed. When the
 * bank says no, the guarantee failed: ERROR (the link takes another card), marked on the request,
 * the hotel told and the guest asked, in this same transaction, whichever path settled the hold
 * (the job, a late answer, reconcile). A technical failure gives the claim back and counts the
 * attempt: the next run tries again. In doubt, the claim stays, so no run places a second hold
 * until reconcile has asked the provider.
 */
export const holdOperation: MoneyOperation = {
  name: 'hold',
  async record(tx: Queryable, settled: readonly Settled[]) {
    const placed = settled.filter((s) => s.outcome === 'succeeded');
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
        detail: { transaction_id: s.outcome === 'succeeded' ? s.transactionId : null },
        set: {
          providerTransactionId: s.outcome === 'succeeded' ? s.transactionId : undefined,
          holdPlaced: { validity: holdValidityTable(s.entry.provider) },
        },
      })),
      ...settled
        .filter((s) => s.outcome === 'refused')
        .map((s) => ({
          id: s.entry.payment_request_id,
          from,
          to: targetOf('deferred_hold_refused'),
          claim: 'hold' as const,
          token: s.entry.claim_token,
          actor: actorOf(s.entry),
          ledgerId: s.entry.id,
          detail: { reason: s.outcome === 'refused' ? s.error : null },
          set: { holdError: s.outcome === 'refused' ? s.error : undefined, guaranteeFailed: true as const },
        })),
    ]);
    const failed = new Set(applied.filter((a) => a.status === targetOf('deferred_hold_refused')).map((a) => a.id));
    await queueGuaranteeMails(
      tx,
      settled
        .filter((s) => s.outcome === 'refused' && failed.has(s.entry.payment_request_id))
        .map((s) => ({ id: s.entry.payment_request_id, ledgerId: s.entry.id })),
    );
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
