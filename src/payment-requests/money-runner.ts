import { randomUUID } from 'node:crypto';
import type {
  Database,
  HoldTerms,
  LedgerEntry,
  MoneyLedgerRepository,
  NewLedgerEntry,
  Queryable,
  RequestedRow,
} from '../db/index.ts';
import {
  AccountGone,
  type MoneyAnswer,
  type PaymentProvider,
  type ProviderAnswer,
  ProviderError,
  type ProviderRegistry,
  ProviderTimeout,
  type TenantProviders,
} from '../providers/index.ts';
import { SealedValueError } from '../secrets/index.ts';

/** What a settled ledger row carries into its operation's record step. */
export type EntryFacts = Pick<
  LedgerEntry,
  | 'id'
  | 'payment_request_id'
  | 'tenant_id'
  | 'kind'
  | 'amount'
  | 'currency'
  | 'provider'
  | 'provider_transaction_id'
  | 'incident'
  | 'parent_id'
  | 'source'
  | 'actor'
  | 'claim_token'
  | 'reason'
  | 'reason_note'
>;

/**
 * The outcome of one operation. refused: the provider said no; failed: it failed or was not
 * reached, and said nothing moved; in_doubt: nobody knows yet. `status` and `answer`: what the
 * provider said of the transaction, stored with the ledger row.
 */
export type Settled = (
  | {
      entry: EntryFacts;
      outcome: 'succeeded';
      transactionId: string;
      status?: string;
      /** When the provider made the transaction, where its view said (a hold's end counts from it). */
      placedAt?: Date;
      /** The transaction's short number, where the answer gave one (kept with the ledger row). */
      legacyTransId?: string;
      /** A hold's end as the provider stated it (Stripe's `capture_before`), where it did. */
      holdEndsAt?: Date;
    }
  | { entry: EntryFacts; outcome: 'refused' | 'failed' | 'in_doubt'; error: string; answer?: ProviderAnswer }
) & {
  /** A person's decision (`books settle`), not the provider's answer: who made it. */
  settledBy?: string;
};

/** One move to make: its ledger row, and the provider call that makes it. */
export interface MoneyMove {
  entry: NewLedgerEntry;
  call(provider: PaymentProvider): Promise<MoneyAnswer>;
}

/**
 * A money operation (capture, release, refund, hold, give-back): what its outcome does to the
 * request. `record` runs in the transaction that settles the ledger rows, for the rows this
 * settlement won: status changes through the one status-change function, claims given back.
 */
export interface MoneyOperation {
  readonly name: string;
  record(tx: Queryable, settled: readonly Settled[]): Promise<void>;
  /** An operation that places holds: how a placed one counts its end, written with its ledger row's outcome. */
  holdTerms?(s: Settled & { outcome: 'succeeded' }): HoldTerms;
}

/** duplicate: its key is already in the ledger, someone else's to finish; not_claimed: the claim step lost its row. */
export type RunResult = Settled | { entry: NewLedgerEntry; outcome: 'duplicate' | 'not_claimed' };

/**
 * Claims the moves' requests inside the transaction that writes their ledger rows, so a claim
 * never exists without its row, nor a row without its claim; answers the request ids it won.
 * `token` is the claim's: written on the claimed rows, and recorded on the ledger rows.
 */
export type ClaimStep = (tx: Queryable, token: string) => Promise<ReadonlySet<string>>;

export interface RunnerDeps {
  db: Database;
  ledger: MoneyLedgerRepository;
  providers: ProviderRegistry;
  log?: { warn(obj: object, msg: string): void };
  /**
   * How long after writing its ledger row a move may still start its provider call: the
   * in-doubt grace less the longest a call can last, so that reconcile, which believes the
   * provider's "not there" only once the grace has passed since the row was written, never
   * does so while the call can still land. A move whose turn comes later (it waited behind
   * other calls, or its process stalled) is not sent: it fails, nothing moved.
   */
  callWindowMs?: number;
  /** The runner's clock, in ms (tests move it). */
  now?: () => number;
}

function facts(id: string, e: NewLedgerEntry): EntryFacts {
  return {
    id,
    payment_request_id: e.paymentRequestId,
    tenant_id: e.tenantId,
    kind: e.kind,
    amount: e.amount,
    currency: e.currency,
    provider: e.provider,
    provider_transaction_id: e.providerTransactionId,
    incident: e.incident ?? null,
    parent_id: e.parentId ?? null,
    source: e.actor.source,
    actor: e.actor.actor,
    claim_token: e.claimToken ?? null,
    reason: e.reason ?? null,
    reason_note: e.reasonNote ?? null,
  };
}

