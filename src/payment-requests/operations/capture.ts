import { applyStatusChanges, type Queryable, releaseClaims } from '../../db/index.js';
import { allowedFrom, targetOf } from '../../domain/index.js';
import type { MoneyOperation, Settled } from '../money-runner.js';
import { actorOf } from './entry-actor.js';

/** Capture (full or partial) of a hold: AUTHORISED_TO_VALIDATE becomes CAPTURED. */
export const captureOperation: MoneyOperation = {
  name: 'capture',
  async record(tx: Queryable, settled: readonly Settled[]) {
    await applyStatusChanges(
      tx,
      settled
        .filter((s) => s.outcome === 'succeeded')
        .map((s) => ({
          id: s.entry.payment_request_id,
          from: allowedFrom('capture'),
          to: targetOf('capture'),
          claim: 'capture' as const,
          actor: actorOf(s.entry),
          ledgerId: s.entry.id,
          detail: { amount: s.entry.amount, transaction_id: s.entry.provider_transaction_id },
        })),
    );
    await releaseClaims(
      tx,
      settled
        .filter((s) => s.outcome === 'refused' || s.outcome === 'failed')
        .map((s) => ({ id: s.entry.payment_request_id, claim: 'capture' as const })),
    );
  },
};
