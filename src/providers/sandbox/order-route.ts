import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { isUuid } from '../../domain/index.ts';
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

/**
 * The sandbox's transaction query, as a provider's API offers one: every transaction of an
 * order (the payment request's uuid), amounts in minor units. On a payment or a hold,
 * captured_amount is what was taken and refunded_amount what of that was given back; each
 * refund is also its own transaction. Read-only and open, as the sandbox holds no real money;
 * it exists only while the sandbox is the provider, since only then is this plugin registered.
 * A hold gives its end (`expires_at`, by its card's network) and shows `expired` once past it, by
 * the order's clock (real time, or the day a job run for a given day last acted on it).
 * An order the sandbox never saw is an empty list: a provider cannot tell it from one not yet
 * paid. Anything but a uuid names no order at all: 404.
 */
export function orderRoute(app: FastifyInstance, store: SandboxStore): void {
  app.get<{ Params: { orderId: string } }>(
    SANDBOX_ORDERS_PATH,
    { schema: { hide: true, response: { 200: OrderView, 404: NotFound } } },
    async (request, reply) => {
      const { orderId } = request.params;
      if (!isUuid(orderId)) {
        return reply.code(404).send({ error: 'No such order: an order id is a uuid.', code: 'order_not_found' });
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
