import { applyStatusChanges, type Queryable, releaseClaims } from '../../db/index.ts';
import { allowedFrom, targetOf } from '../../domain/index.ts';
import type { MoneyOperation, Settled } from '../money-runner.ts';
import { actorOf, moveReasonOf, reasonDetail } from './entry-actor.ts';

/**
 * A money move on a claimed request whose success is one fixed move of the transition table
 * (capture: AUTHORISED_TO_VALIDATE to CAPTURED; release: to CANCELLED): done, the move with
 * its history; refused or failed, the claim given back; in doubt, the claim kept.
 */
export function statusMoveOperation(action: 'capture' | 'release'): MoneyOperation {
  return {
    name: action,
    async record(tx: Queryable, settled: readonly Settled[]) {
      await applyStatusChanges(
        tx,
        settled
          .filter((s) => s.outcome === 'succeeded')
          .map((s) => ({
            id: s.entry.payment_request_id,
            from: allowedFrom(action),
            to: targetOf(action),
            claim: action,
            token: s.entry.claim_token,
            actor: actorOf(s.entry),
            ledgerId: s.entry.id,
            detail: {
              amount: s.entry.amount,
              transaction_id: s.entry.provider_transaction_id,
              ...(action === 'capture' ? reasonDetail(s.entry) : {}),
            },
            ...(action === 'capture' ? { set: { moveReason: moveReasonOf(s.entry) } } : {}),
          })),
      );
      await releaseClaims(
        tx,
        settled
          .filter((s) => s.outcome === 'refused' || s.outcome === 'failed')
          .map((s) => ({ id: s.entry.payment_request_id, claim: action, token: s.entry.claim_token })),
      );
    },
  };
}
