import type { AuditDeps } from './audit-deps.ts';
import { findAccounts } from './find-accounts.ts';
import { giveBack } from './give-back.ts';
import type { OrderViews } from './order-views.ts';
import type { ReconcileOptions, ReconcileResult } from './reconcile-result.ts';
import type { UndecidedOperations } from './settle-undecided.ts';
import { releaseStaleClaims } from './stale-claims.ts';

/** Rows without a recorded account a run asks about at most (an order view per account each). */
const ACCOUNTS_PER_RUN = 50;

/**
 * The janitor: settles what nobody knows. Each pass decides the operations left undecided,
 * gives back money that arrived where it should not and has not gone back yet, frees claims
 * that never reached the provider, and gives old rows the account that made them. It judges
 * nothing against the books: that is the window check's, a separate pass.
 */
export function janitor(deps: AuditDeps, views: OrderViews, undecided: UndecidedOperations) {
  return {
    async sweep(opts: ReconcileOptions, result: ReconcileResult): Promise<void> {
      const limit = opts.limit ?? 500;
      const ledger = deps.repos.ledger;
      const open = await ledger.unsettled(deps.graceSeconds, limit);
      result.examined = open.length;
      await undecided.settle(open, result);
      for (const incident of await ledger.incidentsNotGivenBack(limit)) {
        if (await giveBack(deps.runner, incident)) result.given_back++;
      }
      result.claims_released = await releaseStaleClaims(deps.repos, opts.staleClaimSeconds ?? deps.graceSeconds);
      result.accounts_found = await findAccounts(deps, views, ACCOUNTS_PER_RUN);
    },
  };
}
