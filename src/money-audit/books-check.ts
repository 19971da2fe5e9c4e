import type { BooksCheckDetail, OrderFacts, Repositories } from '../db/index.ts';
import { BOOKS_PROBLEM_WORDS, type BooksTransaction, type BooksVerdictKind, compareBooks } from '../domain/index.ts';
import type { ProviderRegistry } from '../providers/index.ts';
import { orderViewOf } from './order-account.ts';

export interface BooksCheckDeps {
  repos: Repositories;
  providers: ProviderRegistry;
  log?: { warn(obj: object, msg: string): void };
}

export interface BooksCheckOptions {
  /** One tenant; undefined: every tenant. */
  tenantId?: string;
  /** The window's start: orders whose ledger moved since then (until the run opens). */
  since: Date;
  /** Orders asked of the provider at once. */
  concurrency?: number;
  /** Stops the run after the order being checked (the rest is left for the next run). */
  signal?: AbortSignal;
  /** Told of each order checked, as it is recorded. */
  onChecked?: (paymentRequestId: string, verdict: BooksVerdictKind) => void;
}

export interface BooksSummary {
  orders: number;
  agree: number;
  disagree: number;
  in_doubt: number;
}

export interface BooksCheckResult {
  since: Date;
  until: Date;
  /** This run carried on one that had stopped: the orders it had checked were not asked again. */
  resumed: boolean;
  /** Every order was checked (false: the run stopped, and the next one carries it on). */
  complete: boolean;
  /** Orders asked of the provider by this run. */
  asked: number;
  /** Incidents this run opened (a disagreement seen for the first time). */
  opened: number;
  summary: BooksSummary;
  /** Every order of the run that does not agree, in id order: in doubt or disagreeing. */
  problems: { verdict: Exclude<BooksVerdictKind, 'agree'>; detail: BooksCheckDetail }[];
}

/** A run of the same scope is held by a live process. */
export class BooksCheckBusy extends Error {
  readonly leasedUntil: Date;
  constructor(leasedUntil: Date) {
    super(`a books check of this scope is under way (its lease runs until ${leasedUntil.toISOString()})`);
    this.leasedUntil = leasedUntil;
    this.name = 'BooksCheckBusy';
  }
}

/**
 * Four orders at a time: a provider answers an order view in tens of milliseconds, so a
 * thousand orders take seconds, while a slow provider is never asked more than four things
 * at once by the check (the service's own calls come first).
 */
export const BOOKS_CHECK_CONCURRENCY = 4;
/** Orders read from the run's list at a time. */
const PAGE_SIZE = 100;
/**
 * A run's lease, renewed with each verdict: longer than any one order's check (a provider call
 * is bounded by PROVIDER_TIMEOUT_MS), short enough that a killed run is carried on soon.
 */
export const BOOKS_LEASE_SECONDS = 120;
/** How many times an order whose books moved while it was read is read again. */
const READS_WHILE_MOVING = 3;

/** The default window: the last 7 days, from midnight UTC, so runs of the same day share it. */
export function defaultSince(now: Date): Date {
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(day - 7 * 24 * 3600 * 1000);
}

/**
 * `payreq books check` and the books_check job: asks the provider's view of every order whose
 * ledger moved in the window (and of every order with an open incident), compares it with
 * payreq's books by the rule of domain/books.ts, and records each verdict as it is known, so a
 * run that stops is carried on by the next one without asking again what it checked. A
 * disagreement opens an incident on the request; an agreement resolves it.
 */
export async function checkBooks(deps: BooksCheckDeps, opts: BooksCheckOptions): Promise<BooksCheckResult> {
  const { repos } = deps;
  const taken = await repos.books.openRun({
    scope: opts.tenantId ?? 'all',
    tenantId: opts.tenantId,
    since: opts.since,
    leaseSeconds: BOOKS_LEASE_SECONDS,
  });
  if ('busy' in taken) throw new BooksCheckBusy(taken.busy.leased_until);
  const run = taken;
  const concurrency = Math.max(1, opts.concurrency ?? BOOKS_CHECK_CONCURRENCY);
  let asked = 0;
  let opened = 0;
  /** The lease was lost: another run carries this one on. */
  let lost = false;
  /** Workers stop at their next order: the lease lost, or a worker failed. */
  let stop = false;
  let finished = false;
  try {
    let after: string | undefined;
    for (;;) {
      if (opts.signal?.aborted || stop) break;
      const ids = await repos.books.uncheckedOrders(run.id, after, PAGE_SIZE);
      if (ids.length === 0) break;
      after = ids[ids.length - 1];
      let next = 0;
      const worker = async () => {
        while (next < ids.length && !opts.signal?.aborted && !stop) {
          const id = ids[next++] as string;
          const { verdict, detail } = await checkOrder(deps, id);
          asked++;
          const r = await repos.books.recordVerdict({
            runId: run.id,
            lease: run.lease,
            leaseSeconds: BOOKS_LEASE_SECONDS,
            verdict,
            detail,
          });
          // This process stalled past its lease and another run carries on: its verdicts stand.
          if (!r.held) {
            lost = true;
            stop = true;
          } else {
            if (r.opened) opened++;
            opts.onChecked?.(id, verdict);
          }
        }
      };
      // A worker that fails (the database away) stops the others at their next order: the run
      // ends with what it recorded, and the next one carries on.
      const settled = await Promise.allSettled(
        Array.from({ length: Math.min(concurrency, ids.length) }, () =>
          worker().catch((err: unknown) => {
            stop = true;
            throw err;
          }),
        ),
      );
      const failed = settled.find((x): x is PromiseRejectedResult => x.status === 'rejected');
      if (failed) throw failed.reason;
    }
    if (!lost && !opts.signal?.aborted) finished = await repos.books.finishRun(run.id, run.lease);
  } finally {
    if (!finished && !lost) await repos.books.letGo(run.id, run.lease);
  }
  const results = await repos.books.runResults(run.id);
  const { agree, disagree, in_doubt } = results.counts;
  return {
    since: run.since,
    until: run.until,
    resumed: run.resumed,
    complete: finished,
    asked,
    opened,
    summary: { orders: agree + disagree + in_doubt + results.counts.unchecked, agree, disagree, in_doubt },
    problems: results.problems.filter(
      (p): p is { verdict: Exclude<BooksVerdictKind, 'agree'>; detail: BooksCheckDetail } => p.verdict !== 'agree',
    ),
  };
}

