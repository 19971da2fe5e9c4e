import { type Database, type LedgerEntry, PG, pgCode, type Repositories, recordIncident } from '../db/index.ts';
import { BOOKS_PROBLEM_WORDS, type Currency, compareBooks, replacedHoldsOf, type Status } from '../domain/index.ts';
import {
  orderAcrossAccounts,
  type ProviderOrder,
  type ProviderRegistry,
  type ProviderTransaction,
} from '../providers/index.ts';
import type { MoneyOperation, MoneyRunner } from './money-runner.ts';
import { captureOperation } from './operations/capture.ts';
import { giveBackOperation } from './operations/give-back.ts';
import { holdOperation } from './operations/hold.ts';
import { refundOperation } from './operations/refund.ts';
import { releaseOperation } from './operations/release.ts';
import { renewOperation, supersededReleaseOperation } from './operations/renew.ts';
import { booksOf, type Verdict, verdictFromOrder } from './operations/verdict.ts';

export interface ReconcilerDeps {
  db: Database;
  repos: Repositories;
  runner: MoneyRunner;
  providers: ProviderRegistry;
  /**
   * How long an operation may stay unanswered before the provider's "not there" is believed:
   * a call that timed out can still land a moment later, so until then only "done" settles it.
   */
  graceSeconds: number;
  /**
   * IN_DOUBT_ESCALATE_HOURS, in seconds: until an operation is this old, reconcile may still
   * settle it, and a person settles it only by forcing (`--force`, a confirmation on the page).
   */
  escalateSeconds?: number;
  log?: { warn(obj: object, msg: string): void };
}

/**
 * A hand settlement that cannot be made: the row is not undecided, or the decision lacks
 * something, or (`forceable`) it is too young or contradicts what the provider shows now, which
 * a person may still overrule knowingly. `providerShows`: what the provider showed, in words.
 */
export class SettleRefused extends Error {
  /** Why a person may still overrule it (`force`); undefined: no force makes it possible. */
  readonly why: 'young' | 'contradicts' | 'unchecked' | undefined;
  readonly providerShows: string | undefined;
  constructor(message: string, opts: { why?: 'young' | 'contradicts' | 'unchecked'; providerShows?: string } = {}) {
    super(message);
    this.name = 'SettleRefused';
    this.why = opts.why;
    this.providerShows = opts.providerShows;
  }
}

/** A hand settlement made: the row as settled, and what the provider showed when it was made. */
export interface SettledByHand {
  row: LedgerEntry;
  providerShows: string;
  /** Made against the escalation delay or the provider's view, by `force`. */
  forced: boolean;
}

/** What a provider's view says of an operation, in words for the operator. */
function describeVerdict(v: Verdict | undefined): string {
  if (!v) return "unavailable: the provider's view of the order could not be read";
  switch (v.kind) {
    case 'done':
      return `done (transaction ${v.transactionId}, status ${v.status})`;
    case 'refused':
      return `refused (transaction ${v.transactionId}, status ${v.status}${v.declineCode ? `, code ${v.declineCode}` : ''})`;
    case 'not_done':
      return 'not there: no transaction of this operation';
    case 'in_flight':
      return `not decided yet (${v.why})`;
    case 'unknown':
      return `cannot tell (${v.why})`;
  }
}

/** An operator's decision on an undecided operation, after looking at the provider's back office. */
export interface HandSettlement {
  ledgerId: string;
  as: 'done' | 'refused';
  reason: string;
  /** The provider's transaction, when the operation made one (a hold, a refund) and the row does not name it. */
  transactionId?: string;
  /** Settle it although it is younger than the escalation delay, or the provider shows otherwise. */
  force?: boolean;
  /** The tenant the operator acts for; undefined: a superuser, every tenant. */
  tenantId?: string;
  by: { username: string | null; ip: string | null };
}

/** One request whose books differ from the provider's. */
export interface Mismatch {
  payment_request_id: string;
  reference: string | null;
  problem: string;
}