function outcomeOf(err: unknown): 'refused' | 'failed' | 'in_doubt' {
  if (err instanceof ProviderError) {
    if (err.kind === 'refused') return 'refused';
    if (err.kind === 'technical' || err.kind === 'unavailable') return 'failed';
  }
  // A card token whose key is not configured (or that its key does not open) fails while the
  // call is being made, before anything is sent: nothing moved, the claim is given back, and
  // the ledger row's error names the key id. Not in doubt: no provider ever saw it.
  if (err instanceof SealedValueError) return 'failed';
  // A timeout, a lost answer, or an error we cannot read: the call may have happened.
  return 'in_doubt';
}

function succeeded(entry: EntryFacts, answer: MoneyAnswer): Settled {
  return {
    entry,
    outcome: 'succeeded',
    transactionId: answer.transactionId,
    ...(answer.status ? { status: answer.status } : {}),
    ...(answer.legacyTransId ? { legacyTransId: answer.legacyTransId } : {}),
    ...(answer.holdEndsAt ? { holdEndsAt: answer.holdEndsAt } : {}),
  };
}

/** A call that threw: its outcome, and what the provider's answer named, where it named something. */
function failure(entry: EntryFacts, err: unknown): Settled {
  return {
    entry,
    outcome: outcomeOf(err),
    error: err instanceof Error ? err.message : String(err),
    ...(err instanceof ProviderError && err.answer ? { answer: err.answer } : {}),
  };
}

/**
 * The one path of every money move, whoever asks (the API, the back office, the daily job,
 * a notification's give-back, reconcile): the caller has validated the move against the
 * transition table and claimed its rows; the runner writes each ledger row `requested`, calls
 * the provider outside any transaction with the row's idempotency key, then records every
 * outcome in one transaction. A call whose answer is lost leaves its row in doubt and its claim
 * held; its late answer, or reconcile, settles it later through the same record step.
 */