/**
 * One order: payreq's books, the provider's view, payreq's books again. Books that moved
 * meanwhile (an operation landed) are read again; still moving after a few reads, the order is
 * in doubt for this run, as an operation under way is.
 */
async function checkOrder(
  deps: BooksCheckDeps,
  id: string,
): Promise<{ verdict: BooksVerdictKind; detail: BooksCheckDetail }> {
  for (let read = 1; ; read++) {
    const before = await deps.repos.books.orderFacts(id);
    if (!before) {
      // Listed from the ledger, so it has rows; an id without any cannot be judged.
      return {
        verdict: 'in_doubt',
        detail: {
          payment_request_id: id,
          tenant_id: null,
          reference: null,
          currency: '',
          status: null,
          provider_net: null,
          payreq_net: 0,
          open_holds: 0,
          in_doubt_rows: 0,
          problems: ['unavailable'],
        },
      };
    }
    const transactions = await providerView(deps, before);
    const after = await deps.repos.books.orderFacts(id);
    if (!after) continue;
    const settled = after.mark === before.mark;
    if (!settled && read < READS_WHILE_MOVING) continue;
    const v = compareBooks(
      {
        status: after.status,
        amountCaptured: after.amount_captured,
        amountRefunded: after.amount_refunded,
        unsettledRows: settled ? after.unsettled : Math.max(1, after.unsettled),
        amount: after.amount ?? 0,
        transactionId: after.provider_transaction_id,
        replacedHolds: after.replaced_holds,
      },
      transactions,
    );
    return {
      verdict: v.verdict,
      detail: {
        payment_request_id: id,
        tenant_id: after.tenant_id,
        reference: after.reference,
        currency: after.currency,
        status: after.status,
        provider_net: v.providerNet,
        payreq_net: v.payreqNet,
        open_holds: v.openHolds,
        in_doubt_rows: v.unsettledRows,
        problems: v.problems,
      },
    };
  }
}

/** The provider's view of the order's transactions; undefined when it cannot be read. */
async function providerView(deps: BooksCheckDeps, facts: OrderFacts): Promise<BooksTransaction[] | undefined> {
  try {
    return (await orderViewOf(deps.providers, facts)).transactions;
  } catch (err) {
    deps.log?.warn(
      { err: (err as Error).message, request: facts.payment_request_id },
      'books check: order view unavailable',
    );
    return undefined;
  }
}

/** Minor units as the CLI prints them: `80.00 EUR`. */
function money(cents: number | null, currency: string): string {
  if (cents === null) return '?';
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}${currency ? ` ${currency}` : ''}`;
}

const PROBLEM_WORDS: Readonly<Record<string, string>> = BOOKS_PROBLEM_WORDS;

/** One line of `payreq books check` for an order that does not agree. */
export function describeProblem(p: { verdict: BooksVerdictKind; detail: BooksCheckDetail }): string {
  const d = p.detail;
  const what = d.problems.map((x) => PROBLEM_WORDS[x] ?? x).join('; ');
  return (
    `${d.reference ?? d.payment_request_id}  ${p.verdict}  provider ${money(d.provider_net, d.currency)}  ` +
    `payreq ${money(d.payreq_net, d.currency)}  open holds ${d.open_holds}  in doubt ${d.in_doubt_rows}  ` +
    `status ${d.status ?? 'deleted'}  (${what})`
  );
}

/** The same for `--json`: amounts as decimal numbers, as the API gives them. */
export function presentProblem(p: { verdict: BooksVerdictKind; detail: BooksCheckDetail }): Record<string, unknown> {
  const d = p.detail;
  const decimal = (cents: number | null) => (cents === null ? null : cents / 100);
  return {
    reference: d.reference,
    payment_request_id: d.payment_request_id,
    tenant_id: d.tenant_id,
    verdict: p.verdict,
    provider_net: decimal(d.provider_net),
    payreq_net: decimal(d.payreq_net),
    currency: d.currency,
    open_holds: d.open_holds,
    in_doubt_rows: d.in_doubt_rows,
    status: d.status,
    problems: d.problems,
  };
}
