import type { ReconcileOptions, ReconcileResult, Reconciler } from '../money-audit/index.ts';

export type { ReconcileResult };

/**
 * `reconcile_claims`: payreq's books against the provider's. Settles every operation in doubt
 * (or left requested by a process that died) by the provider's view of its order, gives back
 * money that arrived where it should not, frees claims that never reached the provider, and
 * checks every request touched in the last day (its net against the provider's, and no hold
 * open at the provider unless it is AUTHORISED_TO_VALIDATE), a page at a time in a stable
 * order; a window longer than one run's pages is finished by the next runs (`touched`,
 * `checked`, `check_complete`).
 */
export function reconcileClaims(reconciler: Reconciler, opts: ReconcileOptions = {}): Promise<ReconcileResult> {
  return reconciler.reconcile(opts);
}
