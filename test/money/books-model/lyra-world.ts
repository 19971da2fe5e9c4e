import assert from 'node:assert/strict';
import { DECLINE_CODES, FakeServiceError, LYRA_CARDS } from '../../fakes/lyra/fake-store.ts';
import { useLyraShop } from '../../fakes/lyra/give-account.ts';
import {
  DEMO_SHOP,
  DEMO_SHOP_PRODUCTION,
  type LyraFake,
  type ShopKeys,
  startLyraFake,
} from '../../fakes/lyra/lyra-fake.ts';
import { guestCall } from '../../guest/guest-helpers.ts';
import { startListeningApp } from '../../helpers/listening-app.ts';
import type { TenantWithKey } from '../../helpers/test-app.ts';
import type { Card, Fault, MoneyCall, ProviderWorld } from './world.ts';

const CARDS: Record<Card, string> = {
  good: LYRA_CARDS.accepted,
  refused: LYRA_CARDS.refused,
  error: LYRA_CARDS.technicalError,
  blocked: LYRA_CARDS.refusedLater,
};

/** INVENTED keys of another shop of the same hotel group, in PRODUCTION. */
const SECOND_SHOP: ShopKeys = {
  shopId: '33445566',
  password: 'prodpassword_FAKESECONDSHOPKEY5Tw8Hd1Qs9',
  publicKey: '33445566:publickey_FAKESECONDSHOPPUBLICKEY7Yc2',
  hmacKey: '5e0f4b1d2c3a49e8b7d6c5a4f3e2d1c0',
};

/** Where a hotel goes at each switch: TEST to PRODUCTION at go-live, then another shop, and back. */
const ACCOUNTS: readonly ShopKeys[] = [DEMO_SHOP, DEMO_SHOP_PRODUCTION, SECOND_SHOP];

/** The service whose call a model fault meets: the one that moves the money. */
const SERVICE: Record<MoneyCall, string> = {
  capture: 'Transaction/Validate',
  release: 'Transaction/Cancel',
  refund: 'Transaction/CancelOrRefund',
  hold: 'Charge/CreatePayment',
};

/** The runner's bound on a call; each Lyra request is abandoned at 90 % of it (900 ms). */
const TIMEOUT_MS = 1000;
/** A slow answer: in time for one request, past the bound for a capture's read then validate. */
const SLOW_MS = 600;

/**
 * Lyra as the books model drives it, through the wire-level fake: the guest page's embedded
 * form, the card submitted on Lyra's side, its notification posted to payreq; faults queued on
 * the fake's services; accounts switched as `payreq tenant set-provider` does. Its truth is the
 * fake's transactions, read in every shop it serves.
 */
