import type { LedgerEntry } from '../db/index.ts';
import { booksOf, type Verdict, verdictFromOrder } from '../payment-requests/index.ts';
import type { AuditDeps } from './audit-deps.ts';
import { operationFor } from './operation-for.ts';
import type { OrderViews } from './order-views.ts';

/**
 * A hand settlement that cannot be made: the row is not undecided, or the decision lacks
 * something, or (`forceable`) it is too young or contradicts what the provider shows now, which
 * a person may still overrule knowingly. `providerShows`: what the provider showed, in words.
 */
export class DecisionRefused extends Error {
  /** Why a person may still overrule it (`force`); undefined: no force makes it possible. */
  readonly why: 'young' | 'contradicts' | 'unchecked' | undefined;
  readonly providerShows: string | undefined;
  constructor(message: string, opts: { why?: 'young' | 'contradicts' | 'unchecked'; providerShows?: string } = {}) {
    super(message);
    this.name = 'DecisionRefused';
    this.why = opts.why;
    this.providerShows = opts.providerShows;
  }
}

/** A hand settlement made: the row as settled, and what the provider showed when it was made. */
export interface DecidedByHand {
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
export interface HandDecision {
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

/** An operator's decisions on undecided operations: `decideByHand`. */
export function handDecision(deps: AuditDeps, views: OrderViews, isInDoubt: (e: LedgerEntry) => boolean) {
  const { runner, repos } = deps;
  const ledger = repos.ledger;
  const { orderOf } = views;
  return {
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
    async decideByHand(s: HandDecision): Promise<DecidedByHand> {
      const entry = await ledger.find(s.ledgerId);
      if (!entry || (s.tenantId !== undefined && entry.tenant_id !== s.tenantId)) {
        throw new DecisionRefused(`no operation ${s.ledgerId}`);
      }
      if (!isInDoubt(entry)) throw new DecisionRefused(`operation ${s.ledgerId} is ${entry.state}, not undecided`);
      const op = operationFor(entry);
      if (!op) throw new DecisionRefused(`a ${entry.kind} is never asked of the provider: nothing to settle`);
      const reason = s.reason.trim();
      if (reason === '') throw new DecisionRefused('a reason is required');
      const rows = await ledger.forRequest(entry.payment_request_id);
      const order = await orderOf(entry, entry.payment_request_id);
      const verdict = order ? verdictFromOrder(entry, order, booksOf(rows)) : undefined;
      const shows = describeVerdict(verdict);
      const refuse = (why: 'young' | 'contradicts' | 'unchecked', message: string) => {
        throw new DecisionRefused(`${message}; the provider shows: ${shows}`, { why, providerShows: shows });
      };
      if (s.transactionId !== undefined) {
        const known = rows.find(
          (r) =>
            r.id !== entry.id &&
            (r.provider_transaction_id === s.transactionId || r.answer_transaction_id === s.transactionId),
        );
        if (known) {
          throw new DecisionRefused(`transaction ${s.transactionId} is already operation ${known.id}'s in the ledger`, {
            providerShows: shows,
          });
        }
        if (order && !order.transactions.some((t) => t.id === s.transactionId)) {
          throw new DecisionRefused(`transaction ${s.transactionId} is not one of this order's at the provider`, {
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
        throw new DecisionRefused(
          `a ${entry.kind} settled as done needs the provider's transaction id (--transaction)`,
          {
            providerShows: shows,
          },
        );
      }
      const who = s.by.username ?? 'the command line';
      const why = `settled by hand as ${s.as} by ${who}: ${reason}`;
      const won = await runner.record(op, [
        s.as === 'done'
          ? { entry, outcome: 'succeeded', transactionId: transactionId as string, settledBy: who }
          : { entry, outcome: 'refused', error: why, settledBy: who },
      ]);
      if (won.length === 0) throw new DecisionRefused(`operation ${s.ledgerId} was settled meanwhile`);
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
}