export interface ReconcileResult {
  examined: number;
  settled: number;
  /** Settled as refused by the provider: nothing moved (a refused hold is a failed guarantee). */
  refused: number;
  not_done: number;
  unknown: number;
  given_back: number;
  claims_released: number;
  /** Ledger rows written before accounts were recorded, given the account that shows their transaction. */
  accounts_found: number;
  /** Requests touched in the check window (listed when it opened). */
  touched: number;
  /** Of these, how many are checked: by this run and by the earlier runs of the same window. */
  checked: number;
  /** The window is done: every request touched in it was checked (`checked` equals `touched`). */
  check_complete: boolean;
  /** Found by this run's pages. */
  mismatches: Mismatch[];
}

export interface ReconcileOptions {
  limit?: number;
  staleClaimSeconds?: number;
  /** The start of a new check window; the last day by default. */
  checkSince?: Date;
  /** Requests read and checked per page of the window. */
  checkPageSize?: number;
  /** Pages a run checks at most before it leaves the rest of the window to the next run. */
  checkPages?: number;
}

/**
 * The check's defaults in production: 500 requests a page, 10 pages a run, so one run asks the
 * provider's view of at most 5,000 orders (the bound a run had before), and a run never holds
 * the scheduler's pass for long; a longer window is finished by the next runs, in order,
 * before a new one opens.
 */
const CHECK_PAGE_SIZE = 500;
const CHECK_PAGES_PER_RUN = 10;
/** Rows without a recorded account a run asks about at most (an order view per account each). */
const ACCOUNTS_PER_RUN = 50;
/** A run holding the window renews this lease at each page; a run that died frees it when it runs out. */
const CHECK_LEASE_SECONDS = 900;

/** The operation whose record step a settled row takes. */
function operationFor(entry: Pick<LedgerEntry, 'kind' | 'incident' | 'parent_id'>): MoneyOperation | undefined {
  if (entry.incident && (entry.kind === 'refund' || entry.kind === 'void')) return giveBackOperation;
  switch (entry.kind) {
    case 'capture':
      return captureOperation;
    case 'release':
      // A release naming a hold is of one a renewal replaced: the request's status stays.
      return entry.parent_id ? supersededReleaseOperation : releaseOperation;
    case 'refund':
      return refundOperation;
    case 'hold':
      // A hold naming another is its renewal.
      return entry.parent_id ? renewOperation : holdOperation;
    default:
      return undefined;
  }
}

/**
 * Makes payreq's books match the provider's: settles every operation left in doubt (or
 * requested by a process that died) by the provider's view of its order, gives back money
 * that arrived where it should not and has not gone back yet, frees claims that never reached
 * the provider, and checks the invariant on every request touched lately.
 */
