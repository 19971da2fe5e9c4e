import type { ReconcileResult, Reconciler } from '../payment-requests/index.js';

export type { ReconcileResult };

/**
 * `reconcile_claims`: payreq's books against the provider's. Settles every operation in doubt
 * (or left requested by a process that died) by the provider's view of its order, gives back
 * money that arrived where it should not, frees claims that never reached the provider, and
 * reports every request touched in the last day whose net differs from the provider's, or that
 * has a hold open at the provider while it is not AUTHORISED_TO_VALIDATE.
 */
export function reconcileClaims(reconciler: Reconciler, opts: { checkSince?: Date } = {}): Promise<ReconcileResult> {
  return reconciler.reconcile(opts);
}
