import { type MoneyMove, type MoneyRunner, operationKey } from '../payment-requests/index.ts';
import type { SecretBox } from '../secrets/index.ts';
import type { DueRenewal, HoldRenewalsRepository, SupersededHold } from './hold-renewals-repository.ts';
import { renewOperationAt, supersededReleaseOperation } from './renew-operation.ts';

export interface RenewHoldsContext {
  renewals: HoldRenewalsRepository;
  runner: MoneyRunner;
  cardTokens: SecretBox;
}

export interface RenewHoldsOptions {
  /**
   * The test clock: the moment the run happens for the sandbox (a run for a given day, at that
   * day's scheduled time). The sandbox stamps the holds and releases it makes with it, and the
   * new holds' ends count from it. Real providers live in real time: their rows ignore it.
   */
  at?: Date;
  /** Rows read, claimed and recorded together: one commit each way per group. */
  groupSize?: number;
}

export interface RenewHoldsResult {
  date: string;
  /** Live holds that would lapse before the hotel's decision and before the next run. */
  due: number;
  renewed: number;
  /** The bank said no: the old hold stays until it lapses, the guarantee has failed. */
  refused: number;
  /** Sent, with no answer in time: reconcile settles them; the old hold stays meanwhile. */
  in_doubt: number;
  /** Not reached, or nothing moved: the next run tries again while the old hold lives. */
  failed: number;
  /** Taken by a concurrent run or a capture, release or cancel. */
  skipped: number;
  /** Replaced holds released (this run's renewals, and any an earlier run could not release). */
  released: number;
}

/**
 * The daily renewal of guarantees: for every IMPRINT whose live hold ends, in the hotel's zone,
 * before the next run and on or before the hotel's decision date (check-out, or the day after
 * check-in), a new merchant-initiated hold for the request's amount, chained to the card's
 * registration and told as a reauthorisation; once it is placed, the old hold is released
 * (its own move, so a renewal never waits on it). Between the two, and until a failed
 * release is tried again by the next run, the order has two holds open: the books know the
 * replaced one. Claimed before the provider is asked, through the money runner like every move.
 */
export async function renewHolds(
  ctx: RenewHoldsContext,
  date: string,
  options: RenewHoldsOptions = {},
): Promise<RenewHoldsResult> {
  const groupSize = options.groupSize ?? 64;
  const at = options.at;
  const result: RenewHoldsResult = {
    date,
    due: 0,
    renewed: 0,
    refused: 0,
    in_doubt: 0,
    failed: 0,
    skipped: 0,
    released: 0,
  };
  const operation = renewOperationAt(at);
  const actor = { source: 'job' as const, actor: 'renew_holds' };
  /** The test clock reaches only the sandbox. */
  const clock = (provider: string) => (at && provider === 'sandbox' ? { at } : {});

  function renewal(row: DueRenewal): MoneyMove {
    const key = operationKey('hold');
    const provider = row.provider ?? 'sandbox';
    return {
      entry: {
        paymentRequestId: row.id,
        tenantId: row.tenant_id,
        kind: 'hold',
        amount: row.amount,
        currency: row.currency,
        provider,
        // Its own transaction, once placed; the hold it replaces is its parent.
        providerTransactionId: null,
        parentId: row.live_hold_id,
        idempotencyKey: key,
        actor,
        ...clock(provider),
      },
      call: (p) =>
        p.silentHold({
          orderId: row.id,
          reference: row.reference,
          currency: row.currency,
          idempotencyKey: key,
          cardToken: ctx.cardTokens.open(row.card_token, row.id),
          amountCents: row.amount,
          reason: 'reauthorisation',
          ...(row.card_network_transaction_id ? { initialIssuerTransactionId: row.card_network_transaction_id } : {}),
          ...clock(provider),
        }),
    };
  }

  function release(old: SupersededHold): MoneyMove {
    // One key per attempt: two runs at once write one row for it, the other finds it taken.
    const key = `release:replaced:${old.id}:${old.attempts}`;
    return {
      entry: {
        paymentRequestId: old.payment_request_id,
        tenantId: old.tenant_id,
        kind: 'release',
        amount: 0,
        currency: old.currency,
        provider: old.provider,
        providerTransactionId: old.provider_transaction_id,
        parentId: old.id,
        idempotencyKey: key,
        actor,
        ...clock(old.provider),
      },
      call: (p) =>
        p.release({
          orderId: old.payment_request_id,
          reference: old.reference,
          currency: old.currency,
          idempotencyKey: key,
          transactionId: old.provider_transaction_id,
          ...clock(old.provider),
        }),
    };
  }

  // A hold renewed this run ends later, so the keyset along the ends may meet it again (where
  // its new end still falls before the next run): never twice in one run.
  const seen = new Set<string>();
  async function renew(rows: readonly DueRenewal[]): Promise<void> {
    const batch = rows.filter((r) => !seen.has(r.id));
    for (const r of batch) seen.add(r.id);
    if (batch.length === 0) return;
    result.due += batch.length;
    // Claimed only where each request still is what this run read (its live hold, that hold's
    // end, no attempt settled since): the parent of each new hold is the live hold claimed.
    const outcomes = await ctx.runner.run(operation, batch.map(renewal), batch.length, (tx, token) =>
      ctx.renewals.claim(batch, token, tx),
    );
    for (const o of outcomes) {
      if (o.outcome === 'succeeded') result.renewed++;
      else if (o.outcome === 'refused') result.refused++;
      else if (o.outcome === 'in_doubt') result.in_doubt++;
      else if (o.outcome === 'not_claimed' || o.outcome === 'duplicate') result.skipped++;
      else result.failed++;
    }
  }

  // New cards given after a refused renewal first (held at once), then the holds about to lapse.
  for (let after: string | null = null; ; ) {
    const batch = await ctx.renewals.newCardsBatch(after, groupSize);
    if (batch.length === 0) break;
    after = batch[batch.length - 1]?.id ?? null;
    await renew(batch);
  }
  const moment = at ?? new Date();
  for (let after: { expiresAt: string; id: string } | null = null; ; ) {
    const batch = await ctx.renewals.dueBatch(date, after, groupSize, moment);
    const last = batch[batch.length - 1];
    if (!last) break;
    after = { expiresAt: last.cursor_at, id: last.id };
    await renew(batch);
  }

  // The replaced holds, this run's and any left by an earlier one, released while alive.
  for (;;) {
    const old = await ctx.renewals.superseded(moment, groupSize);
    if (old.length === 0) break;
    const outcomes = await ctx.runner.run(supersededReleaseOperation, old.map(release), old.length);
    result.released += outcomes.filter((o) => o.outcome === 'succeeded').length;
    // What this pass could not release waits for the next run: never loop on it.
    if (outcomes.every((o) => o.outcome !== 'succeeded')) break;
  }
  return result;
}
