import { BOOKS_PROBLEM_WORDS, compareBooks, replacedHoldsOf, type Status } from '../domain/index.ts';
import type { ProviderTransaction } from '../providers/index.ts';
import type { AuditDeps } from './audit-deps.ts';
import { giveBackStrayHolds } from './give-back.ts';
import type { OrderViews } from './order-views.ts';
import { reconcileCheckRepository } from './reconcile-check-repository.ts';
import type { Mismatch, ReconcileOptions, ReconcileResult } from './reconcile-result.ts';

/**
 * The check's defaults in production: 500 requests a page, 10 pages a run, so one run asks the
 * provider's view of at most 5,000 orders (the bound a run had before), and a run never holds
 * the scheduler's pass for long; a longer window is finished by the next runs, in order,
 * before a new one opens.
 */
const CHECK_PAGE_SIZE = 500;
const CHECK_PAGES_PER_RUN = 10;
/** A run holding the window renews this lease at each page; a run that died frees it when it runs out. */
const CHECK_LEASE_SECONDS = 900;

/**
 * The auditor: checks the invariant on every request touched lately, both ways, a window at a
 * time; a hold open at the provider that no request owns is given back as misplaced money.
 */
export function windowCheck(deps: AuditDeps, views: OrderViews) {
  const { repos } = deps;
  const ledger = repos.ledger;
  const { wholeOrderOf } = views;
  const windows = reconcileCheckRepository(deps.db);

  /**
   * Checks the window's requests a page at a time, in request id order, striking each page off
   * once checked: the window opened by this run, or the one an earlier run left unfinished (its
   * page cap, or it died and its lease ran out). A window held by a live run is left to it.
   */
  async function checkWindow(opts: ReconcileOptions, result: ReconcileResult): Promise<void> {
    const since = opts.checkSince ?? new Date(Date.now() - 24 * 3600 * 1000);
    const taken = await windows.take(since, CHECK_LEASE_SECONDS);
    if ('busy' in taken) {
      result.touched = taken.busy.touched;
      result.checked = taken.busy.touched - taken.busy.left;
      return;
    }
    const size = opts.checkPageSize ?? CHECK_PAGE_SIZE;
    const pages = opts.checkPages ?? CHECK_PAGES_PER_RUN;
    let left = taken.left;
    try {
      let after: string | undefined;
      for (let page = 0; page < pages && left > 0; page++) {
        const ids = await windows.page(after, size);
        if (ids.length === 0) break;
        for (const id of ids) {
          const { mismatch, stray, lastId, status } = await inspect(id);
          if (mismatch) result.mismatches.push(mismatch);
          if (stray.length > 0 && lastId) {
            result.given_back += await giveBackStrayHolds(deps, id, stray, { lastId, status: status ?? null });
          }
        }
        const stillLeft = await windows.strike(taken.lease, ids, CHECK_LEASE_SECONDS);
        // The lease ran out meanwhile and another run carries on: these checks stand, the rest is theirs.
        if (stillLeft === undefined) return;
        left = stillLeft;
        after = ids[ids.length - 1];
      }
    } finally {
      result.touched = taken.touched;
      result.checked = taken.touched - left;
      result.check_complete = left === 0;
      await windows.letGo(taken.lease);
    }
  }

  /**
   * The books rule for one request, as the books check applies it (domain/books.ts), both
   * ways: the nets agree, a request that shows a hold has exactly its own open at the
   * provider, and no other hold is open. At rest only: an operation in doubt or under way is
   * reconcile's to settle first. `stray`: holds open at the provider that the request does
   * not own and may not keep.
   */
  async function inspect(
    requestId: string,
  ): Promise<{ mismatch?: Mismatch; stray: ProviderTransaction[]; lastId?: string; status?: Status | null }> {
    const entries = await ledger.forRequest(requestId);
    if (!entries[0]) return { stray: [] };
    const lastId = entries[entries.length - 1]?.id;
    const row = await repos.paymentRequests.findAnyTenant(requestId);
    const reference = row?.reference ?? null;
    const order = await wholeOrderOf(entries, requestId);
    if (!order)
      return { mismatch: { payment_request_id: requestId, reference, problem: 'order view unavailable' }, stray: [] };
    // Holds a renewal replaced are the renewal run's to release (or lapse): never strays.
    const replaced = replacedHoldsOf(entries);
    const v = compareBooks(
      {
        status: row?.status ?? null,
        amountCaptured: row?.amount_captured ?? 0,
        amountRefunded: row?.amount_refunded ?? 0,
        unsettledRows: entries.filter((e) => e.state === 'requested' || e.state === 'in_doubt').length,
        amount: row?.amount ?? 0,
        transactionId: row?.provider_transaction_id ?? null,
        replacedHolds: replaced,
      },
      order.transactions,
    );
    if (v.verdict !== 'disagree') return { stray: [] };
    const words = v.problems.map((p) =>
      p === 'net_differs'
        ? `provider net ${v.providerNet} differs from payreq's ${v.payreqNet} (minor units)`
        : `${BOOKS_PROBLEM_WORDS[p]} (request ${row?.status ?? 'deleted'})`,
    );
    const mayKeep = row?.status === 'EXPIRED';
    const stray = mayKeep
      ? []
      : order.transactions.filter(
          (t) =>
            t.kind === 'hold' &&
            t.status === 'authorised' &&
            !replaced.includes(t.id) &&
            !(row?.status === 'AUTHORISED_TO_VALIDATE' && t.id === row.provider_transaction_id),
        );
    const mismatch = { payment_request_id: requestId, reference, problem: words.join('; ') };
    return { mismatch, stray, lastId, status: row?.status ?? null };
  }

  async function checkRequest(requestId: string): Promise<Mismatch | undefined> {
    return (await inspect(requestId)).mismatch;
  }

  return { checkWindow, checkRequest };
}
