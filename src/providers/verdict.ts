import type { ProviderOrder, ProviderTransaction } from './payment-provider.ts';

/**
 * What the provider's view says of one operation whose answer we never had, read from the
 * status of the operation's own transaction:
 * - done: it happened (`transactionId` the transaction it made or moved);
 * - refused: the bank or the provider said no, nothing moved: a final answer, no grace;
 * - not_done: nothing of it is there: believed once no call can still land;
 * - in_flight: the provider has not decided yet: wait;
 * - unknown: the view cannot tell (a status the adapter does not know, a state no rule
 *   reads): wait, and after the escalation delay an operator decides.
 */
export type Verdict =
  | { kind: 'done'; transactionId: string; status: string; createdAt?: Date; endsAt?: Date }
  | { kind: 'refused'; transactionId: string; status: string; declineCode: string | null }
  | { kind: 'not_done' }
  | { kind: 'in_flight'; why: string }
  | { kind: 'unknown'; why: string };

/** One operation of payreq's ledger, as a verdict reads it; amounts in minor units. */
export interface LedgerOperation {
  kind: 'verification' | 'payment' | 'hold' | 'capture' | 'release' | 'refund' | 'void';
  amount: number;
  idempotency_key: string;
  /** The transaction it acted on (capture, release, refund, void) or, once settled, created (hold, refund). */
  provider_transaction_id: string | null;
  /** When payreq wrote the row: a transaction created before it cannot be this operation's. */
  created_at: Date;
}

/**
 * What payreq's ledger already says of the order, beside the operation in doubt: `known`, the
 * transactions its rows account for, settled or not (a hold placed, a refund given, a refund
 * the provider refused), so an old one is not taken for this operation; `settled`, the rows
 * that succeeded.
 */
export interface LedgerBooks {
  known: ReadonlySet<string>;
  settled: readonly Omit<LedgerOperation, 'idempotency_key' | 'created_at'>[];
}

/** How one provider's order view proves that an operation happened. */
export type VerdictRule = (entry: LedgerOperation, order: ProviderOrder, books: LedgerBooks) => Verdict;

/**
 * How far the provider's clock may be behind ours: a transaction it dates this much before
 * payreq wrote the operation's row may still be that operation's.
 */
export const CLOCK_SKEW_MS = 5 * 60_000;

const done = (t: ProviderTransaction): Verdict => ({ kind: 'done', transactionId: t.id, status: t.providerStatus });
const refused = (t: ProviderTransaction): Verdict => ({
  kind: 'refused',
  transactionId: t.id,
  status: t.providerStatus,
  declineCode: t.declineCode,
});

/** The statuses that decide nothing yet, whatever the operation: wait, or an operator looks. */
function undecided(t: ProviderTransaction): Verdict | undefined {
  if (t.status === 'in_flight') return { kind: 'in_flight', why: `${t.id} is ${t.providerStatus}` };
  if (t.status === 'unknown') return { kind: 'unknown', why: `${t.id} is ${t.providerStatus}, a status not known` };
  return undefined;
}

/**
 * A hold's verdict by its own transaction: refused or failed (nothing held); open, or opened
 * then captured, released or lapsed (it was placed). A transaction the provider captures by
 * itself (a payment, not a hold) is money taken where a hold was asked: an operator decides.
 */
export function holdVerdict(t: ProviderTransaction): Verdict {
  const wait = undecided(t);
  if (wait) return wait;
  if (t.status === 'refused' || t.status === 'error') return refused(t);
  if (t.kind !== 'hold') {
    return {
      kind: 'unknown',
      why: `${t.id} is a ${t.kind} (${t.providerStatus}), not a hold: money may have been taken`,
    };
  }
  // A hold's end counts from when the provider placed it, not from when its answer is read;
  // where the provider states the end itself (Stripe), that end.
  return {
    kind: 'done',
    transactionId: t.id,
    status: t.providerStatus,
    createdAt: t.createdAt,
    ...(t.endsAt ? { endsAt: t.endsAt } : {}),
  };
}

/** A refund's verdict by its own transaction: given back, or refused, cancelled or failed (nothing given). */
export function refundVerdict(t: ProviderTransaction): Verdict {
  const wait = undecided(t);
  if (wait) return wait;
  if (t.status === 'refunded' || t.status === 'captured') return done(t);
  return refused(t);
}

