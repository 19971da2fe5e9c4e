import { allowedFrom, isSoftDecline, type Status } from '../domain/index.ts';
import { type MoneyMove, type MoneyRunner, operationKey } from '../payment-requests/index.ts';
import type { SecretBox } from '../secrets/index.ts';
import type { DeferredHoldsRepository, DueImprint } from './deferred-holds-repository.ts';
import { dueCheckins } from './guarantee-dates.ts';
import { holdOperationOn } from './hold-operation.ts';
import { refusedHoldReason } from './refused-hold.ts';

/**
 * Groups in flight at once. Each lane waits in turn on its claim's commit, its provider calls
 * and its outcome's commit; with two, the two cores here were busy about four fifths of the
 * run. Three, measured interleaved over 100,000 holds on PostgreSQL: 5,120 and 5,527 holds a
 * second against 4,660 and 5,025, the same CPU a hold.
 */
const LANES = 3;

export interface DeferredPaymentsContext {
  holds: DeferredHoldsRepository;
  runner: MoneyRunner;
  cardTokens: SecretBox;
}

export interface DeferredPaymentsOptions {
  /**
   * Rows read per batch: the job holds at most two batches in memory (about 1 MB each for
   * 2,000), the one its lanes work on and the next, read meanwhile.
   */
  batchSize?: number;
  /**
   * Provider calls in flight at once, shared by the lanes: by default (a group per lane) each
   * lane asks its whole group at once, so a provider that batches (the sandbox writes the holds
   * asked in one turn in one statement) gets whole groups, and a remote one (Lyra) 192 calls at
   * a time. Fewer than a group per lane makes a group's calls wait for one another,
   * and a call whose turn comes past the runner's call window is not sent: with a short window
   * those rows failed run after run. A provider that refuses the load answers technical errors:
   * those claims are given back and the next run tries them again.
   */
  concurrency?: number;
  /**
   * Rows claimed together, and whose outcomes are recorded together: one commit each way per
   * group instead of one per row. A group per lane is in flight at once, so a crash can leave
   * three times this many claims behind for the reconcile job and an operator: it stays small.
   * 64 rather than 32: each group's statements cost the database a fixed part (binding,
   * planning, commits) besides their rows, and halving their number took ~15 % off its CPU per
   * hold (three lanes of 43 measured no faster than two of 64); a crash leaves at most 192
   * claims.
   */
  groupSize?: number;
  /**
   * The test clock: the moment the run happens for the sandbox (a run for a given day, at that
   * day's scheduled time): its holds are stamped with it and their ends count from it.
   */
  at?: Date;
}

export interface DeferredPaymentsResult {
  date: string;
  window: { from: string; to: string };
  considered: number;
  held: number;
  /** Refused for good: a hard reason, or the check-in day's refusal; the guarantee failed. */
  refused: number;
  /** Declined softly before the check-in day (insufficient funds...): tried again at the next run. */
  declined: number;
  failed: number;
  /** Sent, with no answer in time: reconcile settles them; no run places a second hold meanwhile. */
  in_doubt: number;
  skipped: number;
}

/**
 * The daily pre-authorisation: for every IMPRINT in AUTHORISED with a stored card
 * token whose check-in is from `date` to `date + 2` (so a day the job did not run is caught up),
 * a silent payment with manual validation for the request's amount. Success: the request is
 * AUTHORISED_TO_VALIDATE with its hold's end; a refusal: a failed guarantee, ERROR, the hotel
 * told and the guest asked for another card (holdOperation); a technical failure: it stays
 * AUTHORISED and the next run tries again. Each request is claimed before the provider is asked
 * (one winner against a concurrent run), and the provider is called outside any transaction.
 * A second run finds nothing left to do.
 */