export async function lyraWorld(): Promise<ProviderWorld<string>> {
  const fake = await startLyraFake(DEMO_SHOP);
  fake.addShop(DEMO_SHOP_PRODUCTION);
  fake.addShop(SECOND_SHOP);
  const t = await startListeningApp({
    // The grace covers twice the longest call (three requests of 900 ms), as the configuration asks.
    env: { PROVIDER_TIMEOUT_MS: String(TIMEOUT_MS), IN_DOUBT_GRACE_SECONDS: '6' },
  });
  /** Each hotel's place in ACCOUNTS. */
  const current = new Map<string, number>();
  /** Every notification Lyra posted, for replays. */
  const sent: string[] = [];

  async function useAccount(hotel: TenantWithKey, index: number): Promise<void> {
    await useLyraShop(t, hotel.tenantId, fake, ACCOUNTS[index] as ShopKeys);
    current.set(hotel.tenantId, index);
  }

  return {
    name: 'Lyra',
    t,
    async newHotel() {
      const hotel = await t.newTenant('Hôtel de la Mise en Service');
      await useAccount(hotel, 0);
      return hotel;
    },
    async openForm(_hotel, request) {
      const page = await guestCall(t, request.payment_link);
      // 503 with Retry-After: Lyra did not hand out a form in time (a loaded machine), the page says so.
      const unavailable = page.statusCode === 503 && page.headers['retry-after'] === '60';
      assert.ok(page.statusCode < 500 || unavailable, `the guest page: ${page.statusCode} ${page.body}`);
      return /kr-form-token="([^"]+)"/.exec(page.body)?.[1];
    },
    async pay(formToken, card) {
      let done: ReturnType<LyraFake['completeForm']>;
      try {
        done = fake.completeForm(formToken, CARDS[card]);
      } catch (err) {
        // A form already used: Lyra shows the guest an error, nothing is paid.
        if (err instanceof FakeServiceError) return;
        throw err;
      }
      sent.push(done.ipnBody);
      const delivery = await done.notify();
      assert.ok(!delivery.failures.some((f) => f.startsWith('HTTP 5')), `IPN: ${delivery.failures.join(', ')}`);
    },
    async replay(nth) {
      const body = sent.length ? sent[nth % sent.length] : undefined;
      if (!body) return;
      const r = await fetch(`${t.baseUrl}/ipn/lyra/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
      await r.body?.cancel();
      assert.ok(r.status < 500, `IPN replayed: ${r.status}`);
    },
    arm(call, fault: Fault) {
      const service = SERVICE[call];
      if (fault === 'lost') fake.failNext(service, 'lose');
      if (fault === 'down') fake.failNext(service, 'hang');
      if (fault === 'odd') fake.failNext(service, { answerStatus: 'UNDER_VERIFICATION' });
      // Lyra then shows the transaction in a status no table knows, until it decides.
      if (fault === 'unknown') fake.failNext(service, { answerStatus: 'SOMETHING_NEW', stored: true });
      if (fault === 'late') {
        // A capture reads the hold first: two slow answers pass the bound, and the answer comes late.
        if (call === 'capture') fake.failNext('Transaction/Get', 'slow', { delayMs: SLOW_MS });
        fake.failNext(service, 'slow', { delayMs: SLOW_MS });
      }
    },
    async disarm() {
      fake.clearFaults();
      await fake.idle();
    },
    quiet: () => fake.idle(),
    async view(orderId) {
      let net = 0;
      const openHolds: { id: string; amount: number }[] = [];
      for (const { store } of fake.shops()) {
        for (const x of store.order(orderId)) {
          if (x.operationType !== 'DEBIT') continue;
          if (x.detailedStatus === 'AUTHORISED' || x.detailedStatus === 'CAPTURED') {
            net += x.amount - (x.refundAmount ?? 0);
          }
          if (x.detailedStatus === 'AUTHORISED_TO_VALIDATE') openHolds.push({ id: x.uuid, amount: x.amount });
        }
      }
      return { net, openHolds };
    },
    async landLateHold(orderId) {
      for (const { store } of fake.shops()) {
        const card = store.order(orderId).find((x) => x.operationType === 'VERIFICATION' && x.paymentMethodToken);
        const token = card?.paymentMethodToken;
        if (!token || !store.card(token) || store.card(token)?.cancelledAt) continue;
        store.silentPayment({
          orderId,
          amount: 8000,
          currency: 'EUR',
          token,
          manualValidation: true,
          metadata: { payreq_key: `hold:late:${orderId}:${Date.now()}` },
        });
        return true;
      }
      return false;
    },
    async cardGoesBad(orderId) {
      // The order's last registered card, in whichever shop registered it.
      for (const { store } of [...fake.shops()].reverse()) {
        const token = store
          .order(orderId)
          .filter((x) => x.operationType === 'VERIFICATION' && x.paymentMethodToken)
          .at(-1)?.paymentMethodToken;
        if (!token || !store.card(token)) continue;
        store.refuseCardFromNowOn(token, DECLINE_CODES.stolenCard);
        return true;
      }
      return false;
    },
    decide() {
      for (const { store } of fake.shops()) store.settleShown();
    },
    async switchAccount(hotel) {
      const now = current.get(hotel.tenantId) ?? 0;
      await useAccount(hotel, now + 1 < ACCOUNTS.length ? now + 1 : 1);
    },
    remit() {
      for (const { store } of fake.shops()) store.runBatch();
    },
    async close() {
      await t.close();
      await fake.close();
    },
  };
}