export function moneyRunner(deps: RunnerDeps) {
  const { db, ledger, providers } = deps;

  /**
   * Settles rows and records what they did; only rows still open take an outcome (one winner).
   * An answer that finds its row settled already is dropped, unless a person settled it by hand
   * and the provider now says otherwise: that is an incident, on the Books page and in the audit.
   */
  async function record(op: MoneyOperation, settled: readonly Settled[]): Promise<Settled[]> {
    if (settled.length === 0) return [];
    return db.transaction(async (tx) => {
      const outcomes = settled.map((s) => ({
        ...(s.outcome === 'succeeded'
          ? {
              id: s.entry.id,
              state: 'succeeded' as const,
              transactionId: s.transactionId,
              status: s.status,
              legacyTransId: s.legacyTransId,
              ...(op.holdTerms ? { hold: op.holdTerms(s) } : {}),
            }
          : { id: s.entry.id, state: s.outcome, error: s.error, answer: s.answer }),
        ...(s.settledBy ? { settledBy: s.settledBy } : {}),
      }));
      const took = await ledger.settle(tx, outcomes);
      const won = settled.filter((s) => took.has(s.entry.id));
      await op.record(tx, won);
      const late = outcomes.filter((o) => !took.has(o.id) && !settled.find((s) => s.entry.id === o.id)?.settledBy);
      if (late.length > 0) {
        for (const c of await ledger.contradictedByHand(tx, late)) {
          await ledger.recordContradiction(tx, c);
          deps.log?.warn(c, 'a late answer contradicts a settlement made by hand: an incident');
        }
      }
      return won;
    });
  }

  /** A late answer to a call that timed out: recorded if nothing settled the row meanwhile. */
  function watchLate(op: MoneyOperation, entry: EntryFacts, late: Promise<MoneyAnswer>): void {
    late
      .then(
        (answer) => record(op, [succeeded(entry, answer)]),
        (err) => {
          const s = failure(entry, err);
          if (s.outcome === 'in_doubt') return undefined;
          return record(op, [s]);
        },
      )
      .catch((err: unknown) =>
        deps.log?.warn({ err: (err as Error).message, ledger: entry.id }, 'late answer not recorded'),
      );
  }

  /** Each move's tenant's provider, read once for the whole group; a failed read fails every move. */
  async function providersOf(moves: readonly MoneyMove[]): Promise<TenantProviders> {
    const tenants = [...new Set(moves.map((m) => m.entry.tenantId))];
    try {
      return await providers.forTenants(tenants);
    } catch (err) {
      const failed = new ProviderError('unavailable', err instanceof Error ? err.message : String(err));
      return new Map(tenants.map((t) => [t, failed]));
    }
  }

  /**
   * Each move's ledger row (undefined: not written), and the requests whose claim it holds,
   * when claims are at stake. With `claim`, the claim and the rows are one transaction, under a
   * token new for this run. Without, a move claimed earlier (a command's: its entry carries its
   * claim's token) gets its row only while its request still holds that token.
   */
  async function requestRows(
    moves: readonly MoneyMove[],
    claim?: ClaimStep,
  ): Promise<{ ids: (RequestedRow | undefined)[]; won?: ReadonlySet<string>; token?: string }> {
    if (!claim) {
      if (!moves.some((m) => m.entry.claimToken)) return { ids: await ledger.request(moves.map((m) => m.entry)) };
      const rows = await ledger.requestFenced(moves.map((m) => m.entry));
      const held = new Set(moves.filter((_, i) => rows[i]?.held).map((m) => m.entry.paymentRequestId));
      return { ids: rows.map((r) => r.row), won: held };
    }
    const token = randomUUID();
    return db.transaction(async (tx) => {
      const won = await claim(tx, token);
      const mine = moves.filter((m) => won.has(m.entry.paymentRequestId));
      const ids = await ledger.request(
        mine.map((m) => ({ ...m.entry, claimToken: token })),
        tx,
      );
      const byMove = new Map(mine.map((m, i) => [m, ids[i]]));
      return { ids: moves.map((m) => byMove.get(m)), won, token };
    });
  }

  /**
   * The provider of the account the row recorded: the one read beside the ledger write, unless
   * the row names another (the account that made the transaction the move acts on, after an
   * account switch; or the tenant switched between the two reads): that one, by its version.
   */
  async function accountOf(
    byTenant: TenantProviders,
    e: NewLedgerEntry,
    row: RequestedRow,
  ): Promise<PaymentProvider | ProviderError | undefined> {
    const got = byTenant.get(e.tenantId);
    if (!got || got instanceof ProviderError) return got;
    if (got.account === row.account) return got.provider;
    try {
      return await providers.forAccount(e.tenantId, e.provider, row.account);
    } catch (err) {
      return err instanceof ProviderError ? err : new ProviderError('unavailable', String(err));
    }
  }

  /**
   * Runs the moves, `concurrency` provider calls at once. With `claim`, the claim and the
   * ledger rows are one transaction, and a move whose row the claim lost is `not_claimed`;
   * a move claimed earlier whose claim its request no longer holds is `not_claimed` too, and
   * is never sent.
   */
  async function run(
    op: MoneyOperation,
    moves: readonly MoneyMove[],
    concurrency = 1,
    claim?: ClaimStep,
  ): Promise<RunResult[]> {
    const now = deps.now ?? Date.now;
    // Taken before the rows are written: the grace of each row counts from a later instant.
    const written = now();
    // The providers are read beside the ledger write, not after it: one round trip less per group.
    const [{ ids, won, token }, byTenant] = await Promise.all([requestRows(moves, claim), providersOf(moves)]);
    const results: RunResult[] = moves.map((m) => ({
      entry: m.entry,
      outcome: won && !won.has(m.entry.paymentRequestId) ? ('not_claimed' as const) : ('duplicate' as const),
    }));
    const settled: Settled[] = [];
    let next = 0;
    const worker = async () => {
      while (next < moves.length) {
        const i = next++;
        const move = moves[i] as MoneyMove;
        const row = ids[i];
        // The same key is already in the ledger: that operation is someone else's to finish.
        if (row === undefined) continue;
        const entry = facts(row.id, token ? { ...move.entry, claimToken: token } : move.entry);
        let s: Settled;
        const provider = await accountOf(byTenant, move.entry, row);
        if (provider instanceof AccountGone && move.entry.kind === 'hold') {
          // The card was registered on an account the hotel no longer has: no hold can ever be
          // placed with it. A failed guarantee, so the guest is asked to register the card again.
          s = {
            entry,
            outcome: 'refused',
            error: `the card was registered on an account this hotel no longer has (${provider.message}): the guest must register it again`,
          };
          settled.push(s);
          results[i] = s;
          continue;
        }
        if (!provider || provider instanceof ProviderError) {
          // No provider to ask (an account removed, say): nothing was sent, nothing moved.
          s = { entry, outcome: 'failed', error: provider?.message ?? 'no provider' };
          settled.push(s);
          results[i] = s;
          continue;
        }
        if (deps.callWindowMs !== undefined && now() - written > deps.callWindowMs) {
          // Too late to start: reconcile may already have believed "not there" and freed the
          // claim; a call now could land after that. Nothing is sent.
          s = { entry, outcome: 'failed', error: `not sent: its turn came ${now() - written} ms after its row` };
          settled.push(s);
          results[i] = s;
          continue;
        }
        try {
          s = succeeded(entry, await move.call(provider));
        } catch (err) {
          s = failure(entry, err);
          if (err instanceof ProviderTimeout) watchLate(op, entry, err.late);
        }
        settled.push(s);
        results[i] = s;
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, moves.length)) }, worker));
    await record(op, settled);
    return results;
  }

  return { run, record };
}
export type MoneyRunner = ReturnType<typeof moneyRunner>;
