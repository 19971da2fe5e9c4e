import { type Status, targetOf } from '../domain/index.js';
import type { ProviderTransactionState } from '../providers/index.js';

export type MoneyAction = 'capture' | 'release' | 'refund';

/** What a money command records once the provider did it: the status and amounts. */
export interface MoneyPlan {
  cents: number;
  to: Status;
  changes: { amountCaptured?: number; amountRefunded?: number };
}

export type ProviderOutcome = { done: MoneyPlan } | 'not_done' | 'unknown';

/**
 * Whether `action` happened, by the provider's own view of the transaction: for an answer that
 * was lost, or a claim whose process died. 'not_done' means it is safe to give the claim back;
 * 'unknown' means nobody can tell yet and the claim stays for an operator.
 */
export function outcomeFromProvider(
  action: MoneyAction,
  row: { status: Status; amount_captured: number; amount_refunded: number },
  state: ProviderTransactionState | undefined,
): ProviderOutcome {
  if (!state) return 'unknown';
  if (action === 'capture') {
    if (state.status === 'captured' || state.status === 'refunded') {
      return {
        done: { cents: state.capturedCents, to: targetOf('capture'), changes: { amountCaptured: state.capturedCents } },
      };
    }
    return state.status === 'authorised' ? 'not_done' : 'unknown';
  }
  if (action === 'release') {
    if (state.status === 'cancelled') return { done: { cents: 0, to: targetOf('release'), changes: {} } };
    return state.status === 'authorised' ? 'not_done' : 'unknown';
  }
  if (state.refundedCents > row.amount_refunded) {
    const to = state.refundedCents >= row.amount_captured ? targetOf('refund') : row.status;
    return {
      done: { cents: state.refundedCents - row.amount_refunded, to, changes: { amountRefunded: state.refundedCents } },
    };
  }
  return state.refundedCents === row.amount_refunded ? 'not_done' : 'unknown';
}
