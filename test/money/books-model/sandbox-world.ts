import assert from 'node:assert/strict';
import type { HostedCardForm } from '../../../src/providers/index.ts';
import { startListeningApp } from '../../helpers/listening-app.ts';
import { countingProvider, gate, sandboxOf } from '../../helpers/providers.ts';
import { checkoutForm, postIpn, submitCard } from '../../helpers/sandbox-checkout.ts';
import type { Card, Fault, ProviderWorld } from './world.ts';

const CARDS: Record<Card, string> = {
  good: '4242424242424242',
  refused: '4000000000000002',
  error: '4000000000000119',
  blocked: '4000000000000341',
};

/**
 * The sandbox as the books model drives it: its own card form and notifications, its calls
 * behind a wrapper that loses answers, holds them past the timeout (late) or fails before the
 * call (down). Its truth is its own order view.
 */
export async function sandboxWorld(): Promise<ProviderWorld<HostedCardForm>> {
  const provider = countingProvider();
  const t = await startListeningApp({
    provider: provider.provider,
    // A late answer waits out the timeout; the grace covers twice the longest call, as configured.
    env: { PROVIDER_TIMEOUT_MS: '300', IN_DOUBT_GRACE_SECONDS: '2' },
  });
  let late: ReturnType<typeof gate> | undefined;

  return {
    name: 'the sandbox',
    t,
    newHotel: () => t.newTenant('Hôtel du Bac à Sable'),
    async openForm(_hotel, request) {
      // A new form comes from the guest page, which a deleted request no longer has.
      if (!(await t.repos.paymentRequests.findAnyTenant(request.uuid))) return undefined;
      return checkoutForm(t, request.uuid);
    },
    async pay(form, card) {
      const r = await submitCard(form, { number: CARDS[card] });
      assert.ok(r.status < 500, `the sandbox's card page: ${r.status} ${r.body}`);
    },
    async replay(nth) {
      const sent = await t.db.query<{ body: string }>('SELECT body FROM sandbox_notifications ORDER BY id');
      const body = sent.rows.length ? sent.rows[nth % sent.rows.length]?.body : undefined;
      if (body) assert.ok((await postIpn(t, body)).status < 500);
    },
    arm(_call, fault: Fault) {
      if (fault === 'lost' || fault === 'odd' || fault === 'unknown') provider.loseAnswers(true);
      if (fault === 'down') provider.failWith('unknown');
      if (fault === 'late') {
        late = gate();
        provider.holdUntil(late.opened);
      }
    },
    async disarm() {
      provider.loseAnswers(false);
      provider.failWith(undefined);
      provider.holdUntil(undefined);
      late?.open();
      late = undefined;
      await provider.idle();
    },
    quiet: () => provider.idle(),
    async view(orderId) {
      const order = await sandboxOf(t.app).getOrder(orderId);
      let net = 0;
      for (const x of order.transactions) {
        if (x.kind === 'payment' || x.kind === 'hold') net += x.capturedAmount - x.refundedAmount;
      }
      const open = order.transactions.filter((x) => x.kind === 'hold' && x.status === 'authorised');
      return { net, openHolds: open.map((x) => ({ id: x.id, amount: x.amount })) };
    },
    async landLateHold(orderId) {
      // Straight into the sandbox's books, as its vault would record a hold it completed late.
      const r = await t.db.query(
        `INSERT INTO sandbox_transactions (id, order_id, kind, status, amount, currency, token)
         SELECT 'txn_late_' || substr(md5(random()::text), 1, 20), v.order_id, 'hold', 'authorised', p.amount,
                p.currency, v.token
           FROM sandbox_transactions v JOIN payment_requests p ON p.id = v.order_id
          WHERE v.order_id = $1 AND v.kind = 'verification' AND v.status = 'accepted' AND v.token IS NOT NULL
          ORDER BY v.id LIMIT 1`,
        [orderId],
      );
      return (r.rowCount ?? 0) > 0;
    },
    async cardGoesBad(orderId) {
      const r = await t.db.query(
        `UPDATE sandbox_tokens SET card_number = '4000000000009979'
          WHERE token = (SELECT token FROM sandbox_transactions
                          WHERE order_id = $1 AND kind = 'verification' AND token IS NOT NULL
                          ORDER BY created_at DESC, id DESC LIMIT 1)`,
        [orderId],
      );
      return (r.rowCount ?? 0) > 0;
    },
    close: () => t.close(),
  };
}