/**
 * The refund transactions that may be this refund's: of its payment, of its amount, not one
 * the ledger already accounts for, and not made before the refund was asked.
 */
export function candidateRefunds(
  entry: LedgerOperation,
  order: ProviderOrder,
  known: ReadonlySet<string>,
): ProviderTransaction[] {
  const since = entry.created_at.getTime() - CLOCK_SKEW_MS;
  return order.transactions.filter(
    (t) =>
      t.kind === 'refund' &&
      t.parentId === entry.provider_transaction_id &&
      t.amount === entry.amount &&
      !known.has(t.id) &&
      t.createdAt.getTime() >= since,
  );
}

/**
 * A refund's verdict from the refund transactions that may be its own: one given back is
 * done; otherwise one still deciding waits; one refused or cancelled is its refusal.
 * Undefined: none there.
 */
export function refundFromCandidates(candidates: readonly ProviderTransaction[]): Verdict | undefined {
  const verdicts = candidates.map(refundVerdict);
  return (
    verdicts.find((v) => v.kind === 'done') ??
    verdicts.find((v) => v.kind === 'in_flight' || v.kind === 'unknown') ??
    verdicts[0]
  );
}

/**
 * The rule for a provider whose view shows each operation as its own transaction or state:
 * by the status of the transaction that carries our key where the provider keeps keys;
 * otherwise the one that matches the operation (a hold on the order, a refund of its payment
 * and amount, the target's own state for a capture, release or void).
 */
export const transactionVerdict: VerdictRule = (entry, order, { known }) => {
  const byKey = order.transactions.find((t) => t.keys.includes(entry.idempotency_key));
  const target = order.transactions.find((t) => t.id === entry.provider_transaction_id);
  switch (entry.kind) {
    case 'hold': {
      if (byKey) return holdVerdict(byKey);
      if (order.keysKept) return { kind: 'not_done' };
      // Without keys: a debit on the order made since the hold was asked, not in the books.
      const since = entry.created_at.getTime() - CLOCK_SKEW_MS;
      const verdicts = order.transactions
        .filter(
          (t) => (t.kind === 'hold' || t.kind === 'payment') && !known.has(t.id) && t.createdAt.getTime() >= since,
        )
        .map(holdVerdict);
      return (
        verdicts.find((v) => v.kind === 'done') ??
        verdicts.find((v) => v.kind === 'in_flight' || v.kind === 'unknown') ??
        verdicts[0] ?? { kind: 'not_done' }
      );
    }
    case 'refund': {
      if (byKey) return refundVerdict(byKey);
      if (order.keysKept) return { kind: 'not_done' };
      return refundFromCandidates(candidateRefunds(entry, order, known)) ?? { kind: 'not_done' };
    }
    case 'capture':
      if (order.keysKept && !byKey) return { kind: 'not_done' };
      return targetVerdict(entry, target, 'capture');
    case 'release':
    case 'void':
      if (order.keysKept && !byKey) return { kind: 'not_done' };
      return targetVerdict(entry, target, 'cancel');
    default:
      // Payments and verifications are reported by the provider, never requested by us.
      return { kind: 'unknown', why: `a ${entry.kind} is never asked of the provider` };
  }
};

/**
 * A capture, release or void by the state of the transaction it acted on: captured (at the
 * amount asked) or cancelled is done; still open is not done; refused or failed, or already
 * gone the other way (a hold cancelled or lapsed cannot be captured, one captured cannot be
 * released), is a refusal: nothing more moved.
 */
export function targetVerdict(
  entry: Pick<LedgerOperation, 'amount' | 'provider_transaction_id'>,
  target: ProviderTransaction | undefined,
  want: 'capture' | 'cancel',
): Verdict {
  if (!target)
    return { kind: 'unknown', why: `${entry.provider_transaction_id ?? 'its transaction'} is not in the order` };
  const wait = undecided(target);
  if (wait) return wait;
  const taken = target.status === 'captured' || target.status === 'refunded';
  if (want === 'capture') {
    if (taken) {
      return target.capturedAmount === entry.amount
        ? done(target)
        : { kind: 'unknown', why: `${target.id} captured ${target.capturedAmount}, not ${entry.amount}` };
    }
    if (target.status === 'authorised') return { kind: 'not_done' };
    return refused(target);
  }
  if (target.status === 'cancelled') return done(target);
  if (target.status === 'authorised' || target.status === 'accepted') return { kind: 'not_done' };
  return refused(target);
}
