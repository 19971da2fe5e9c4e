import assert from 'node:assert/strict';
import type { TestApp } from '../../helpers/test-app.ts';
import { LYRA_CARDS } from './fake-store.ts';
import { formTokenOf, type LyraFake } from './lyra-fake.ts';

/** A request as the guest's payment needs it. */
export interface GuestOrder {
  uuid: string;
  reference: string;
}

/**
 * The guest pays a request on Lyra, as the guest page does it: the tenant's account hands out
 * the embedded form (IMPRINT: register the card; DEPOSIT: pay `cents`), the card is submitted on
 * the fake's side, and Lyra's signed notification is applied. Answers the transaction's uuid.
 */
export async function guestPaysOnLyra(
  t: TestApp,
  fake: LyraFake,
  order: GuestOrder,
  opts: { type: 'IMPRINT' | 'DEPOSIT'; cents?: number; pan?: string; tenantId?: string },
): Promise<string> {
  const lyra = await t.app.payreq.providers.forTenant(opts.tenantId ?? t.tenant.tenantId);
  const form = await lyra.startGuestPayment({
    paymentRequestId: order.uuid,
    reference: order.reference,
    requestType: opts.type,
    amountCents: opts.cents ?? 0,
    currency: 'EUR',
    language: 'en',
    guestEmail: 'guest@example.test',
    merchantName: 'Hotel Test',
    returnUrl: `http://127.0.0.1/pay/${order.uuid}/result`,
    notifyUrl: 'http://127.0.0.1/ipn/lyra/',
  });
  const { uuid, ipnBody } = fake.completeForm(formTokenOf(form), opts.pan ?? LYRA_CARDS.accepted);
  assert.equal(await t.app.payreq.notifications.apply('lyra', lyra.parseNotification(ipnBody, {})), 'applied');
  return uuid;
}
