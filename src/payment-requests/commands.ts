import { createHash, randomUUID } from 'node:crypto';
import {
  applyStatusChanges,
  type ClaimedRow,
  type CreateKey,
  type Database,
  deleteRequest,
  type LedgerEntry,
  type Repositories,
  releaseClaims,
} from '../db/index.ts';
import {
  type Actor,
  allowedFrom,
  type CreatePaymentRequestInput,
  DELETABLE_STATUSES,
  errors,
  type InDoubtOperation,
  isTerminal,
  type MoveReason,
  NO_REASON,
  planRefund,
  type Status,
  type Trigger,
  targetOf,
  toMinorUnits,
  validateCreate,
  whyNotDeletable,
  yearIn,
} from '../domain/index.ts';
import type { MoneyAnswer, PaymentProvider, TransactionCall } from '../providers/index.ts';
import type { MoneyOperation, MoneyRunner, RunResult } from './money-runner.ts';
import { captureOperation } from './operations/capture.ts';
import { refundOperation } from './operations/refund.ts';
import { releaseOperation } from './operations/release.ts';

export interface TenantContext {
  tenantId: string;
  timezone: string;
  linkLifetimeDays: number;
  /** The tenant's `confirmation_email`: the service e-mails the guest the payment link. */
  confirmationEmail?: boolean;
}

export interface ActionOutcome {
  uuid: string;
  reference: string;
  status: Status;
}

/** What commands need of the money audit: whether a row is undecided, and settling its request now. */
export interface InDoubtSettler {
  isInDoubt(entry: Pick<LedgerEntry, 'state' | 'updated_at'>): boolean;
  settleRequest(requestId: string): Promise<'settled' | 'in_doubt' | 'busy'>;
}

export interface CommandDeps {
  db: Database;
  repos: Repositories;
  runner: MoneyRunner;
  /** The money audit's settling of an operation in doubt, before a command acts on its request. */
  reconciler: InDoubtSettler;
}

type MoneyAction = 'capture' | 'release' | 'refund';

const OPERATIONS: Record<MoneyAction, MoneyOperation> = {
  capture: captureOperation,
  release: releaseOperation,
  refund: refundOperation,
};

/** Ours, new for each operation: the provider does an operation once per key. */
export function operationKey(action: string): string {
  return `${action}:${randomUUID()}`;
}

/**
 * What the caller may add to a money command: its own Idempotency-Key. A retry under the same
 * key is the same operation: it never calls the provider for a second one, and answers what
 * the first did once that is known.
 */
export interface MoneyOptions {
  retryKey?: string;
  /** Why the hotel moves the money (a capture, a refund): recorded with the move; none: none given. */
  why?: MoveReason;
}

function ledgerKey(t: TenantContext, id: string, action: MoneyAction, opts: MoneyOptions): string {
  if (!opts.retryKey) return operationKey(action);
  const digest = createHash('sha256').update(opts.retryKey).digest('hex').slice(0, 32);
  return `api:${t.tenantId}:${action}:${id}:${digest}`;
}

/**
 * The commands on a payment request, shared by the API, the back office and the jobs. Every
 * status move goes through the transition table and the one status-change function; every
 * money move goes through the money runner: claim the row (one winner), ledger row, provider
 * call outside any transaction, outcome recorded with its history.
 */
