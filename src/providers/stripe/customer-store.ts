import type { Queryable } from '../../db/index.ts';

/** A Stripe Customer payreq made for one payment request, on the account of version `account`. */
export interface StripeCustomerRow {
  customerId: string;
  account: number;
}

/**
 * The Stripe Customers payreq made for each payment request (0110_stripe_accounts.sql). Stripe
 * lists PaymentIntents and SetupIntents by customer, not by metadata (its search is eventually
 * consistent: "Search", API reference), so the order view starts from these. A request may
 * have several: one per account version it was paid on. Kept after the request is deleted:
 * its money is still asked about.
 */
export interface StripeCustomerStore {
  forOrder(orderId: string): Promise<StripeCustomerRow[]>;
  save(row: StripeCustomerRow & { orderId: string; tenantId: string }): Promise<void>;
}

export function stripeCustomerStore(db: Queryable): StripeCustomerStore {
  return {
    async forOrder(orderId) {
      const r = await db.query<{ customer_id: string; account_version: number }>(
        `SELECT customer_id, account_version FROM stripe_customers
          WHERE payment_request_id = $1 ORDER BY created_at, customer_id`,
        [orderId],
      );
      return r.rows.map((row) => ({ customerId: row.customer_id, account: row.account_version }));
    },
    async save(row) {
      await db.query(
        `INSERT INTO stripe_customers (payment_request_id, tenant_id, customer_id, account_version)
         VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
        [row.orderId, row.tenantId, row.customerId, row.account],
      );
    },
  };
}
