// The books a hotel can check: payreq's books against the provider's view, order by order
// (`payreq books check`, the books_check job, the back office's Books page).
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
export { type OrderOwner, orderViewOf } from './order-account.ts';