export function paymentRequestCommands(deps: CommandDeps, now: () => Date = () => new Date()) {
  const { db, repos, runner, reconciler } = deps;
  const requests = repos.paymentRequests;
  const createOptions = (t: TenantContext, actor: Actor) => ({
    year: yearIn(t.timezone, now()),
    linkLifetimeDays: t.linkLifetimeDays,
    actor,
    emailLink: t.confirmationEmail ?? false,
  });

  /**
   * What holds a claimed request, for the 409: the claim's operation when nobody knows its
   * outcome (undefined while its call is simply under way).
   */
  async function inDoubtOn(id: string, pending: string): Promise<InDoubtOperation | undefined> {
    const open = (await repos.ledger.forRequest(id))
      .filter((e) => e.kind === pending && reconciler.isInDoubt(e))
      .at(-1);
    if (!open) return undefined;
    return {
      action: open.kind,
      ...(open.amount > 0 ? { amount: open.amount / 100 } : {}),
      currency: open.currency,
      requested_at: new Date(open.created_at).toISOString(),
    };
  }

  /**
   * A request claimed by another operation: settled now if the provider can tell (the caller
   * may look again), or 409 operation_in_progress naming what is in doubt. Never a 504: this
   * call is not the operation in doubt (a retry of that one is answered by `earlier`), and
   * nothing was sent for it.
   */
  async function busy(id: string, pending: string): Promise<void> {
    if ((await reconciler.settleRequest(id)) === 'settled') return;
    throw errors.operationInProgress(pending, await inDoubtOn(id, pending));
  }

  /** Why a conditional update touched nothing: gone, busy, or in a status the table forbids. */
  async function explainMiss(tenantId: string, id: string, action: string, trigger: Trigger): Promise<void> {
    const row = await requests.find(tenantId, id);
    if (!row) throw errors.notFound(id);
    if (row.pending_action) return busy(id, row.pending_action);
    throw errors.invalidStatus(action, row.status, allowedFrom(trigger, row.request_type));
  }

  /**
   * Claims the row for `action`, or answers what an earlier call under the same key did: the
   * claimed row (with its claim's token, new for this call), or the outcome already known.
   */
  async function claim(
    t: TenantContext,
    id: string,
    action: MoneyAction,
    key: string,
  ): Promise<ClaimedRow | ActionOutcome> {
    // The same key again (a double submission, a retry) is the same operation: once it is
    // known to have happened, answer it, even where the status would allow another (a partial
    // refund keeps CAPTURED).
    const done = await earlier(t, id, key);
    if (done) return done;
    for (let attempt = 0; attempt < 2; attempt++) {
      const row = await requests.claim(t.tenantId, id, allowedFrom(action), action, randomUUID());
      if (row) return row;
      const known = await earlier(t, id, key);
      if (known) return known;
      await explainMiss(t.tenantId, id, action, action);
    }
    // Settled twice and claimed by another each time: whoever holds it now.
    const row = await requests.find(t.tenantId, id);
    throw errors.operationInProgress(row?.pending_action ?? action);
  }

  /**
   * The outcome of this key's earlier operation, when it happened. Still unknown: 504 again,
   * for this is that operation's retry; still under way: 409.
   */
  async function earlier(t: TenantContext, id: string, key: string): Promise<ActionOutcome | undefined> {
    let prior = await repos.ledger.findByKey(key);
    if (!prior || prior.payment_request_id !== id) return undefined;
    if (reconciler.isInDoubt(prior)) {
      await reconciler.settleRequest(id);
      prior = await repos.ledger.findByKey(key);
    }
    if (prior && reconciler.isInDoubt(prior)) throw errors.outcomeUnknown();
    if (prior?.state === 'requested') throw errors.operationInProgress(prior.kind);
    if (prior?.state !== 'succeeded') return undefined;
    const row = await requests.find(t.tenantId, id);
    if (!row) throw errors.notFound(id);
    return { uuid: id, reference: row.reference, status: row.status };
  }

  /**
   * A claimed row's move through the runner, under its claim's token: its ledger row is written
   * only while the request still holds the claim, and the provider is called only then.
   */
  async function runMove(
    row: ClaimedRow,
    action: MoneyAction,
    key: string,
    cents: number,
    actor: Actor,
    call: (provider: PaymentProvider, c: TransactionCall) => Promise<MoneyAnswer>,
    why: MoveReason = NO_REASON,
  ): Promise<ActionOutcome> {
    const target = row.provider_transaction_id ?? '';
    const [result] = await runner.run(OPERATIONS[action], [
      {
        entry: {
          paymentRequestId: row.id,
          tenantId: row.tenant_id,
          kind: action,
          amount: cents,
          currency: row.currency,
          provider: row.provider ?? 'sandbox',
          providerTransactionId: row.provider_transaction_id,
          idempotencyKey: key,
          actor,
          claimToken: row.claim_token,
          reason: why.reason,
          reasonNote: why.note,
        },
        call: (provider) =>
          call(provider, {
            orderId: row.id,
            reference: row.reference,
            currency: row.currency,
            idempotencyKey: key,
            transactionId: target,
          }),
      },
    ]);
    return answerFor(row, result);
  }

  async function answerFor(row: ClaimedRow, result: RunResult | undefined): Promise<ActionOutcome> {
    if (!result || result.outcome === 'duplicate') {
      // Another call under the same key got there first: this claim is not the one that counts.
      if (row.pending_action) {
        await releaseClaims(db, [{ id: row.id, claim: row.pending_action, token: row.claim_token }]);
      }
      throw errors.operationInProgress(row.pending_action ?? 'money');
    }
    // The claim was freed (its holder stalled past the stale-claim grace) and may be another's
    // now: nothing was written or sent for this call.
    if (result.outcome === 'not_claimed') throw errors.operationInProgress(row.pending_action ?? 'money');
    if (result.outcome === 'refused') throw errors.providerRefused(result.error);
    if (result.outcome === 'failed') throw errors.providerUnavailable();
    if (result.outcome === 'in_doubt') throw errors.outcomeUnknown();
    const after = await requests.find(row.tenant_id, row.id);
    if (!after) throw errors.notFound(row.id);
    return { uuid: row.id, reference: after.reference, status: after.status };
  }

  /** Gives the claim back when the move is refused before the provider is asked. */
  async function refuseBeforeCall(row: ClaimedRow, action: MoneyAction, err: unknown): Promise<never> {
    await releaseClaims(db, [{ id: row.id, claim: action, token: row.claim_token }]);
    throw err;
  }

  function requestedCents(amount: number | undefined): number | undefined {
    if (amount === undefined) return undefined;
    const cents = toMinorUnits(amount);
    if (cents === undefined || cents <= 0) {
      throw errors.validation([{ field: 'amount', message: 'must be above 0 with at most two decimals' }]);
    }
    return cents;
  }

  return {
    async create(t: TenantContext, input: CreatePaymentRequestInput, actor: Actor) {
      const created = await requests.create(t.tenantId, validateCreate(input), createOptions(t, actor));
      // Only a key can stop the statement from creating: without one, no row is a bug.
      if (!created) throw new Error('the create statement created nothing without an Idempotency-Key');
      return { uuid: created.id, reference: created.reference, status: 'NOT_INITIATED' as const };
    },

    /**
     * Creates the request and stores its Idempotency-Key with it, in one statement (CREATE_SQL, or
     * CREATE_MANY_SQL with the creates made at the same time).
     * `key` is given the new request's uuid and tells what to store. Undefined: the key was not
     * free, nothing was created. `response` is the stored body, to send as it is.
     */
    async createWithKey(
      t: TenantContext,
      input: CreatePaymentRequestInput,
      actor: Actor,
      key: (uuid: string) => CreateKey,
    ): Promise<{ uuid: string; reference: string; response: string } | undefined> {
      const created = await requests.create(t.tenantId, validateCreate(input), createOptions(t, actor), key);
      if (!created) return undefined;
      if (created.response === null) throw new Error('the create statement stored no response for its key');
      return { uuid: created.id, reference: created.reference, response: created.response };
    },

    /**
     * The hotel's cancel (an open link), or with `reservation_cancelled` its system's
     * cancellation of the reservation a registered card guarantees (no hold yet).
     */
    async cancel(
      t: TenantContext,
      id: string,
      actor: Actor,
      trigger: 'cancel' | 'reservation_cancelled' = 'cancel',
    ): Promise<ActionOutcome> {
      const row = await requests.find(t.tenantId, id);
      if (!row) throw errors.notFound(id);
      const from = allowedFrom(trigger, row.request_type);
      for (let attempt = 0; ; attempt++) {
        const [moved] = await applyStatusChanges(db, [{ id, from, to: targetOf(trigger), actor }]);
        if (moved) return { uuid: id, reference: moved.reference, status: moved.status };
        const now = await requests.find(t.tenantId, id);
        if (!now) throw errors.notFound(id);
        if (isTerminal(now.status)) throw errors.cannotCancelTerminal(now.status, from);
        if (!now.pending_action) throw errors.invalidStatus('cancel', now.status, from);
        if (attempt > 0) throw errors.operationInProgress(now.pending_action);
        await busy(id, now.pending_action);
      }
    },

    /** Full capture, or partial with `amount` (currency units, 0 < amount <= held amount). */
    async capture(
      t: TenantContext,
      id: string,
      amount: number | undefined,
      actor: Actor,
      opts: MoneyOptions = {},
    ): Promise<ActionOutcome> {
      const requested = requestedCents(amount);
      const key = ledgerKey(t, id, 'capture', opts);
      const row = await claim(t, id, 'capture', key);
      if (!('tenant_id' in row)) return row;
      const cents = requested ?? row.amount;
      if (cents > row.amount) return refuseBeforeCall(row, 'capture', errors.captureAmountTooHigh(row.amount));
      return runMove(row, 'capture', key, cents, actor, (p, c) => p.capture({ ...c, amountCents: cents }), opts.why);
    },

    async release(t: TenantContext, id: string, actor: Actor, opts: MoneyOptions = {}): Promise<ActionOutcome> {
      const key = ledgerKey(t, id, 'release', opts);
      const row = await claim(t, id, 'release', key);
      if (!('tenant_id' in row)) return row;
      return runMove(row, 'release', key, 0, actor, (p, c) => p.release(c));
    },

    /**
     * Gives money back (a back-office action): all that is left, or `amount` of it. The last
     * cent back makes the request REFUNDED.
     */
    async refund(
      t: TenantContext,
      id: string,
      amount: number | undefined,
      actor: Actor,
      opts: MoneyOptions = {},
    ): Promise<ActionOutcome> {
      const requested = requestedCents(amount);
      const key = ledgerKey(t, id, 'refund', opts);
      const row = await claim(t, id, 'refund', key);
      if (!('tenant_id' in row)) return row;
      let cents: number;
      try {
        cents = planRefund(row.status, row.amount_captured, row.amount_refunded, requested).cents;
      } catch (err) {
        return refuseBeforeCall(row, 'refund', err);
      }
      return runMove(row, 'refund', key, cents, actor, (p, c) => p.refund({ ...c, amountCents: cents }), opts.why);
    },

    async delete(t: TenantContext, id: string, actor: Actor): Promise<{ reference: string }> {
      for (let attempt = 0; ; attempt++) {
        const deleted = await deleteRequest(db, { tenantId: t.tenantId, id, deletable: DELETABLE_STATUSES, actor });
        if (deleted) return deleted;
        const row = await requests.find(t.tenantId, id);
        if (!row) throw errors.notFound(id);
        if (!row.pending_action) throw errors.cannotDelete(row.status, whyNotDeletable(row.status) ?? 'not allowed');
        if (attempt > 0) throw errors.operationInProgress(row.pending_action);
        await busy(id, row.pending_action);
      }
    },
  };
}
export type PaymentRequestCommands = ReturnType<typeof paymentRequestCommands>;