export function reconciler(deps: ReconcilerDeps) {
  const { repos, runner, providers } = deps;
  const ledger = repos.ledger;

  /**
   * The order's view in the account a ledger row names (the one its call went to), even when
   * the tenant has switched account since: the new account knows nothing of the old one's.
   */
  async function orderOf(
    row: Pick<LedgerEntry, 'tenant_id' | 'provider' | 'provider_account'>,
    requestId: string,
  ): Promise<ProviderOrder | undefined> {
    try {
      return await (await providers.forAccount(row.tenant_id, row.provider, row.provider_account)).getOrder(requestId);
    } catch (err) {
      deps.log?.warn({ err: (err as Error).message, request: requestId }, 'reconcile: order view unavailable');
      return undefined;
    }
  }

  /** The order in every account the request's rows name, as one view (an account switch splits it). */
  async function wholeOrderOf(entries: readonly LedgerEntry[], requestId: string): Promise<ProviderOrder | undefined> {
    const first = entries[0];
    if (!first) return undefined;
    try {
      return await orderAcrossAccounts(providers, first.tenant_id, entries, requestId);
    } catch (err) {
      deps.log?.warn({ err: (err as Error).message, request: requestId }, 'reconcile: order view unavailable');
      return undefined;
    }
  }

  /** Settles one request's open rows; 'in_doubt' when any stays unknown. */
  async function settle(entries: readonly LedgerEntry[], count: ReconcileResult): Promise<void> {
    const byRequest = new Map<string, LedgerEntry[]>();
    for (const e of entries) byRequest.set(e.payment_request_id, [...(byRequest.get(e.payment_request_id) ?? []), e]);
    for (const [requestId, open] of byRequest) {
      const books = booksOf(await ledger.forRequest(requestId));
      const views = new Map<string, ProviderOrder | undefined>();
      for (const entry of open) {
        // Each row is judged by the account its call went to.
        const account = `${entry.provider}:${entry.provider_account}`;
        if (!views.has(account)) views.set(account, await orderOf(entry, requestId));
        const order = views.get(account);
        if (!order) {
          count.unknown++;
          continue;
        }
        const op = operationFor(entry);
        const verdict: Verdict = op
          ? verdictFromOrder(entry, order, books)
          : { kind: 'unknown', why: `no operation settles a ${entry.kind}` };
        const age = (Date.now() - entry.updated_at.getTime()) / 1000;
        if (!op || verdict.kind === 'in_flight' || verdict.kind === 'unknown') {
          if (verdict.kind === 'unknown' || verdict.kind === 'in_flight') {
            deps.log?.warn({ ledger: entry.id, request: requestId, why: verdict.why }, `reconcile: ${verdict.kind}`);
          }
          count.unknown++;
          continue;
        }
        switch (verdict.kind) {
          case 'done':
            await runner.record(op, [
              {
                entry,
                outcome: 'succeeded',
                transactionId: verdict.transactionId,
                status: verdict.status,
                ...(verdict.createdAt ? { placedAt: verdict.createdAt } : {}),
                ...(verdict.endsAt ? { holdEndsAt: verdict.endsAt } : {}),
              },
            ]);
            books.known.add(verdict.transactionId);
            // Settled, it counts in the books the next row of this request is judged by.
            books.settled.push({
              ...entry,
              state: 'succeeded',
              provider_transaction_id:
                entry.kind === 'hold' || entry.kind === 'refund'
                  ? verdict.transactionId
                  : entry.provider_transaction_id,
            });
            count.settled++;
            break;
          case 'refused': {
            // A final answer: no grace. A refused hold is a failed guarantee, as when the refusal is answered.
            const code = verdict.declineCode ? ` (${verdict.declineCode})` : '';
            await runner.record(op, [
              {
                entry,
                outcome: 'refused',
                error: `${verdict.transactionId} is ${verdict.status}${code} (reconciled)`,
                answer: {
                  transactionId: verdict.transactionId,
                  status: verdict.status,
                  declineCode: verdict.declineCode,
                },
              },
            ]);
            books.known.add(verdict.transactionId);
            count.refused++;
            break;
          }
          case 'not_done':
            // A call that timed out may still land: "not there" is believed once the grace is over.
            if (age < deps.graceSeconds) {
              count.unknown++;
              break;
            }
            await runner.record(op, [{ entry, outcome: 'failed', error: 'not done at the provider (reconciled)' }]);
            count.not_done++;
            break;
        }
      }
    }
  }

  function empty(): ReconcileResult {
    return {
      examined: 0,
      settled: 0,
      refused: 0,
      not_done: 0,
      unknown: 0,
      given_back: 0,
      claims_released: 0,
      accounts_found: 0,
      touched: 0,
      checked: 0,
      check_complete: false,
      mismatches: [],
    };
  }

  /**
   * Whether nobody knows an operation's outcome: in doubt, or requested longer ago than any
   * call can still be under way (its process died), the rows `unsettled` hands reconcile.
   */
  function isInDoubt(entry: Pick<LedgerEntry, 'state' | 'updated_at'>): boolean {
    if (entry.state === 'in_doubt') return true;
    return entry.state === 'requested' && (Date.now() - entry.updated_at.getTime()) / 1000 >= deps.graceSeconds;
  }

  return {
    isInDoubt,

    /**
     * A command on a request whose previous operation is in doubt: settle it now if the
     * provider can tell. 'in_doubt': it cannot yet; 'settled': the claim is resolved and the
     * caller may look again; 'busy': an operation is genuinely under way.
     */
    async settleRequest(requestId: string): Promise<'settled' | 'in_doubt' | 'busy'> {
      const open = (await ledger.forRequest(requestId)).filter(isInDoubt);
      if (open.length === 0) return 'busy';
      const count = empty();
      await settle(open, count);
      return count.unknown > 0 ? 'in_doubt' : 'settled';
    },

    async reconcile(opts: ReconcileOptions = {}) {
      const limit = opts.limit ?? 500;
      const result = empty();
      const open = await ledger.unsettled(deps.graceSeconds, limit);
      result.examined = open.length;
      await settle(open, result);

      for (const incident of await ledger.incidentsNotGivenBack(limit)) {
        const done = await giveBack(runner, incident);
        if (done) result.given_back++;
      }

      result.claims_released = await releaseStaleClaims(repos, opts.staleClaimSeconds ?? deps.graceSeconds);
      result.accounts_found = await findAccounts(ACCOUNTS_PER_RUN);

      await checkWindow(opts, result);
      return result;
    },

    /** The invariant for one request: the provider's net equals ours, and no hold is open where none should be. */
    checkRequest,

    /**
     * An operator settles an operation nobody could decide (in doubt, or asked by a process that
     * died), as done or refused, after looking at the provider's back office: through the same
     * record step as any outcome (a hold settled refused is a failed guarantee), audited with who,
     * why and what the provider showed. The provider's view is read first: a decision it
     * contradicts (done where it shows nothing or a refusal, refused where it shows the operation
     * done), or made before IN_DOUBT_ESCALATE_HOURS (reconcile may still settle it), is refused
     * unless forced. A transaction named must be one of the order's at the provider and not one
     * the ledger already accounts for. Refused too for a row that is not undecided, or a done
     * hold or refund whose transaction nobody names.
     */
    async settleByHand(s: HandSettlement): Promise<SettledByHand> {
      const entry = await ledger.find(s.ledgerId);
      if (!entry || (s.tenantId !== undefined && entry.tenant_id !== s.tenantId)) {
        throw new SettleRefused(`no operation ${s.ledgerId}`);
      }
      if (!isInDoubt(entry)) throw new SettleRefused(`operation ${s.ledgerId} is ${entry.state}, not undecided`);
      const op = operationFor(entry);
      if (!op) throw new SettleRefused(`a ${entry.kind} is never asked of the provider: nothing to settle`);
      const reason = s.reason.trim();
      if (reason === '') throw new SettleRefused('a reason is required');
      const rows = await ledger.forRequest(entry.payment_request_id);
      const order = await orderOf(entry, entry.payment_request_id);
      const verdict = order ? verdictFromOrder(entry, order, booksOf(rows)) : undefined;
      const shows = describeVerdict(verdict);
      const refuse = (why: 'young' | 'contradicts' | 'unchecked', message: string) => {
        throw new SettleRefused(`${message}; the provider shows: ${shows}`, { why, providerShows: shows });
      };
      if (s.transactionId !== undefined) {
        const known = rows.find(
          (r) =>
            r.id !== entry.id &&
            (r.provider_transaction_id === s.transactionId || r.answer_transaction_id === s.transactionId),
        );
        if (known) {
          throw new SettleRefused(`transaction ${s.transactionId} is already operation ${known.id}'s in the ledger`, {
            providerShows: shows,
          });
        }
        if (order && !order.transactions.some((t) => t.id === s.transactionId)) {
          throw new SettleRefused(`transaction ${s.transactionId} is not one of this order's at the provider`, {
            providerShows: shows,
          });
        }
        if (!order && !s.force) {
          refuse(
            'unchecked',
            `transaction ${s.transactionId} cannot be checked against the order (--force to settle anyway)`,
          );
        }
      }
      const ageSeconds = (Date.now() - entry.created_at.getTime()) / 1000;
      const escalate = deps.escalateSeconds ?? 0;
      const young = ageSeconds < escalate;
      const contradicts =
        (s.as === 'done' && (verdict?.kind === 'refused' || verdict?.kind === 'not_done')) ||
        (s.as === 'refused' && verdict?.kind === 'done');
      if (!s.force) {
        if (young) {
          refuse(
            'young',
            `operation ${s.ledgerId} is ${Math.floor(ageSeconds / 60)} minutes old: reconcile may still settle it until it is ` +
              `${Math.round(escalate / 3600)} hours old (IN_DOUBT_ESCALATE_HOURS; --force to settle it now)`,
          );
        }
        if (contradicts)
          refuse('contradicts', `settling it as ${s.as} contradicts the provider (--force to settle it so anyway)`);
      }
      const named =
        s.transactionId ??
        (verdict?.kind === 'done' ? verdict.transactionId : undefined) ??
        entry.answer_transaction_id ??
        undefined;
      const creates = entry.kind === 'hold' || entry.kind === 'refund';
      const transactionId = creates ? named : (entry.provider_transaction_id ?? named);
      if (s.as === 'done' && !transactionId) {
        throw new SettleRefused(`a ${entry.kind} settled as done needs the provider's transaction id (--transaction)`, {
          providerShows: shows,
        });
      }
      const who = s.by.username ?? 'the command line';
      const why = `settled by hand as ${s.as} by ${who}: ${reason}`;
      const won = await runner.record(op, [
        s.as === 'done'
          ? { entry, outcome: 'succeeded', transactionId: transactionId as string, settledBy: who }
          : { entry, outcome: 'refused', error: why, settledBy: who },
      ]);
      if (won.length === 0) throw new SettleRefused(`operation ${s.ledgerId} was settled meanwhile`);
      const forced = young || contradicts;
      await repos.audit.record({
        username: s.by.username,
        tenantId: entry.tenant_id,
        ip: s.by.ip,
        action: 'ledger.settle',
        target: entry.id,
        paymentRequestId: entry.payment_request_id,
        outcome: 'ok',
        detail: {
          kind: entry.kind,
          amount: entry.amount,
          as: s.as,
          reason,
          transaction_id: transactionId ?? null,
          provider_shows: shows,
          ...(forced ? { forced: true } : {}),
        },
      });
      return { row: (await ledger.find(entry.id)) as LedgerEntry, providerShows: shows, forced };
    },
  };

  /**
   * Gives rows written before accounts were recorded the account that made their transaction:
   * each account the tenant has had with that provider is asked for the order, and the row
   * takes the one account whose view shows its transaction. None, or more than one: the row
   * stays as it is (read with the current account), asked again a day later. Never guessed.
   */
  async function findAccounts(limit: number): Promise<number> {
    let found = 0;
    const views = new Map<string, ProviderOrder | undefined>();
    for (const row of await ledger.withoutAccount(limit)) {
      const txn = row.provider_transaction_id ?? row.answer_transaction_id;
      const showing: number[] = [];
      for (const version of row.versions) {
        const key = `${row.payment_request_id}:${version}`;
        if (!views.has(key)) {
          views.set(key, await orderOf({ ...row, provider_account: version }, row.payment_request_id));
        }
        if (views.get(key)?.transactions.some((t) => t.id === txn)) showing.push(version);
      }
      const [only] = showing;
      if (showing.length === 1 && only !== undefined) {
        await ledger.setAccount(row.id, only);
        found++;
      }
    }
    return found;
  }

  /**
   * Checks the window's requests a page at a time, in request id order, striking each page off
   * once checked: the window opened by this run, or the one an earlier run left unfinished (its
   * page cap, or it died and its lease ran out). A window held by a live run is left to it.
   */
  async function checkWindow(opts: ReconcileOptions, result: ReconcileResult): Promise<void> {
    const since = opts.checkSince ?? new Date(Date.now() - 24 * 3600 * 1000);
    const taken = await repos.reconcileCheck.take(since, CHECK_LEASE_SECONDS);
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
        const ids = await repos.reconcileCheck.page(after, size);
        if (ids.length === 0) break;
        for (const id of ids) {
          const { mismatch, stray, lastId, status } = await inspect(id);
          if (mismatch) result.mismatches.push(mismatch);
          if (stray.length > 0 && lastId) {
            result.given_back += await giveBackStrayHolds(id, stray, { lastId, status: status ?? null });
          }
        }
        const stillLeft = await repos.reconcileCheck.strike(taken.lease, ids, CHECK_LEASE_SECONDS);
        // The lease ran out meanwhile and another run carries on: these checks stand, the rest is theirs.
        if (stillLeft === undefined) return;
        left = stillLeft;
        after = ids[ids.length - 1];
      }
    } finally {
      result.touched = taken.touched;
      result.checked = taken.touched - left;
      result.check_complete = left === 0;
      await repos.reconcileCheck.letGo(taken.lease);
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

  /**
   * Gives back holds open at the provider that no request owns (a second hold landing late, a
   * hold left open on a request that ended): each recorded as misplaced money (an incident on
   * the request, in its history) and cancelled through the money runner, as money that arrived
   * where it should not. A hold already recorded so is not recorded twice; nothing is done if
   * anything moved on the request since its ledger was read (`lastId`): a hold being placed
   * right then has its ledger row open, and is never taken for a stray one.
   */
  async function giveBackStrayHolds(
    requestId: string,
    stray: readonly ProviderTransaction[],
    seen: { lastId: string; status: Status | null },
  ): Promise<number> {
    let given = 0;
    const entries = await ledger.forRequest(requestId);
    const first = entries[0];
    if (!first) return 0;
    for (const hold of stray) {
      const reason = `a hold open at the provider that the request does not own (${hold.id})`;
      const incident = await deps.db.transaction(async (tx) => {
        if (!(await ledger.quietSince(tx, requestId, seen.lastId))) return undefined;
        if (await ledger.hasRecordedHold(tx, requestId, hold.id)) return undefined;
        const ledgerId = await ledger.recordReported(tx, {
          paymentRequestId: requestId,
          tenantId: first.tenant_id,
          kind: 'hold',
          amount: hold.amount,
          currency: hold.currency,
          provider: first.provider,
          providerTransactionId: hold.id,
          idempotencyKey: `stray-hold:${requestId}:${hold.id}`,
          incident: reason,
          actor: { source: 'job', actor: 'reconcile' },
          ...(typeof hold.account === 'number' ? { providerAccount: hold.account } : {}),
        });
        await recordIncident(tx, {
          paymentRequestId: requestId,
          tenantId: first.tenant_id,
          status: seen.status,
          actor: { source: 'job', actor: 'reconcile' },
          ledgerId,
          detail: { incident: reason, transaction_id: hold.id, amount: hold.amount },
        });
        return ledger.find(ledgerId, tx);
      });
      if (incident && (await giveBack(runner, incident))) given++;
    }
    return given;
  }
}
export type Reconciler = ReturnType<typeof reconciler>;

