import type { Status } from './statuses.ts';

/**
 * The books rule: what "payreq's books agree with the provider's" means for one order. Pure:
 * the facts of both sides in, a verdict out. `payreq books check`, the books_check job and the
 * back office's Books page all judge by it.
 */

/** One transaction of the provider's view of an order, as far as the books need it (minor units). */
export interface BooksTransaction {
  id: string;
  kind: string;
  /** What it was made for (a hold: the amount held). */
  amount: number;
  /**
   * accepted, authorised, captured, cancelled, refused, error, refunded: settled states. Any
   * other (a state in transit, one the adapter does not know) leaves the order in doubt.
   */
  status: string;
  capturedAmount: number;
  refundedAmount: number;
}

/** payreq's side of one order. */
export interface BooksFacts {
  /** The request's status; null once it is deleted (its ledger stays). */
  status: Status | null;
  amountCaptured: number;
  amountRefunded: number;
  /** Ledger rows whose outcome is not known yet: requested (a call under way) or in doubt. */
  unsettledRows: number;
  /** The request's amount: what a hold must guarantee (minor units). */
  amount: number;
  /**
   * The request's own transaction at the provider: its hold (an IMPRINT held or captured), its
   * payment (a DEPOSIT). Null when none is recorded (a request never paid, or written before).
   */
  transactionId: string | null;
  /**
   * Holds a renewal replaced that no release has freed yet (transaction ids): each may stay
   * open at the provider until its release, which the renewal run makes right after the new
   * hold and again at its next run, or until it lapses at its end. Known, so not a stray hold;
   * a replaced hold whose release succeeded and that is still open is one.
   */
  replacedHolds?: readonly string[];
}

/** One ledger row, as far as telling the holds a renewal replaced goes. */
export interface HoldChainRow {
  id: string;
  kind: string;
  state: string;
  parent_id: string | null;
  provider_transaction_id: string | null;
}

/**
 * The holds a renewal replaced (a hold row with a succeeded renewal naming it) that no
 * succeeded release names yet: their transaction ids.
 */
export function replacedHoldsOf(rows: readonly HoldChainRow[]): string[] {
  const childOf = (id: string, kind: string) =>
    rows.some((r) => r.parent_id === id && r.kind === kind && r.state === 'succeeded');
  return rows
    .filter(
      (r) =>
        r.kind === 'hold' &&
        r.state === 'succeeded' &&
        r.provider_transaction_id !== null &&
        childOf(r.id, 'hold') &&
        !childOf(r.id, 'release'),
    )
    .map((r) => r.provider_transaction_id as string);
}

/**
 * net_differs: the provider's net is not `amount_captured − amount_refunded`;
 * hold_open: a hold is open at the provider while the request may not have one, or a second
 * hold beside the request's own;
 * hold_missing: the request shows a hold (AUTHORISED_TO_VALIDATE) that is not open at the
 * provider (refused, lapsed, released, or another transaction than its own);
 * hold_differs: the request's hold is open for another amount than the request's;
 * capture_differs: the request's own transaction does not keep what payreq counts (captured
 * less refunded): the money moved on another transaction;
 * unsettled: an operation's outcome is unknown on payreq's side (in doubt, or under way);
 * in_transit: the provider shows a transaction not settled yet (or in a state not known);
 * unavailable: the provider's view could not be read;
 * hold_lapsed, disputed: reported by the provider itself (an event), never found by the check:
 * the provider let the request's hold lapse; the cardholder disputed the payment with the bank.
 */
export type BooksProblem =
  | 'net_differs'
  | 'hold_open'
  | 'hold_missing'
  | 'hold_differs'
  | 'capture_differs'
  | 'unsettled'
  | 'in_transit'
  | 'unavailable'
  /** A provider's answer arrived after a person settled the operation, and says otherwise. */
  | 'hand_settlement_contradicted'
  | 'hold_lapsed'
  | 'disputed';

export type BooksVerdictKind = 'agree' | 'disagree' | 'in_doubt';

export interface BooksVerdict {
  verdict: BooksVerdictKind;
  /** Minor units; null when the provider's view could not be read. */
  providerNet: number | null;
  payreqNet: number;
  openHolds: number;
  unsettledRows: number;
  problems: BooksProblem[];
}

const SETTLED_STATUSES: ReadonlySet<string> = new Set([
  'accepted',
  'authorised',
  'captured',
  'cancelled',
  'refused',
  'error',
  'refunded',
]);

/**
 * Where a hold may be open at the provider. AUTHORISED_TO_VALIDATE: it is the guarantee.
 * EXPIRED: payreq stops counting on the hold at its end and never releases it; the provider
 * lapses it at the end of its own delay, so a hold still shown there is not the hotel's to fix.
 */
export const HOLD_MAY_BE_OPEN: ReadonlySet<Status> = new Set<Status>(['AUTHORISED_TO_VALIDATE', 'EXPIRED']);

