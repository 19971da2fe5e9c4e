import type { Actor, CreateKey, PaymentRequestRow, Repositories } from '../db/index.js';
import {
  allowedFrom,
  type CreatePaymentRequestInput,
  DELETABLE_STATUSES,
  errors,
  isTerminal,
  planRefund,
  type Status,
  type Trigger,
  targetOf,
  toMinorUnits,
  validateCreate,
  whyNotDeletable,
  yearIn,
} from '../domain/index.js';
import { type PaymentProvider, ProviderError, type ProviderPaymentRef } from '../providers/index.js';
import { type MoneyAction, type MoneyPlan, outcomeFromProvider } from './provider-outcome.js';

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

/**
 * The commands on a payment request, shared by the API, the administration interface and the
 * jobs. Every status move goes through the transition table; every money move follows one
 * pipeline: claim the row (one winner), call the provider outside any transaction, then
 * record the outcome with its history, or give the claim back.
 */
export function paymentRequestCommands(
  repos: Repositories,
  provider: PaymentProvider,
  now: () => Date = () => new Date(),
) {
  const requests = repos.paymentRequests;
  const createOptions = (t: TenantContext, actor: Actor) => ({
    year: yearIn(t.timezone, now()),
    linkLifetimeDays: t.linkLifetimeDays,
    actor,
    emailLink: t.confirmationEmail ?? false,
  });

  /** Why a conditional update touched nothing: gone, busy, or in a status the table forbids. */
  async function explainMiss(tenantId: string, id: string, action: string, trigger: Trigger): Promise<never> {
    const row = await requests.find(tenantId, id);
    if (!row) throw errors.notFound(id);
    if (row.pending_action) throw errors.operationInProgress(row.pending_action);
    throw errors.invalidStatus(action, row.status, allowedFrom(trigger, row.request_type));
  }

  /** The plan as the provider says it happened, when it did happen despite the error. */
  async function settledAnyway(
    trigger: MoneyAction,
    row: PaymentRequestRow,
    ref: ProviderPaymentRef,
  ): Promise<MoneyPlan | undefined> {
    const outcome = outcomeFromProvider(trigger, row, await provider.getPayment(ref).catch(() => undefined));
    return typeof outcome === 'object' ? outcome.done : undefined;
  }

  async function moneyCommand(
    t: TenantContext,
    id: string,
    trigger: 'capture' | 'release' | 'refund',
    actor: Actor,
    plan: (row: PaymentRequestRow) => MoneyPlan,
  ): Promise<ActionOutcome> {
    const from = allowedFrom(trigger);
    const row = await requests.claim(t.tenantId, id, from, trigger);
    if (!row) return explainMiss(t.tenantId, id, trigger, trigger);
    const ref = {
      paymentRequestId: row.id,
      reference: row.reference,
      currency: row.currency,
      transactionId: row.provider_transaction_id,
    };
    let p: MoneyPlan | undefined;
    try {
      p = plan(row);
      if (trigger === 'capture') await provider.capture(ref, p.cents);
      else if (trigger === 'release') await provider.release(ref);
      else await provider.refund(ref, p.cents);
    } catch (err) {
      // A lost answer (timeout) or a refusal because it was already done: the provider's own
      // view settles it, so money that moved is recorded rather than forgotten.
      const settled = err instanceof ProviderError && p ? await settledAnyway(trigger, row, ref) : undefined;
      if (!settled) {
        await requests.unclaim(id, trigger);
        if (err instanceof ProviderError) {
          if (err.kind === 'refused') throw errors.providerRefused(err.message);
          throw errors.providerUnavailable();
        }
        throw err;
      }
      p = settled;
    }
    const done = await requests.completeClaim(id, trigger, p.to, p.changes, actor, {
      amount: p.cents,
      ...(p.changes.amountCaptured !== undefined ? { amount_captured: p.changes.amountCaptured } : {}),
      ...(p.changes.amountRefunded !== undefined ? { amount_refunded: p.changes.amountRefunded } : {}),
    });
    if (!done) throw new Error(`claim on ${id} for ${trigger} was lost`);
    return { uuid: id, reference: done.reference, status: done.status };
  }

  return {
    async create(t: TenantContext, input: CreatePaymentRequestInput, actor: Actor) {
      const created = await requests.create(t.tenantId, validateCreate(input), createOptions(t, actor));
      // Only a key can stop the statement from creating: without one, no row is a bug.
      if (!created) throw new Error('the create statement created nothing without an Idempotency-Key');
      return { uuid: created.id, reference: created.reference, status: 'NOT_INITIATED' as const };
    },

    /**
     * Creates the request and stores its Idempotency-Key with it, in one statement (CREATE_SQL).
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

    async cancel(t: TenantContext, id: string, actor: Actor): Promise<ActionOutcome> {
      const moved = await requests.transition(t.tenantId, id, allowedFrom('cancel'), targetOf('cancel'), actor);
      if (moved) return { uuid: id, reference: moved.reference, status: moved.status };
      const row = await requests.find(t.tenantId, id);
      if (!row) throw errors.notFound(id);
      if (isTerminal(row.status)) throw errors.cannotCancelTerminal(row.status);
      if (row.pending_action) throw errors.operationInProgress(row.pending_action);
      throw errors.invalidStatus('cancel', row.status, allowedFrom('cancel'));
    },

    /** Full capture, or partial with `amount` (currency units, 0 < amount <= held amount). */
    capture(t: TenantContext, id: string, amount: number | undefined, actor: Actor): Promise<ActionOutcome> {
      let requested: number | undefined;
      if (amount !== undefined) {
        requested = toMinorUnits(amount);
        if (requested === undefined || requested <= 0) {
          throw errors.validation([{ field: 'amount', message: 'must be above 0 with at most two decimals' }]);
        }
      }
      return moneyCommand(t, id, 'capture', actor, (row) => {
        const cents = requested ?? row.amount;
        if (cents > row.amount) throw errors.captureAmountTooHigh(row.amount);
        return { cents, to: targetOf('capture'), changes: { amountCaptured: cents } };
      });
    },

    release(t: TenantContext, id: string, actor: Actor): Promise<ActionOutcome> {
      return moneyCommand(t, id, 'release', actor, () => ({ cents: 0, to: targetOf('release'), changes: {} }));
    },

    /**
     * Gives money back (the administration interface's action, never the API's): all that is left, or
     * `amount` of it. The last cent back makes the request REFUNDED.
     */
    refund(t: TenantContext, id: string, amount: number | undefined, actor: Actor): Promise<ActionOutcome> {
      let requested: number | undefined;
      if (amount !== undefined) {
        requested = toMinorUnits(amount);
        if (requested === undefined || requested <= 0) {
          throw errors.validation([{ field: 'amount', message: 'must be above 0 with at most two decimals' }]);
        }
      }
      return moneyCommand(t, id, 'refund', actor, (row) => {
        const plan = planRefund(row.status, row.amount_captured, row.amount_refunded, requested);
        return { cents: plan.cents, to: plan.to, changes: { amountRefunded: row.amount_refunded + plan.cents } };
      });
    },

    async delete(t: TenantContext, id: string, actor: Actor): Promise<{ reference: string }> {
      const deleted = await requests.delete(t.tenantId, id, DELETABLE_STATUSES, actor);
      if (deleted) return deleted;
      const row = await requests.find(t.tenantId, id);
      if (!row) throw errors.notFound(id);
      if (row.pending_action) throw errors.operationInProgress(row.pending_action);
      throw errors.cannotDelete(row.status, whyNotDeletable(row.status) ?? 'not allowed');
    },
  };
}
export type PaymentRequestCommands = ReturnType<typeof paymentRequestCommands>;