/** The give-back of one incident, through the runner; true when the provider did it. */
export async function giveBack(runner: MoneyRunner, incident: LedgerEntry): Promise<boolean> {
  const kind = incident.kind === 'payment' ? 'refund' : 'void';
  const key = `giveback:${incident.id}:${Date.now()}`;
  const call = {
    orderId: incident.payment_request_id,
    reference: incident.payment_request_id,
    // The ledger's currency is the request's, checked when the row was written.
    currency: incident.currency as Currency,
    idempotencyKey: key,
    transactionId: incident.provider_transaction_id ?? '',
  };
  let results: Awaited<ReturnType<MoneyRunner['run']>>;
  try {
    results = await runner.run(giveBackOperation, [
      {
        entry: {
          paymentRequestId: incident.payment_request_id,
          tenantId: incident.tenant_id,
          kind,
          amount: kind === 'refund' ? incident.amount : 0,
          currency: incident.currency,
          provider: incident.provider,
          providerTransactionId: incident.provider_transaction_id,
          idempotencyKey: key,
          incident: incident.incident,
          parentId: incident.id,
          actor: { source: 'job', actor: 'give-back' },
        },
        call: (p) => (kind === 'refund' ? p.refund({ ...call, amountCents: incident.amount }) : p.void(call)),
      },
    ]);
  } catch (err) {
    // Another give-back of this incident is under way (the unique guard): it is theirs.
    if (pgCode(err) === PG.uniqueViolation) return false;
    throw err;
  }
  return results[0]?.outcome === 'succeeded';
}

/**
 * Claims with no open ledger row, older than `seconds`: their process died (or stalled) before
 * asking the provider anything (the ledger row is written before every call), so nothing moved.
 * A stalled holder that wakes up finds its claim's token gone: it writes nothing, sends nothing.
 */
async function releaseStaleClaims(repos: Repositories, seconds: number): Promise<number> {
  return repos.paymentRequests.releaseStaleClaims(seconds, 500);
}
