import type { StatusChange } from '../db/index.ts';
import type { DeclineReason, Status } from '../domain/index.ts';
import { actorOf, onTestClock, type Settled } from '../payment-requests/index.ts';
import { declineReasonOf } from '../providers/index.ts';

export type RefusedHold = Extract<Settled, { outcome: 'refused' | 'failed' | 'in_doubt' }>;

/** The reason of a refused hold, on payreq's list, from the code the provider's answer gave. */
export function refusedHoldReason(s: RefusedHold): DeclineReason {
  return declineReasonOf(s.entry.provider, s.answer?.declineCode ?? null);
}

/**
 * A refused hold (the first one or a renewal) as the change that records it: the bank's reason
 * and code in the history and on the request, and the guarantee failed unless the refusal is one
 * the next run may try again. The first hold and the renewal differ only in the move and in
 * whether it failed: one record, so the two can never tell a refusal differently.
 */
export function refusedHoldChange(
  s: RefusedHold,
  move: { from: readonly Status[]; to: Status; guaranteeFailed: boolean },
  at: Date | undefined,
): StatusChange {
  const reason = refusedHoldReason(s);
  const code = s.answer?.declineCode ?? null;
  return {
    id: s.entry.payment_request_id,
    from: move.from,
    to: move.to,
    claim: 'hold',
    token: s.entry.claim_token,
    actor: actorOf(s.entry),
    ledgerId: s.entry.id,
    ...onTestClock(s, at),
    detail: { reason: s.error, decline_reason: reason, decline_code: code },
    set: {
      holdError: s.error,
      holdDeclined: { reason, code },
      ...(move.guaranteeFailed ? { guaranteeFailed: true as const } : {}),
    },
  };
}
