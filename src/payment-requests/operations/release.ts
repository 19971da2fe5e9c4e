import { applyStatusChanges, type Queryable, releaseClaims } from '../../db/index.js';
import { allowedFrom, targetOf } from '../../domain/index.js';
import type { MoneyOperation, Settled } from '../money-runner.js';
import { actorOf } from './entry-actor.js';

/** Release of a hold without debit: AUTHORISED_TO_VALIDATE becomes CANCELLED. */
export const releaseOperation: MoneyOperation = {
  name: 'release',
  async record(tx: Queryable, settled: readonly Settled[]) {
    await applyStatusChanges(
      tx,
      settled
        .filter((s) => s.outcome === 'succeeded')
        .map((s) => ({
          id: s.entry.payment_request_id,
          from: allowedFrom('release'),
          to: targetOf('release'),
          claim: 'release' as const,
          actor: actorOf(s.entry),
          ledgerId: s.entry.id,
          detail: { transaction_id: s.entry.provider_transaction_id },
        })),
    );
    await releaseClaims(
      tx,
      settled
        .filter((s) => s.outcome === 'refused' || s.outcome === 'failed')
        .map((s) => ({ id: s.entry.payment_request_id, claim: 'release' as const })),
    );
  },
};
