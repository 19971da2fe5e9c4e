import { type LedgerEntry, PG, pgCode, recordIncident } from '../db/index.ts';
import type { Currency, Status } from '../domain/index.ts';
import { giveBackOperation, type MoneyRunner } from '../payment-requests/index.ts';
import type { ProviderTransaction } from '../providers/index.ts';
import type { AuditDeps } from './audit-deps.ts';

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
 * Gives back holds open at the provider that no request owns (a second hold landing late, a
 * hold left open on a request that ended): each recorded as misplaced money (an incident on
 * the request, in its history) and cancelled through the money runner, as money that arrived
 * where it should not. A hold already recorded so is not recorded twice; nothing is done if
 * anything moved on the request since its ledger was read (`lastId`): a hold being placed
 * right then has its ledger row open, and is never taken for a stray one.
 */
export async function giveBackStrayHolds(
  deps: Pick<AuditDeps, 'db' | 'repos' | 'runner'>,
  requestId: string,
  stray: readonly ProviderTransaction[],
  seen: { lastId: string; status: Status | null },
): Promise<number> {
  const { runner } = deps;
  const ledger = deps.repos.ledger;
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
