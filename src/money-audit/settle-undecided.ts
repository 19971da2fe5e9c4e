import type { LedgerEntry } from '../db/index.ts';
import { booksOf, type Verdict, verdictFromOrder } from '../payment-requests/index.ts';
import type { ProviderOrder } from '../providers/index.ts';
import type { AuditDeps } from './audit-deps.ts';
import { operationFor } from './operation-for.ts';
import type { OrderViews } from './order-views.ts';
import { emptyResult, type ReconcileResult } from './reconcile-result.ts';

/** The counts a settling pass keeps. */
export type SettleCount = Pick<ReconcileResult, 'settled' | 'refused' | 'not_done' | 'unknown'>;

/**
 * The janitor's first job: deciding operations nobody knows the outcome of (in doubt, or asked
 * by a process that died) by the provider's view of their order, through each operation's own
 * record step, as if its answer had come.
 */
export function undecidedOperations(deps: AuditDeps, views: OrderViews) {
  const { runner } = deps;
  const ledger = deps.repos.ledger;
  const { orderOf } = views;

  /** Settles one request's open rows; 'in_doubt' when any stays unknown. */
  async function settle(entries: readonly LedgerEntry[], count: SettleCount): Promise<void> {
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
    settle,
    /**
     * A command on a request whose previous operation is in doubt: settle it now if the
     * provider can tell. 'in_doubt': it cannot yet; 'settled': the claim is resolved and the
     * caller may look again; 'busy': an operation is genuinely under way.
     */
    async settleRequest(requestId: string): Promise<'settled' | 'in_doubt' | 'busy'> {
      const open = (await ledger.forRequest(requestId)).filter(isInDoubt);
      if (open.length === 0) return 'busy';
      const count = emptyResult();
      await settle(open, count);
      return count.unknown > 0 ? 'in_doubt' : 'settled';
    },
  };
}

export type UndecidedOperations = ReturnType<typeof undecidedOperations>;
