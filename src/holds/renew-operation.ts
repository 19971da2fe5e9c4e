import { applyStatusChanges, type Queryable, queueGuaranteeMails, releaseClaims } from '../db/index.ts';
import { allowedFrom, targetOf } from '../domain/index.ts';
import { actorOf, type MoneyOperation, onTestClock, placedAt, type Settled } from '../payment-requests/index.ts';
import { holdValidityTable } from '../providers/index.ts';
import { type RefusedHold, refusedHoldChange } from './refused-hold.ts';

/**
 * A renewal of a live hold, recorded: the new hold becomes the guarantee (its transaction and
 * its end on the request, `payment_request.hold_renewed`); the old one is released afterwards,
 * as its own move. Refused (whatever the reason: the next run would find the old hold closer
 * to its end, not the card better), the old hold stays until it lapses and the guarantee has
 * failed: marked on the request, the hotel told and the guest asked for another card, as when
 * the first hold is refused (`payment_request.guarantee_failed`). A technical failure gives the
 * claim back: the next run tries again while the old hold lives. In doubt, the claim stays
 * until reconcile has asked the provider. `at`: the test clock's moment the new hold was placed.
 */
export function renewOperationAt(at?: Date): MoneyOperation {
  return {
    name: 'renew',
    holdTerms: (s) => ({ validity: holdValidityTable(s.entry.provider), ...placedAt(s, at) }),
    async record(tx: Queryable, settled: readonly Settled[]) {
      const renewed = settled.filter((s) => s.outcome === 'succeeded');
      const refused = settled.filter((s): s is RefusedHold => s.outcome === 'refused');
      const applied = await applyStatusChanges(tx, [
        ...renewed.map((s) => ({
          id: s.entry.payment_request_id,
          from: allowedFrom('hold_renewed', 'IMPRINT'),
          to: targetOf('hold_renewed'),
          claim: 'hold' as const,
          token: s.entry.claim_token,
          actor: actorOf(s.entry),
          ledgerId: s.entry.id,
          ...onTestClock(s, at),
          detail: { transaction_id: s.outcome === 'succeeded' ? s.transactionId : null, reason: 'reauthorisation' },
          set: {
            providerTransactionId: s.outcome === 'succeeded' ? s.transactionId : undefined,
            holdPlaced: true as const,
          },
        })),
        ...refused.map((s) =>
          refusedHoldChange(
            s,
            {
              from: allowedFrom('hold_renewal_refused', 'IMPRINT'),
              to: targetOf('hold_renewal_refused'),
              guaranteeFailed: true,
            },
            at,
          ),
        ),
      ]);
      const moved = new Set(applied.map((a) => a.id));
      await queueGuaranteeMails(
        tx,
        refused
          .filter((s) => moved.has(s.entry.payment_request_id))
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
}

/** A renewal's answer settled outside its run (a late answer, reconcile): placed now. */
export const renewOperation: MoneyOperation = renewOperationAt();

/**
 * The release of a hold a renewal replaced: no status moves (the request keeps its guarantee,
 * the new hold); the ledger row is the record. Refused (it lapsed, or was already freed), or
 * failed, the old hold lapses at its end anyway; a failed one is tried again by the next run.
 */
export const supersededReleaseOperation: MoneyOperation = {
  name: 'release-replaced',
  async record() {},
};
