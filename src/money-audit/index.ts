// The money audit: the janitor that settles what nobody knows (operations in doubt, misplaced
// money, stale claims, rows without an account), and the auditors that compare payreq's books
// with the provider's (the reconcile job's window check; `payreq books check`, the books_check
// job, the Books page). The two share the books rule (the domain's compareBooks).
export type { AuditDeps, AuditDeps as ReconcilerDeps } from './audit-deps.ts';
export {
  BOOKS_CHECK_CONCURRENCY,
  BOOKS_LEASE_SECONDS,
  BooksCheckBusy,
  type BooksCheckDeps,
  type BooksCheckOptions,
  type BooksCheckResult,
  type BooksSummary,
  checkBooks,
  defaultSince,
  describeProblem,
  presentProblem,
} from './books-check.ts';
export { giveBack } from './give-back.ts';
export { type DecidedByHand, DecisionRefused, type HandDecision } from './hand-decision.ts';
export { janitor } from './janitor.ts';
export { type OrderOwner, orderViewOf } from './order-account.ts';
export type { Mismatch, ReconcileOptions, ReconcileResult } from './reconcile-result.ts';
export { type Reconciler, reconciler } from './reconciler.ts';
export { windowCheck } from './window-check.ts';
