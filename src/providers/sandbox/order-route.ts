import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Database } from '../../db/index.ts';
import { isUuid } from '../../domain/index.ts';
import { hotelOfCall } from './sandbox-caller.ts';
import type { SandboxStore } from './sandbox-store.ts';

export const SANDBOX_ORDERS_PATH = '/sandbox/orders/:orderId';

const Transaction = Type.Object({
  id: Type.String(),
  /** Six digits, as Lyra's legacyTransId: how the sandbox's remittance report names the transaction. */
  transaction_number: Type.String(),
  kind: Type.String(),
  status: Type.String(),
  amount: Type.Integer(),
  currency: Type.String(),
  captured_amount: Type.Integer(),
  refunded_amount: Type.Integer(),
  created_at: Type.String(),
  /** A hold's end, by its card's network (null for anything else, or a refused hold). */
  expires_at: Type.Union([Type.String(), Type.Null()]),
  /** Why a merchant-initiated hold was placed: `reauthorisation` for a renewal. */
  reason: Type.Union([Type.String(), Type.Null()]),
});

const OrderView = Type.Object({ order_id: Type.String(), transactions: Type.Array(Transaction) });
const NotFound = Type.Object({ error: Type.String(), code: Type.String() });
const Refusal = Type.Object({ error: Type.String(), code: Type.String(), detail: Type.Optional(Type.String()) });

/**
 * The sandbox's transaction query, as a provider's API offers one: every transaction of an
 * order (the payment request's uuid), amounts in minor units, for the hotel whose API key
 * (`X-API-Key`) asks, as a provider's API answers its merchant only: an order of another hotel
 * (or of none) is 404, as an order id that is not a uuid. On a payment or a hold,
 * captured_amount is what was taken and refunded_amount what of that was given back; each
 * refund is also its own transaction. Read-only; it exists only while the sandbox is the
 * provider, since only then is this plugin registered. Without the key it answered anyone, and
 * an order id opens the guest's pages: the key is asked even in development.
 * A hold gives its end (`expires_at`, by its card's network) and shows `expired` once past it, by
 * the order's clock (real time, or the day a job run for a given day last acted on it).
 * An order of the hotel the sandbox never saw is an empty list: a provider cannot tell it from
 * one not yet paid.
 */
export function orderRoute(app: FastifyInstance, store: SandboxStore, db: Database): void {
  app.get<{ Params: { orderId: string } }>(
    SANDBOX_ORDERS_PATH,
    { schema: { hide: true, response: { 200: OrderView, 401: Refusal, 404: NotFound } } },
    async (request, reply) => {
      const hotel = await hotelOfCall(app, request);
      const { orderId } = request.params;
      if (!isUuid(orderId)) {
        return reply.code(404).send({ error: 'No such order: an order id is a uuid.', code: 'order_not_found' });
      }
      // The hotel's order, or one it deleted (its history keeps whose it was): a provider shows a
      // merchant its orders whatever the merchant did with them since.
      const ours = await db.query(
        `SELECT 1 FROM payment_requests WHERE id = $1 AND tenant_id = $2
         UNION ALL
         SELECT 1 FROM status_history WHERE payment_request_id = $1 AND tenant_id = $2
         LIMIT 1`,
        [orderId.toLowerCase(), hotel],
      );
      if (ours.rows.length === 0) {
        return reply.code(404).send({ error: 'No such order for this hotel.', code: 'order_not_found' });
      }
      const rows = await store.order(orderId.toLowerCase());
      return reply.header('cache-control', 'no-store').send({
        order_id: orderId.toLowerCase(),
        transactions: rows.map((t) => ({
          id: t.id,
          transaction_number: t.legacy_trans_id,
          kind: t.kind,
          status: t.lapsed ? 'expired' : t.status,
          amount: t.amount,
          currency: t.currency,
          captured_amount: t.captured_amount,
          refunded_amount: t.refunded_amount,
          created_at: new Date(t.created_at).toISOString(),
          expires_at: t.expires_at ? new Date(t.expires_at).toISOString() : null,
          reason: t.reason,
        })),
      });
    },
  );
}