/** Each problem in words, for logs and the command line. */
export const BOOKS_PROBLEM_WORDS: Readonly<Record<BooksProblem, string>> = {
  net_differs: 'nets differ',
  hold_open: 'a hold is open at the provider',
  hold_missing: "the request's hold is not open at the provider",
  hold_differs: "the request's hold is open for another amount",
  capture_differs: "the request's own transaction does not keep what payreq counts",
  unsettled: 'an operation is in doubt or under way',
  in_transit: 'the provider has a transaction in transit',
  unavailable: "the provider's view could not be read",
  hand_settlement_contradicted: 'a late answer of the provider contradicts an operation settled by hand',
  hold_lapsed: 'the provider let the hold lapse',
  disputed: 'the cardholder disputed the payment with the bank',
};

/** The problems that leave an order in doubt rather than in disagreement. */
const DOUBTS: ReadonlySet<BooksProblem> = new Set(['unsettled', 'in_transit', 'unavailable']);

/**
 * The invariant both ways, for holds and captures: a request that shows a hold has exactly one
 * open at the provider, its own, for its amount; no other hold is open on the order (but
 * where the request may keep one: an EXPIRED request's lapsing hold); a captured request took
 * what payreq counts on its own transaction.
 */
function holdProblems(
  facts: BooksFacts,
  transactions: readonly BooksTransaction[],
  openHolds: readonly BooksTransaction[],
): BooksProblem[] {
  const problems: BooksProblem[] = [];
  const own = facts.transactionId ? transactions.find((t) => t.id === facts.transactionId) : undefined;
  // A replaced hold not yet released is known: it goes at its release or its end.
  const replaced = new Set(facts.replacedHolds ?? []);
  const open = openHolds.filter((t) => !replaced.has(t.id));
  if (facts.status === 'AUTHORISED_TO_VALIDATE') {
    if (own?.kind !== 'hold' || own.status !== 'authorised') problems.push('hold_missing');
    else if (own.amount !== facts.amount) problems.push('hold_differs');
    if (open.some((t) => t.id !== own?.id)) problems.push('hold_open');
    return problems;
  }
  if (open.length > 0 && !(facts.status !== null && HOLD_MAY_BE_OPEN.has(facts.status))) problems.push('hold_open');
  // What the request's own transaction kept (a refund the same day lowers the payment itself,
  // a later one is its own transaction): what payreq counts as kept.
  const captured = facts.status === 'CAPTURED' || facts.status === 'REFUNDED';
  const kept = own ? own.capturedAmount - own.refundedAmount : 0;
  if (captured && own && (own.kind === 'hold' || own.kind === 'payment') && kept !== payreqNet(facts)) {
    problems.push('capture_differs');
  }
  return problems;
}

/** The provider's net for an order: what its payments and holds took, less what went back. */
export function providerNet(transactions: readonly BooksTransaction[]): number {
  let net = 0;
  for (const t of transactions) {
    if (t.kind === 'payment' || t.kind === 'hold') net += t.capturedAmount - t.refundedAmount;
  }
  return net;
}

/** payreq's net for an order: what it counts as taken, less what it gave back. */
export function payreqNet(facts: Pick<BooksFacts, 'amountCaptured' | 'amountRefunded'>): number {
  return facts.amountCaptured - facts.amountRefunded;
}

/**
 * The verdict for one order. The books agree when the provider's net equals payreq's and no
 * hold is open at the provider unless the request may hold one. An order with an operation
 * whose outcome is unknown, on either side, is in doubt rather than judged: its nets may
 * differ for as long as the operation is under way, and reconcile settles it by the provider's
 * view. `transactions` undefined: the provider's view could not be read (in doubt too).
 */
export function compareBooks(facts: BooksFacts, transactions: readonly BooksTransaction[] | undefined): BooksVerdict {
  const ours = payreqNet(facts);
  const problems: BooksProblem[] = [];
  if (facts.unsettledRows > 0) problems.push('unsettled');
  if (transactions === undefined) {
    problems.push('unavailable');
    return {
      verdict: 'in_doubt',
      providerNet: null,
      payreqNet: ours,
      openHolds: 0,
      unsettledRows: facts.unsettledRows,
      problems,
    };
  }
  const theirs = providerNet(transactions);
  const open = transactions.filter((t) => t.kind === 'hold' && t.status === 'authorised');
  const openHolds = open.length;
  if (transactions.some((t) => !SETTLED_STATUSES.has(t.status))) problems.push('in_transit');
  if (theirs !== ours) problems.push('net_differs');
  problems.push(...holdProblems(facts, transactions, open));
  const doubt = problems.includes('unsettled') || problems.includes('in_transit');
  const differs = problems.some((p) => !DOUBTS.has(p));
  return {
    verdict: doubt ? 'in_doubt' : differs ? 'disagree' : 'agree',
    providerNet: theirs,
    payreqNet: ours,
    openHolds,
    unsettledRows: facts.unsettledRows,
    problems,
  };
}
