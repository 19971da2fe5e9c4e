import type { DeferredHoldsRepository, DueImprint } from '../db/index.js';
import { allowedFrom, type Status, targetOf } from '../domain/index.js';
import { type PaymentProvider, ProviderError } from '../providers/index.js';
import type { SecretBox } from '../secrets/index.js';

export interface DeferredPaymentsContext {
  holds: DeferredHoldsRepository;
  provider: PaymentProvider;
  cardTokens: SecretBox;
}

export interface DeferredPaymentsOptions {
  /** Rows read per batch: the job never holds more than this in memory. */
  batchSize?: number;
  /** Provider calls in flight at once. */
  concurrency?: number;
}

export interface DeferredPaymentsResult {
  date: string;
  window: { from: string; to: string };
  considered: number;
  held: number;
  refused: number;
  failed: number;
  skipped: number;
}

/** `YYYY-MM-DD` plus `days`, as calendar dates (no time zone can shift them). */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** SPEC 1: the hold is placed 2 days before check-in. */
export const DAYS_AHEAD = 2;

/**
 * The daily pre-authorisation (SPEC 1): for every IMPRINT in AUTHORISED with a stored card
 * token whose check-in is from `date` to `date + 2` (so a day the job did not run is caught up),
 * a silent payment with manual validation for the request's amount. Success: the request is
 * AUTHORISED_TO_VALIDATE with its hold's end; a refusal: REFUSED; a technical failure: it stays
 * AUTHORISED and the next run tries again. Each request is claimed before the provider is asked
 * (one winner against a concurrent run), and the provider is called outside any transaction.
 * A second run finds nothing left to do.
 */
export async function createDeferredPayments(
  ctx: DeferredPaymentsContext,
  date: string,
  options: DeferredPaymentsOptions = {},
): Promise<DeferredPaymentsResult> {
  const batchSize = options.batchSize ?? 500;
  const concurrency = options.concurrency ?? 16;
  const window = { from: date, to: addDays(date, DAYS_AHEAD) };
  const result: DeferredPaymentsResult = { date, window, considered: 0, held: 0, refused: 0, failed: 0, skipped: 0 };
  const [start] = allowedFrom('deferred_hold_placed', 'IMPRINT');
  if (!start) throw new Error('the transition table has no deferred hold');
  const from: Status = start;
  const placed = { from, to: targetOf('deferred_hold_placed') };
  const refused = { from, to: targetOf('deferred_hold_refused') };

  async function one(row: DueImprint): Promise<void> {
    if (!(await ctx.holds.claim(row.id, from))) {
      result.skipped++;
      return;
    }
    try {
      const { transactionId } = await ctx.provider.silentHold({
        paymentRequestId: row.id,
        reference: row.reference,
        cardToken: ctx.cardTokens.open(row.card_token, row.id),
        amountCents: row.amount,
        currency: row.currency,
      });
      await ctx.holds.placed(row.id, placed, transactionId, row.hold_days);
      result.held++;
    } catch (err) {
      if (err instanceof ProviderError && err.kind === 'refused') {
        await ctx.holds.refused(row.id, refused, err.message);
        result.refused++;
      } else {
        await ctx.holds.failed(row.id, err instanceof Error ? err.message : String(err));
        result.failed++;
      }
    }
  }

  let after: string | null = null;
  for (;;) {
    const batch = await ctx.holds.dueBatch(window.from, window.to, after, batchSize);
    if (batch.length === 0) break;
    result.considered += batch.length;
    after = batch[batch.length - 1]?.id ?? null;
    // Bounded concurrency: `concurrency` workers drain the batch.
    let next = 0;
    const worker = async () => {
      while (next < batch.length) {
        const row = batch[next++] as DueImprint;
        await one(row);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, batch.length) }, worker));
  }
  return result;
}