export async function createDeferredPayments(
  ctx: DeferredPaymentsContext,
  date: string,
  options: DeferredPaymentsOptions = {},
): Promise<DeferredPaymentsResult> {
  const batchSize = options.batchSize ?? 2000;
  const groupSize = options.groupSize ?? 64;
  const concurrency = options.concurrency ?? groupSize * LANES;
  const window = dueCheckins(date);
  const result: DeferredPaymentsResult = {
    date,
    window,
    considered: 0,
    held: 0,
    refused: 0,
    declined: 0,
    failed: 0,
    in_doubt: 0,
    skipped: 0,
  };
  // A soft decline is tried again until the check-in day: this run's day decides which is that.
  const operation = holdOperationOn(date, options.at);
  const [start] = allowedFrom('deferred_hold_placed', 'IMPRINT');
  if (!start) throw new Error('the transition table has no deferred hold');
  const from: Status = start;

  /** The hold of one claimed row, as the runner makes it: under a key of its own. */
  function move(row: DueImprint): MoneyMove {
    const key = operationKey('hold');
    // The test clock reaches only the sandbox: its hold, and payreq's record of it, at that moment.
    const onClock = options.at && (row.provider ?? 'sandbox') === 'sandbox' ? { at: options.at } : {};
    return {
      entry: {
        paymentRequestId: row.id,
        tenantId: row.tenant_id,
        kind: 'hold',
        amount: row.amount,
        currency: row.currency,
        provider: row.provider ?? 'sandbox',
        providerTransactionId: null,
        idempotencyKey: key,
        actor: { source: 'job', actor: 'create_deferred_payments' },
        ...onClock,
      },
      call: (provider) =>
        provider.silentHold({
          orderId: row.id,
          reference: row.reference,
          currency: row.currency,
          idempotencyKey: key,
          cardToken: ctx.cardTokens.open(row.card_token, row.id),
          amountCents: row.amount,
          ...(row.card_network_transaction_id ? { initialIssuerTransactionId: row.card_network_transaction_id } : {}),
          ...onClock,
        }),
    };
  }

  /**
   * The runner claims the group with the ledger rows of its holds (one transaction), makes the
   * holds it won (`workers` at once) and records them.
   */
  async function group(rows: readonly DueImprint[], workers: number): Promise<void> {
    const ids = rows.map((r) => r.id);
    const outcomes = await ctx.runner.run(operation, rows.map(move), workers, (tx, token) =>
      ctx.holds.claim(ids, from, token, tx),
    );
    const checkins = new Map(rows.map((r) => [r.id, r.checkin]));
    for (const o of outcomes) {
      if (o.outcome === 'succeeded') result.held++;
      else if (o.outcome === 'refused') {
        const reason = refusedHoldReason(o);
        const checkin = checkins.get(o.entry.payment_request_id) ?? date;
        if (isSoftDecline(reason) && checkin > date) result.declined++;
        else result.refused++;
      } else if (o.outcome === 'in_doubt') result.in_doubt++;
      else if (o.outcome === 'not_claimed') result.skipped++;
      else result.failed++;
    }
  }

  /**
   * The due rows, a group at a time, for the lanes. The next batch is read while the lanes work
   * on this one (its rows come after this batch's last id, so no lane has them yet): a lane
   * that ends a batch takes its next group at once instead of waiting for the other lanes' last
   * groups and then the read, a pause at every batch (6 to 7 % more holds a second without it).
   */
  async function* dueGroups(): AsyncGenerator<DueImprint[]> {
    const read = (after: string | null) => {
      const batch = ctx.holds.dueBatch(window.from, window.to, after, batchSize);
      // Read ahead: a lane that fails stops the job before anyone awaits this read.
      batch.catch(() => undefined);
      return batch;
    };
    let reading = read(null);
    for (;;) {
      const batch = await reading;
      if (batch.length === 0) return;
      result.considered += batch.length;
      reading = read(batch[batch.length - 1]?.id ?? null);
      for (let i = 0; i < batch.length; i += groupSize) yield batch.slice(i, i + groupSize);
    }
  }

  // The lanes take groups in turn, each with its share of the provider calls: while one lane
  // claims or records (a round trip with the provider idle), the others keep their calls in
  // flight. A lane that fails (the database gone) stops the others at their next group, and
  // the job reports its failure once all have stopped: nothing goes on claiming behind it.
  const groups = dueGroups();
  let failed = false;
  const lane = async (workers: number) => {
    try {
      for (let next = await groups.next(); !next.done && !failed; next = await groups.next())
        await group(next.value, workers);
    } catch (err) {
      failed = true;
      throw err;
    }
  };
  const laneCount = Math.max(1, Math.min(LANES, concurrency));
  const shares = Array.from({ length: laneCount }, (_, i) => Math.floor((concurrency + i) / laneCount));
  const lanes = await Promise.allSettled(shares.map(lane));
  for (const l of lanes) if (l.status === 'rejected') throw l.reason;
  return result;
}
