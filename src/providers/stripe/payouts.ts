import type Stripe from 'stripe';
import { idOf, paced, readError, type StripeClient, stripeClient } from './client.ts';
import { METADATA } from './mapping.ts';
import type { StripeAccount } from './stripe-account.ts';

/** Objects read per page of a list: Stripe's largest. */
const PAGE = 100;

/**
 * Each page's request, with its tries: a page of a hundred balance transactions with their
 * sources expanded is a larger answer than a money call's, and a job waits for it, no guest.
 */
const PAGE_TIMEOUT_MS = 20_000;

/** A payout Stripe paid to the hotel's bank (amount in the currency's smallest unit). */
export interface StripePayout {
  /** `po_…`: the remittance's number. */
  id: string;
  amount: number;
  /** Upper case, as payreq writes currencies. */
  currency: string;
  /** YYYY-MM-DD (UTC): the day it was expected in the bank (`arrival_date`). */
  arrivalDate: string;
}

/**
 * One balance transaction a payout paid out, in payreq's words (amounts in minor units, signed
 * as Stripe signs them: positive into the balance, negative out of it; `net` = amount - fee).
 */
export interface StripePayoutLine {
  /** `txn_…`. */
  id: string;
  /** Stripe's `type`: `charge`, `refund`, `stripe_fee`, `adjustment`… */
  type: string;
  amount: number;
  fee: number;
  net: number;
  currency: string;
  /** YYYY-MM-DD (UTC) of its `created`. */
  date: string;
  /**
   * What payreq's ledger names the money by: a charge's PaymentIntent (`pi_…`; the charge's own
   * id when it has none), a refund's id (`re_…`), else the source's id or null.
   */
  transactionId: string | null;
  /** The request the source's metadata names (`payreq_request`), if any: a claim, not proof. */
  claimedOrder: string | null;
  /** The card's network or method type, when the source says it. */
  paymentMethod: string | null;
}

/**
 * A hotel's payouts, read from its Stripe account (docs.stripe.com/payouts/reconciliation):
 * `GET /v1/payouts?status=paid&arrival_date[gte]=…` and, for each, `GET
 * /v1/balance_transactions?payout=po_…&expand[]=data.source`, a hundred a page. Reads only.
 */
export function stripePayoutSource(account: Pick<StripeAccount, 'apiUrl' | 'secretKey'>) {
  let client: Promise<StripeClient> | undefined;
  const stripe = () => {
    client ??= stripeClient({ apiUrl: account.apiUrl, secretKey: account.secretKey, timeoutMs: PAGE_TIMEOUT_MS });
    return client;
  };
  /** Every page of a list, each page tried again (paced) while Stripe's rate limiter refuses it. */
  async function* pages<T extends { id: string }>(
    what: string,
    page: (s: StripeClient, after: string | undefined) => Promise<Stripe.ApiList<T>>,
  ): AsyncGenerator<T> {
    const s = await stripe();
    let after: string | undefined;
    for (;;) {
      let list: Stripe.ApiList<T>;
      try {
        list = await paced(() => page(s, after), PAGE_TIMEOUT_MS);
      } catch (err) {
        throw readError(what, err);
      }
      yield* list.data;
      const last = list.data[list.data.length - 1];
      if (!list.has_more || !last) return;
      after = last.id;
    }
  }

  return {
    /** The paid payouts expected in the bank on `since` (YYYY-MM-DD, UTC) or after, newest first. */
    async *paidPayouts(since: string): AsyncGenerator<StripePayout> {
      const from = Math.floor(Date.parse(`${since}T00:00:00Z`) / 1000);
      const listed = pages<Stripe.Payout>('payouts list', (s, after) =>
        s.payouts.list({
          status: 'paid',
          arrival_date: { gte: from },
          limit: PAGE,
          ...(after ? { starting_after: after } : {}),
        }),
      );
      for await (const p of listed) {
        // Both filters again: what was asked is what is stored, whatever answered.
        if (p.status !== 'paid' || p.arrival_date < from) continue;
        yield { id: p.id, amount: p.amount, currency: p.currency.toUpperCase(), arrivalDate: dayOf(p.arrival_date) };
      }
    },

    /**
     * The balance transactions a payout paid out, as listed (newest first). The payout's own
     * transaction (`type: payout`, its amount taken out of the balance) is the transfer itself,
     * not one of its lines.
     */
    async payoutLines(payoutId: string): Promise<StripePayoutLine[]> {
      const lines: StripePayoutLine[] = [];
      const listed = pages<Stripe.BalanceTransaction>('balance transactions list', (s, after) =>
        s.balanceTransactions.list({
          payout: payoutId,
          limit: PAGE,
          expand: ['data.source'],
          ...(after ? { starting_after: after } : {}),
        }),
      );
      for await (const t of listed) {
        if (t.type === 'payout') continue;
        lines.push(lineOf(t));
      }
      return lines;
    },
  };
}
export type StripePayoutSource = ReturnType<typeof stripePayoutSource>;

const dayOf = (unix: number) => new Date(unix * 1000).toISOString().slice(0, 10);

/** What a balance transaction's source says of the money, expanded or not. */
function lineOf(t: Stripe.BalanceTransaction): StripePayoutLine {
  const source = t.source;
  const expanded = source && typeof source === 'object' ? (source as unknown as Record<string, unknown>) : undefined;
  const sourceId = idOf(source as string | { id: string } | null);
  let transactionId = sourceId;
  let paymentMethod: string | null = null;
  if (expanded?.object === 'charge') {
    // payreq's ledger names a payment or a capture by its PaymentIntent.
    transactionId = idOf(expanded.payment_intent as string | { id: string } | null) ?? sourceId;
    const details = expanded.payment_method_details as { type?: string; card?: { brand?: string } } | null;
    paymentMethod = details?.card?.brand ?? details?.type ?? null;
  }
  const metadata = expanded?.metadata as Record<string, string> | undefined;
  return {
    id: t.id,
    type: t.type,
    amount: t.amount,
    fee: t.fee,
    net: t.net,
    currency: t.currency.toUpperCase(),
    date: dayOf(t.created),
    transactionId,
    claimedOrder: metadata?.[METADATA.request] ?? null,
    paymentMethod,
  };
}
