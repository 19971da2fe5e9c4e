// test-engines: pglite. What a browser sees (pages, accessibility, the CSP, forms without
// JavaScript) does not depend on the engine; the same flows' HTTP answers and stored rows are
// tested on both engines by the files beside this one. (scripts/test-engines.mjs reads this line.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { useStripeAccount } from '../fakes/stripe/give-account.ts';
import { type StripeFake, startStripeFake } from '../fakes/stripe/stripe-fake.ts';
import { STRIPE_CARDS } from '../fakes/stripe/test-cards.ts';
import { axeViolations, guestContext, launchChromium, skipWithoutChromium } from '../helpers/browser.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { auditResponses, createRequest, ENGINE } from '../helpers/test-app.ts';

const skip = skipWithoutChromium;

/**
 * A Stripe hotel's guest, in a real browser: payreq's page (no script of its own), its button, the
 * fake's Checkout page (another origin, as Stripe's is), the card typed there, and back to
 * payreq's result page. The page's CSP lets the button's redirect reach Checkout; nothing the
 * browser sends payreq carries the card number.
 */
describe(`Stripe Checkout from the guest page, in a real browser (${ENGINE})`, { skip, timeout: 300_000 }, () => {
  let t: ListeningApp;
  let fake: StripeFake;
  let browser: Browser;

  before(async () => {
    fake = await startStripeFake();
    t = await startListeningApp({ env: { TRUST_PROXY: 'true' } });
    await useStripeAccount(t, t.tenant.tenantId, fake);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    if (t) {
      auditResponses(t);
      await t.close();
    }
    await fake?.close();
  });

  const detail = async (uuid: string) =>
    (await t.call({ method: 'GET', url: `/api/payment-requests/${uuid}/` })).json() as Record<string, unknown>;

  const cases = [
    {
      type: 'DEPOSIT',
      language: 'en',
      button: 'Continue to Stripe’s secure payment page',
      status: 'CAPTURED',
      title: 'Payment received',
    },
    {
      type: 'IMPRINT',
      language: 'fr',
      button: 'Continuer vers la page de paiement sécurisée de Stripe',
      status: 'AUTHORISED',
      title: 'Carte enregistrée',
    },
  ] as const;
  for (const c of cases) {
    test(`${c.type}: payreq's page, Stripe's Checkout, payreq's result page; ${c.status}, no card number sent to payreq`, async () => {
      const { context, page, cspErrors } = await guestContext(browser, t.baseUrl);
      try {
        const seen: string[] = [];
        page.on('request', (r) => {
          if (r.url().startsWith(t.baseUrl)) seen.push(`${r.method()} ${r.url()} ${r.postData() ?? ''}`);
        });
        const created = await createRequest(t, {
          request_type: c.type,
          language: c.language,
          amount: 95,
          reservation_data: { checkin: '2026-12-20' },
        });
        const response = await page.goto(created.payment_link);
        assert.equal(response?.status(), 200);
        assert.deepEqual(await axeViolations(page), [], 'payreq’s page is accessible');
        await Promise.all([
          page.waitForURL(`${fake.apiUrl}/pay/**`),
          page.getByRole('button', { name: c.button }).click(),
        ]);
        await page.getByLabel('Card number').fill(STRIPE_CARDS.visa);
        await page.getByLabel('MM').fill('12');
        await page.getByLabel('YY').fill('30');
        await page.getByLabel('CVC').fill('123');
        await Promise.all([
          page.waitForURL(`${t.baseUrl}/payment/${created.uuid}/result/**`),
          page.getByRole('button', { name: c.type === 'DEPOSIT' ? 'Pay' : 'Save card' }).click(),
        ]);
        await page.locator('h1', { hasText: c.title }).waitFor({ timeout: 15_000 });
        await eventually(async () => ((await detail(created.uuid)).status === c.status ? true : undefined), c.status);
        assert.equal(
          seen.some((s) => s.includes(STRIPE_CARDS.visa)),
          false,
        );
        assert.deepEqual(cspErrors, [], 'nothing was blocked by the CSP');
      } finally {
        await context.close();
      }
    });
  }
});
