import type { AuditDeps } from './audit-deps.ts';
import { handDecision } from './hand-decision.ts';
import { janitor } from './janitor.ts';
import { orderViews } from './order-views.ts';
import { emptyResult, type ReconcileOptions } from './reconcile-result.ts';
import { undecidedOperations } from './settle-undecided.ts';
import { windowCheck } from './window-check.ts';

/**
 * Makes payreq's books match the provider's, as the reconcile job runs it: the janitor's sweep
 * (decide the undecided, give back misplaced money, free stale claims, find accounts), then the
 * auditor's check of the window. Commands use `settleRequest` before acting on a request whose
 * last operation is in doubt; the Books page and `payreq books settle` use `decideByHand`.
 */
export function reconciler(deps: AuditDeps) {
  const views = orderViews(deps);
  const undecided = undecidedOperations(deps, views);
  const sweeper = janitor(deps, views, undecided);
  const auditor = windowCheck(deps, views);
  return {
    isInDoubt: undecided.isInDoubt,
    settleRequest: undecided.settleRequest,
    async reconcile(opts: ReconcileOptions = {}) {
      const result = emptyResult();
      await sweeper.sweep(opts, result);
      await auditor.checkWindow(opts, result);
      return result;
    },
    /** The invariant for one request: the provider's net equals ours, and no hold is open where none should be. */
    checkRequest: auditor.checkRequest,
    decideByHand: handDecision(deps, views, undecided.isInDoubt).decideByHand,
  };
}

export type Reconciler = ReturnType<typeof reconciler>;
